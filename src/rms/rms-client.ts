import { Agent, buildConnector, Client, type Dispatcher } from 'undici';
import { callDeadline, MAX_PARTNER_ANSWER_BYTES, readWithin, rejectOnAbort, transportFailure } from '../lib/outbound-http.ts';
import { guardedLookup } from '../lib/outbound-url.ts';
import { trustingContext } from '../lib/tls.ts';
import {
  queryOf, readAck, readAvailability, readBooking, readRefusal, readSearch, reasonOf, refusedStream, ShapeError,
  type Availability, type BookingAck, type RmsBooking, type RmsContact,
} from './rms-client.fns.ts';

// Tableside's client of the booking-services contract (DESIGN 8.2). The RMS is untrusted: every
// call carries the partner's Bearer key over HTTPS, has a time limit (availability 1 s, the rest
// RMS_TIMEOUT_MS), connects only to addresses the outbound-URL guard allows (checked again at
// connect time, so DNS rebinding does not pass), and every answer is read against the contract.
// Whatever goes wrong becomes an RmsError; a 402 keeps the RMS's code as it was sent.

export type RmsErrorKind =
  /** The RMS answered 402 {error:{code}}: a business refusal; `code` as sent. */
  | 'refused'
  /** 409: the same Idempotency-Key with another body. */
  | 'conflict'
  /** 404 on a booking path. */
  | 'not_found'
  | 'unreachable'
  | 'timeout'
  /**
   * 400 or 422: the RMS refuses the request itself (a field its contract needs, a date it does not
   * take). The caller's problem: no retry makes it work, so it is final, and a channel is told 400.
   */
  | 'invalid'
  /** Any other status (401 included: the partner's key was refused). */
  | 'status'
  /** The answer is not JSON, or not the contract's shape. */
  | 'bad_answer'
  /** The RMS partner has not connected its booking services (DESIGN 8.1); no call was made. */
  | 'not_connected';

export class RmsError extends Error {
  constructor(
    readonly kind: RmsErrorKind,
    message: string,
    readonly status?: number,
    /** For `refused`: the 402 code, e.g. `slot_unavailable`. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'RmsError';
  }

  /**
   * Whether this is the RMS's final word on the call: a business refusal (402 with its code), the
   * request refused as invalid (400, 422), the key reused with another body (409), a booking it does not know (404), or no call made at all.
   * Anything else is transient (DESIGN 8.8b): a timeout, a 5xx, garbage, and also 408, 429, and a
   * 401 or 403 while the RMS rotates its key, so a create that met one is sent again under the
   * same key, never recorded as refused.
   */
  get definite(): boolean {
    return this.kind === 'refused' || this.kind === 'invalid' || this.kind === 'conflict' || this.kind === 'not_connected' || this.kind === 'not_found';
  }
}

/** Where a partner's booking services are and the key they take. */
export interface RmsEndpoint {
  baseUrl: string;
  apiKey: string;
}

export interface AvailabilityQuery { venueId: string; date: string; partySize: number; areaId?: string | null }

export interface CreateBookingRequest {
  venueId: string;
  bookingChannel: { id: string; name: string };
  partySize: number;
  /** ISO 8601 with offset. */
  date: string;
  areaId?: string | null;
  contact: RmsContact;
  notes?: string | null;
  paymentToken?: string;
}

export interface ChangeBookingRequest { partySize?: number; date?: string }
export interface CancelBookingRequest { cancelActor?: string; cancelReason?: string }
export interface SearchQuery { venueId: string; startDate: string; endDate: string; email?: string; phoneNumber?: string }

export interface RmsClientOptions {
  /** RMS_TIMEOUT_MS: every call but availability. */
  timeoutMs: number;
  /** DESIGN 8.2: availability answers within 1 s or the snapshot answers instead. */
  availabilityTimeoutMs?: number;
  /** ALLOW_PRIVATE_TARGETS. */
  allowPrivate: boolean;
  /** Certificates to trust besides Node's (the in-process reference RMS of the sandbox and tests). */
  extraCa?: () => string[];
}

const enc = encodeURIComponent;

/**
 * How long after an availability call timed out the next ones go over the multiplexed pool: an RMS
 * that let one hang is likely to let the next ones hang too (issue 28).
 */
export const MULTIPLEXED_AFTER_TIMEOUT_MS = 60_000;

/** How many calls one HTTP/2 connection to an RMS carries at once (undici's own default limit of streams). */
export const MULTIPLEXED_STREAMS = 100;

/** The client of one RMS (one base URL and key), over its own keep-alive pool. */
export class RmsClient {
  /** Until when availability calls go over `multiplexed` (ms since the epoch; 0: never yet). */
  private multiplexedUntil = 0;
  /** The base URL's origin and path (without a trailing slash), parsed once. */
  private readonly origin: string;
  private readonly basePath: string;

  constructor(
    private readonly endpoint: RmsEndpoint,
    private readonly dispatcher: Dispatcher,
    private readonly opts: RmsClientOptions,
    /**
     * A pool that offers HTTP/2 by ALPN, for availability calls while the RMS lets them time out: over
     * HTTP/2 a call given up at its limit resets its stream and the connection stays, where over
     * HTTP/1.1 its socket is destroyed, so every lookup to a hanging RMS cost a new TCP connection and
     * TLS handshake on both sides. A healthy RMS is asked over HTTP/1.1 as before: over HTTP/2 undici
     * spends ~0.2 ms more CPU per answered call (measured, 16 in flight). docs/decisions.md.
     */
    private readonly multiplexed: () => Dispatcher = () => dispatcher,
  ) {
    const base = new URL(endpoint.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
  }

  private async call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    o: { query?: Record<string, string | undefined>; body?: unknown; headers?: Record<string, string>; timeoutMs?: number; dispatcher?: Dispatcher } = {},
  ): Promise<{ status: number; body: unknown }> {
    const what = `${method} ${path}`;
    const timeoutMs = o.timeoutMs ?? this.opts.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    // Stopped once the call is done (lib/outbound-http.ts): AbortSignal.timeout kept every finished
    // call's timer, which fired a second later and built a DOMException (issue 28: 4% of the serve's
    // main thread at 16 lookups in flight, profiled).
    const limit = callDeadline(timeoutMs);
    let res: Dispatcher.ResponseData;
    let text: string | null;
    try {
      // The race keeps the whole-call limit whole while a TLS handshake stalls (rejectOnAbort).
      // The dispatcher is given the origin and path as they are: a URL object per call, its query
      // set field by field, was parsed again by undici (profiled, ~2% of a lookup's main thread).
      const pending = (o.dispatcher ?? this.dispatcher).request({
        origin: this.origin,
        path: this.basePath + path + queryOf(o.query),
        method,
        headers: {
          authorization: `Bearer ${this.endpoint.apiKey}`,
          accept: 'application/json',
          ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(o.headers ?? {}),
        },
        body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
        signal: limit.signal,
      });
      res = await Promise.race([pending, rejectOnAbort(limit.signal)]);
      // Never more than 8 MiB of an answer (DESIGN 8.8e): the RMS is untrusted and the process shared.
      text = await Promise.race([readWithin(res, MAX_PARTNER_ANSWER_BYTES), rejectOnAbort(limit.signal)]);
    } catch (err) {
      // A stream the RMS refused over HTTP/2 (REFUSED_STREAM: it counts more streams open than its
      // SETTINGS_MAX_CONCURRENT_STREAMS, e.g. ones just reset by given-up calls) was not processed
      // (RFC 9113 8.7): asked again over HTTP/1.1 within what is left of the limit, as it would
      // have been without the multiplexed pool.
      if (o.dispatcher && o.dispatcher !== this.dispatcher && refusedStream(err) && deadline - Date.now() > 0) {
        return this.call(method, path, { ...o, dispatcher: this.dispatcher, timeoutMs: deadline - Date.now() });
      }
      throw transportError(err, what, timeoutMs);
    } finally {
      limit.done();
    }
    if (text === null) throw new RmsError('bad_answer', `${what}: the RMS answered ${res.statusCode} with a body over ${MAX_PARTNER_ANSWER_BYTES} bytes; not read`, res.statusCode);
    let body: unknown;
    try {
      body = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      if (res.statusCode >= 200 && res.statusCode < 300) throw new RmsError('bad_answer', `${what}: the RMS answered ${res.statusCode} with a body that is not JSON`, res.statusCode);
    }
    if (res.statusCode === 402) {
      const refusal = readRefusal(body);
      if (!refusal) throw new RmsError('bad_answer', `${what}: the RMS answered 402 without {error:{code,message}}`, 402);
      throw new RmsError('refused', `${what}: the RMS refused: ${refusal.code}`, 402, refusal.code);
    }
    if (res.statusCode === 409) throw new RmsError('conflict', `${what}: the RMS answered 409 (the idempotency key was used with another body)`, 409);
    if (res.statusCode === 404 && path.startsWith('/booking/')) throw new RmsError('not_found', `${what}: the RMS does not know this booking`, 404);
    if (res.statusCode === 400 || res.statusCode === 422) {
      throw new RmsError('invalid', `${what}: the RMS refused the request as invalid${reasonOf(body)}`, res.statusCode, INVALID_REQUEST);
    }
    if (res.statusCode !== 200 && res.statusCode !== 201) throw new RmsError('status', `${what}: the RMS answered ${res.statusCode}`, res.statusCode);
    return { status: res.statusCode, body };
  }

  private read<T>(what: string, reader: (raw: unknown) => T, raw: unknown): T {
    try {
      return reader(raw);
    } catch (err) {
      if (err instanceof ShapeError) throw new RmsError('bad_answer', `${what}: the answer breaks the contract: ${err.message}`);
      throw err;
    }
  }

  /** GET /healthcheck; resolves when it answers 200 (which also proves the key). */
  async healthcheck(): Promise<void> {
    await this.call('GET', '/healthcheck');
  }

  /** How long `availability` waits for the RMS before it fails with a timeout (DESIGN 8.2: 1 s). */
  get availabilityTimeoutMs(): number {
    return this.opts.availabilityTimeoutMs ?? 1000;
  }

  /** `timeoutMs`: what is left of the caller's limit (availability.service counts it from its request's arrival). */
  async availability(q: AvailabilityQuery, timeoutMs = this.availabilityTimeoutMs): Promise<Availability> {
    const res = await this.call('GET', '/availability', {
      query: { venueId: q.venueId, date: q.date, partySize: String(q.partySize), areaId: q.areaId ?? undefined },
      timeoutMs,
      dispatcher: Date.now() < this.multiplexedUntil ? this.multiplexed() : undefined,
    }).catch((err: unknown) => {
      if (err instanceof RmsError && err.kind === 'timeout') this.multiplexedUntil = Date.now() + MULTIPLEXED_AFTER_TIMEOUT_MS;
      throw err;
    });
    const answer = this.read('GET /availability', readAvailability, res.body);
    if (answer.venueId !== q.venueId || answer.date !== q.date || answer.partySize !== q.partySize) {
      throw new RmsError('bad_answer', 'GET /availability: the answer is for another venue, date or party size than asked');
    }
    return answer;
  }

  /** POST /booking under `idempotencyKey`; a retry must pass the same key and the same body. */
  async createBooking(idempotencyKey: string, body: CreateBookingRequest): Promise<BookingAck> {
    if (!idempotencyKey) throw new Error('createBooking needs an Idempotency-Key (never create without one)');
    const res = await this.call('POST', '/booking', { body, headers: { 'idempotency-key': idempotencyKey } });
    return this.read('POST /booking', readAck, res.body);
  }

  async getBooking(id: string): Promise<RmsBooking> {
    const res = await this.call('GET', `/booking/${enc(id)}`);
    const booking = this.read(`GET /booking/${id}`, readBooking, res.body);
    if (booking.id !== id) throw new RmsError('bad_answer', `GET /booking/${id}: the answer is booking ${booking.id}`);
    return booking;
  }

  async updateBooking(id: string, change: ChangeBookingRequest): Promise<BookingAck> {
    const res = await this.call('PUT', `/booking/${enc(id)}`, { body: change });
    return this.read(`PUT /booking/${id}`, readAck, res.body);
  }

  async cancelBooking(id: string, body: CancelBookingRequest = {}): Promise<BookingAck> {
    const res = await this.call('PUT', `/booking/${enc(id)}/cancel`, { body });
    const ack = this.read(`PUT /booking/${id}/cancel`, readAck, res.body);
    if (ack.status !== 'canceled') throw new RmsError('bad_answer', `PUT /booking/${id}/cancel: status must be "canceled", got "${ack.status}"`);
    return ack;
  }

  async searchBookings(q: SearchQuery): Promise<{ total: number; data: RmsBooking[] }> {
    const res = await this.call('GET', '/bookings/search', { query: { ...q } });
    return this.read('GET /bookings/search', readSearch, res.body);
  }
}

/** The code a booking refused as invalid is recorded under (its replays answer 400 again). */
export const INVALID_REQUEST = 'invalid_request';

function transportError(err: unknown, what: string, timeoutMs: number): RmsError {
  if (err instanceof RmsError) return err;
  const failure = transportFailure(err);
  if (failure.kind === 'unreachable') return new RmsError('unreachable', `${what}: the RMS could not be reached (${failure.reason})`);
  return new RmsError('timeout', failure.connecting ? `${what}: connecting to the RMS timed out` : `${what}: the RMS did not answer within ${timeoutMs} ms`);
}

/**
 * One RmsClient per RMS endpoint, each over its own keep-alive pool whose connections pass the
 * outbound-URL guard at connect time. A changed key or base URL gets a new client; the old pool
 * is closed.
 */
export class RmsClients {
  private readonly clients = new Map<string, { key: string; client: RmsClient; agents: Agent[] }>();
  private readonly extraCa: string[] = [];

  constructor(private readonly opts: Omit<RmsClientOptions, 'extraCa'>) {}

  /** Also trust this certificate (the in-process reference RMS of the sandbox and of tests). */
  trust(pem: string): void {
    if (this.extraCa.includes(pem)) return;
    this.extraCa.push(pem);
    // Pools built before trusted less; they are rebuilt on next use.
    for (const [id, entry] of this.clients) {
      for (const agent of entry.agents) void agent.close().catch(() => undefined);
      this.clients.delete(id);
    }
  }

  /** The client for `id` (a partner) at `endpoint`. */
  for(id: string, endpoint: RmsEndpoint): RmsClient {
    const key = `${endpoint.baseUrl}\u0000${endpoint.apiKey}`;
    const known = this.clients.get(id);
    if (known?.key === key) return known.client;
    if (known) for (const agent of known.agents) void agent.close().catch(() => undefined);
    const agents = [this.pool()];
    // The HTTP/2-offering pool is made when a lookup first times out (most RMSes never do). An RMS
    // that answers it in HTTP/1.1 is asked over the HTTP/1.1 pool again (32 connections, not one).
    let http1Only = false;
    const multiplexed = () => (http1Only ? agents[0]! : (agents[1] ??= this.multiplexedPool(() => (http1Only = true))));
    const client = new RmsClient(endpoint, agents[0]!, this.opts, multiplexed);
    this.clients.set(id, { key, client, agents });
    return client;
  }

  /** How every pool connects: through the outbound-URL guard, trusting what this process trusts. */
  private connectOptions() {
    return {
      timeout: Math.min(2000, this.opts.timeoutMs),
      lookup: guardedLookup({ allowPrivate: this.opts.allowPrivate }),
      // The trust store is parsed once per set of CAs in the process (src/lib/tls.ts), not once per
      // connection: given `ca`, every tls.connect parses the ~140 root certificates again (15-140 ms
      // of the event loop each, measured; an RMS that hangs costs a new connection per lookup, issue 28).
      // Also with no CA of ours: given no context, every tls.connect builds its own (an OpenSSL context
      // trusting Node's roots and NODE_EXTRA_CA_CERTS, which is what trustingContext() trusts); 2.86 ms
      // of CPU per lookup to a hanging RMS with one per connection, 2.31 ms shared (median of 6 pairs).
      secureContext: trustingContext(...this.extraCa),
    };
  }

  /** A keep-alive HTTP/1.1 pool whose connections pass the outbound-URL guard. */
  private pool(): Agent {
    return new Agent({
      connect: this.connectOptions(),
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
      keepAliveTimeout: 10_000,
      connections: 32,
    });
  }

  /**
   * The pool offering HTTP/2 by ALPN: one connection, carrying up to MULTIPLEXED_STREAMS calls at once
   * when the RMS chose h2. A pool cannot know a connection will be h2 until ALPN says so, and opened
   * one per request waiting meanwhile (with 32 connections allowed, the first wave of lookups to a
   * hanging RMS cost 32 TLS handshakes on both sides), and undici's clients carry one request at a
   * time unless told otherwise, h2 or not (its `pipelining` defaults to 1), so each connection held
   * one stream. When the RMS chooses HTTP/1.1, the connection keeps one request at a time (no
   * HTTP/1.1 pipelining to an untrusted server) and `onHttp1` sends the next calls back to the
   * HTTP/1.1 pool; the calls that arrived during that first handshake wait their turn on it, within
   * their own limit.
   */
  private multiplexedPool(onHttp1: () => void): Agent {
    const connector = buildConnector({ ...this.connectOptions(), allowH2: true });
    return new Agent({
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
      keepAliveTimeout: 10_000,
      connections: 1,
      allowH2: true,
      factory: (origin, opts) => {
        const client: Client = new Client(origin, {
          ...(opts as Client.Options),
          connect: (options, done) => connector(options, (err, socket) => {
            if (socket) {
              const h2 = (socket as { alpnProtocol?: string | false | null }).alpnProtocol === 'h2';
              client.pipelining = h2 ? MULTIPLEXED_STREAMS : 1;
              if (!h2) onHttp1();
            }
            (done as (e: Error | null, s: typeof socket) => void)(err, socket);
          }),
        });
        return client;
      },
    });
  }

  /** A client for a one-off call (the healthcheck before saving), closed afterwards. */
  async once<T>(endpoint: RmsEndpoint, fn: (client: RmsClient) => Promise<T>): Promise<T> {
    const id = `once:${Math.random()}`;
    try {
      return await fn(this.for(id, endpoint));
    } finally {
      const entry = this.clients.get(id);
      this.clients.delete(id);
      await Promise.all((entry?.agents ?? []).map((agent) => agent.close().catch(() => undefined)));
    }
  }

  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.flatMap((e) => e.agents.map((agent) => agent.destroy().catch(() => undefined))));
  }
}
