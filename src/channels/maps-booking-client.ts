import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { Agent, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { systemClock, type Clock } from '../lib/clock.ts';
import { readWithin, rejectOnAbort } from '../lib/outbound-http.ts';
import { trustingContext } from '../lib/tls.ts';
import {
  ASSERTION_LIFETIME_S, JWT_BEARER_GRANT, MAPS_BOOKING_SCOPE, MAX_ANSWER_BYTES,
  bookingNotificationBody, readGoogleError, readOAuthError, readTokenAnswer, retryAfterMs, reuseUntil, serviceAvailabilityOf, updateMaskOf,
  type AvailabilityEntry, type BookingField, type BookingUpdate, type GoogleBooking, type GoogleServiceAvailability,
} from './maps-booking-client.fns.ts';

// Tableside's client of Google's Maps Booking API for one google-v3 channel (DESIGN 8.7b): booking
// notifications and availability replace. Calls carry an OAuth 2.0 access token obtained with the
// service account's RS256 JWT (RFC 7523 jwt-bearer grant at its token_uri, signed by `jose`),
// reused until shortly before it expires; a 401 gets a new token and one resend. Every call has a
// time limit, every answer is read up to 1 MiB (DESIGN 8.8e), and whatever goes wrong becomes a
// MapsBookingError whose `kind` tells the job what to do.

export type MapsBookingErrorKind =
  /** 429: retry after `retryAfterMs` (null when Google named no delay). */
  | 'rate_limited'
  /** 5xx: retry (`retryAfterMs` when Google named a delay). */
  | 'unavailable'
  /** No answer: refused, reset, DNS, TLS. */
  | 'network'
  | 'timeout'
  /** The token endpoint refused the service account, or a method answered 401 twice. */
  | 'unauthorized'
  /** Another 4xx: Google refused the request; `googleStatus` and `googleMessage` as it sent them. */
  | 'rejected'
  /** A success that is not the JSON expected, or an answer over 1 MiB. */
  | 'bad_answer';

export interface MapsBookingFailure {
  /** Google's HTTP status; absent when there was no answer. */
  status?: number;
  /** For rate_limited and unavailable: the wait Google asked for (Retry-After), null when none. */
  retryAfterMs?: number | null;
  /** Google's `error.status` (e.g. INVALID_ARGUMENT), or the token endpoint's `error`. */
  googleStatus?: string | null;
  /** Google's `error.message`, or the token endpoint's `error: error_description`. */
  googleMessage?: string | null;
}

export class MapsBookingError extends Error {
  readonly status: number | undefined;
  readonly retryAfterMs: number | null;
  readonly googleStatus: string | null;
  readonly googleMessage: string | null;

  constructor(
    readonly kind: MapsBookingErrorKind,
    message: string,
    failure: MapsBookingFailure = {},
  ) {
    super(message);
    this.name = 'MapsBookingError';
    this.status = failure.status;
    this.retryAfterMs = failure.retryAfterMs ?? null;
    this.googleStatus = failure.googleStatus ?? null;
    this.googleMessage = failure.googleMessage ?? null;
  }
}

/** A google-v3 channel's stored RTU configuration (the key file's fields Tableside keeps). */
export interface MapsBookingConfig {
  partnerId: string;
  /** Google's host by default; a local simulator in tests and the sandbox. */
  apiBase: string;
  serviceAccount: { clientEmail: string; privateKey: string; tokenUri: string };
}

export interface MapsBookingClientOptions {
  /** Whole-call limit, token requests included (default 10 s). */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** A PEM certificate to trust besides Node's (the in-process simulator of tests and the sandbox). */
  ca?: string;
  /** Token reuse and JWT times (tests move a ManualClock). */
  clock?: Clock;
}

interface Answer { status: number; headers: Dispatcher.ResponseData['headers']; body: unknown }
interface CachedToken { value: string; reuseUntilMs: number }

function parseJson(text: string): unknown {
  try {
    return text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class MapsBookingClient {
  private readonly dispatcher: Agent;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private key: KeyObject | undefined;
  private token: CachedToken | undefined;
  private pendingToken: Promise<string> | undefined;

  constructor(
    private readonly config: MapsBookingConfig,
    opts: MapsBookingClientOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    // One TLS context for the pool, built once (a `ca` per connection re-parses Node's roots each time).
    const secureContext = opts.ca ? trustingContext(opts.ca) : undefined;
    this.dispatcher = new Agent({
      connect: { timeout: opts.connectTimeoutMs ?? 2000, ...(secureContext ? { secureContext } : {}) },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 10_000,
      connections: 8,
    });
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  /** PATCH …/notification/partners/{partnerId}/bookings/{bookingId}?updateMask=…: Google's booking as it now holds it. */
  async notifyBooking(bookingId: string, update: BookingUpdate, updateMask: readonly BookingField[]): Promise<GoogleBooking> {
    const { partnerId, apiBase } = this.config;
    const mask = updateMaskOf(updateMask, update);
    const url = `${apiBase.replace(/\/+$/, '')}/v1alpha/notification/partners/${encodeURIComponent(partnerId)}/bookings/${encodeURIComponent(bookingId)}?updateMask=${encodeURIComponent(mask)}`;
    const body = await this.authorized('PATCH', url, 'booking notification', bookingNotificationBody(partnerId, bookingId, update));
    return body as GoogleBooking;
  }

  /** POST …/inventory/partners/{partnerId}/availability:replace with these entries, in one call (batch first). */
  async replaceAvailability(entries: readonly AvailabilityEntry[]): Promise<{ extendedServiceAvailability: GoogleServiceAvailability[] }> {
    const { partnerId, apiBase } = this.config;
    const url = `${apiBase.replace(/\/+$/, '')}/v1alpha/inventory/partners/${encodeURIComponent(partnerId)}/availability:replace`;
    const body = await this.authorized('POST', url, 'availability replace', { extendedServiceAvailability: entries.map(serviceAvailabilityOf) });
    return body as { extendedServiceAvailability: GoogleServiceAvailability[] };
  }

  /** One method call with the cached token; on a 401, a new token and one resend. */
  private async authorized(method: 'PATCH' | 'POST', url: string, what: string, payload: unknown): Promise<object> {
    const body = JSON.stringify(payload);
    const first = await this.accessToken();
    let res = await this.send(method, url, what, { authorization: `Bearer ${first}`, 'content-type': 'application/json' }, body);
    if (res.status === 401) {
      if (this.token?.value === first) this.token = undefined;
      const second = await this.accessToken();
      res = await this.send(method, url, what, { authorization: `Bearer ${second}`, 'content-type': 'application/json' }, body);
      if (res.status === 401) throw this.refusal('unauthorized', what, res, 'refused the access token twice (401)');
    }
    if (res.status >= 200 && res.status < 300) {
      if (res.body === null || typeof res.body !== 'object') throw new MapsBookingError('bad_answer', `${what}: Google answered ${res.status} without a JSON object`, { status: res.status });
      return res.body;
    }
    throw this.failureOf(what, res);
  }

  /** The cached token while it may be reused, else a new one (one request for concurrent callers). */
  private accessToken(): Promise<string> {
    if (this.token && this.clock.now().getTime() < this.token.reuseUntilMs) return Promise.resolve(this.token.value);
    this.pendingToken ??= this.fetchToken().finally(() => { this.pendingToken = undefined; });
    return this.pendingToken;
  }

  private async fetchToken(): Promise<string> {
    const { clientEmail, tokenUri } = this.config.serviceAccount;
    const obtainedAtMs = this.clock.now().getTime();
    const iat = Math.floor(obtainedAtMs / 1000);
    const assertion = await new SignJWT({ scope: MAPS_BOOKING_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(clientEmail)
      .setAudience(tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ASSERTION_LIFETIME_S)
      .sign(this.signingKey());
    const form = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString();
    const res = await this.send('POST', tokenUri, 'token request', { 'content-type': 'application/x-www-form-urlencoded' }, form);
    if (res.status === 200) {
      const answer = readTokenAnswer(res.body);
      if (!answer) throw new MapsBookingError('bad_answer', 'token request: the answer is not {access_token, expires_in, token_type: "Bearer"}', { status: 200 });
      this.token = { value: answer.accessToken, reuseUntilMs: reuseUntil(obtainedAtMs, answer.expiresInS) };
      return answer.accessToken;
    }
    if (res.status === 400 || res.status === 401 || res.status === 403) {
      const reason = readOAuthError(res.body) ?? `status ${res.status}`;
      const oauth = (res.body as { error?: unknown } | undefined)?.error;
      throw new MapsBookingError('unauthorized', `token request: Google refused the service account (${reason})`, {
        status: res.status, googleStatus: typeof oauth === 'string' ? oauth : null, googleMessage: reason,
      });
    }
    throw this.failureOf('token request', res);
  }

  private signingKey(): KeyObject {
    if (this.key) return this.key;
    let key: KeyObject;
    try {
      key = createPrivateKey(this.config.serviceAccount.privateKey);
    } catch {
      throw new MapsBookingError('unauthorized', "token request: the service account's private key is not a PEM private key");
    }
    if (key.asymmetricKeyType !== 'rsa') throw new MapsBookingError('unauthorized', "token request: the service account's private key is not an RSA key (RS256)");
    this.key = key;
    return key;
  }

  /** The MapsBookingError for a status that is neither a success nor a 401. */
  private failureOf(what: string, res: Answer): MapsBookingError {
    const retryAfter = retryAfterMs(res.headers['retry-after'], this.clock.now().getTime());
    if (res.status === 429) return this.refusal('rate_limited', what, res, 'asked to slow down (429)', retryAfter);
    if (res.status >= 500) return this.refusal('unavailable', what, res, `was unavailable (${res.status})`, retryAfter);
    if (res.status >= 400) return this.refusal('rejected', what, res, `refused the request (${res.status})`);
    return new MapsBookingError('bad_answer', `${what}: Google answered ${res.status}`, { status: res.status });
  }

  private refusal(kind: MapsBookingErrorKind, what: string, res: Answer, said: string, retryAfter: number | null = null): MapsBookingError {
    const google = readGoogleError(res.body);
    const detail = google.message !== null ? `: ${[google.status, google.message].filter(Boolean).join(' ')}` : '';
    return new MapsBookingError(kind, `${what}: Google ${said}${detail}`, {
      status: res.status, retryAfterMs: retryAfter, googleStatus: google.status, googleMessage: google.message,
    });
  }

  /** One HTTPS exchange within the time limit; a success over 1 MiB fails, an error status over it keeps its status. */
  private async send(method: 'PATCH' | 'POST', url: string, what: string, headers: Record<string, string>, body: string): Promise<Answer> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    let res: Dispatcher.ResponseData;
    let text: string | null;
    try {
      // undici heeds the signal only once a socket is assigned; the race keeps the limit whole through a stalled handshake.
      const pending = request(url, { method, dispatcher: this.dispatcher, headers: { accept: 'application/json', ...headers }, body, signal });
      res = await Promise.race([pending, rejectOnAbort(signal)]);
      text = await Promise.race([readWithin(res, MAX_ANSWER_BYTES), rejectOnAbort(signal)]);
    } catch (err) {
      throw transportError(err, what, this.timeoutMs);
    }
    if (text === null && res.statusCode >= 200 && res.statusCode < 300) {
      throw new MapsBookingError('bad_answer', `${what}: Google's answer is over ${MAX_ANSWER_BYTES} bytes; not read`, { status: res.statusCode });
    }
    return { status: res.statusCode, headers: res.headers, body: text === null ? undefined : parseJson(text) };
  }
}

function transportError(err: unknown, what: string, timeoutMs: number): MapsBookingError {
  if (err instanceof MapsBookingError) return err;
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new MapsBookingError('timeout', `${what}: Google did not answer within ${timeoutMs} ms`);
  }
  if (err instanceof undiciErrors.ConnectTimeoutError) return new MapsBookingError('timeout', `${what}: connecting to Google timed out`);
  const reason = [e.code ?? e.cause?.code, e.cause?.message ?? e.message].filter(Boolean).join(': ');
  return new MapsBookingError('network', `${what}: Google could not be reached (${reason})`);
}
