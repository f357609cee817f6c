import type { ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { fieldProblems, newAjv } from '../lib/json-schema.ts';
import { lastAnswers } from '../lib/last-answers.ts';
import { nextReads } from '../lib/next-reads.ts';
import {
  callDeadline, connectorOnFirstUse, markingConnectFailures, MAX_PARTNER_ANSWER_BYTES, neverSent, readWithin, rejectOnAbort, transportFailure,
} from '../lib/outbound-http.ts';
import { trustingContext } from '../lib/tls.ts';
import type { PosType } from './pos-types.ts';
import {
  CreatedOrder, PosOrder, PosOrderHeads, PosPaymentState, PosOrders, PosTables, UnknownSkus,
  type PosOrderHead, type PosTable,
} from './pos.schemas.ts';

// The service's client of the POS partner contract (spec 4.6) and its payment extension (DESIGN
// 6.2), over HTTPS with the POS type's API key. The POS is untrusted: every call has connect and
// overall time limits, and every answer is checked against the contract before it is returned;
// anything else becomes a PosError saying what was wrong.

export type PosErrorKind = 'unreachable' | 'timeout' | 'status' | 'bad_json' | 'bad_shape';

export class PosError extends Error {
  constructor(
    readonly kind: PosErrorKind,
    message: string,
    readonly status?: number,
    /** The request surely never reached the POS (refused, DNS, TLS handshake, connect timeout): safe to send again. */
    readonly neverSent = false,
  ) {
    super(message);
    this.name = 'PosError';
  }
}

export interface CreateOrderItem {
  sku: string;
  quantity: number;
  notes?: string;
}

export interface CreateOrderInput {
  /** The service's own order id (spec 4.6 `id`). */
  id?: string;
  tables: string[];
  guestName?: string;
  guestEmail?: string;
  guestTelephone?: string;
  partySize?: number;
  /** Decimal, in the venue's currency; always sent, 0 when none. */
  prepayment: number;
  /** Seating time, already formatted 'Y-m-d H:i:s'. */
  date?: string;
  items?: CreateOrderItem[];
}

export type CreateOrderResult =
  | { ok: true; id: string; checkNumber: string }
  | { ok: false; error: string; unknownSkus: string[] };

/**
 * A create answered 2xx with a body that is not spec 4.6's `{id, checkNumber}` (empty, not JSON, no
 * checkNumber): the order exists all the same (DESIGN 8.8a), only its answer is unreadable.
 * `posOrderId` is the POS's id when the body carried one.
 */
export class PosCreatedUnread extends PosError {
  constructor(message: string, status: number, readonly posOrderId: string | null) {
    super('bad_shape', message, status);
    this.name = 'PosCreatedUnread';
  }
}

export interface ForwardPaymentInput {
  paymentId: string;
  type: 'full' | 'partial';
  amount: number;
  tip: number;
  currency: string | null;
  paymentMethod: string | null;
}

/** The POS's answer to a forwarded payment or a status poll. */
export type PosPaymentAnswer =
  | { status: 'confirmed' }
  | { status: 'pending' }
  | { status: 'failed'; failureCode: string };

export interface ListOrdersQuery {
  status?: 'open' | 'closed';
  from?: Date;
  until?: Date;
}

export interface PosAdapter {
  listTables(posVenueId: string): Promise<PosTable[]>;
  createOrder(posVenueId: string, input: CreateOrderInput): Promise<CreateOrderResult>;
  listOrders(posVenueId: string, query?: ListOrdersQuery): Promise<PosOrder[]>;
  /** null when the POS answers 404. */
  getOrder(posVenueId: string, posOrderId: string): Promise<PosOrder | null>;
  /** The open order whose tables include the table (DESIGN 6.2), or null. */
  openOrderForTable(posVenueId: string, posTableId: string): Promise<PosOrder | null>;
  /**
   * Every open order whose tables include the table, in the POS's order. Only those are checked in
   * full (PosOrder); of the others only the id, status and tables (PosOrderHead).
   */
  openOrdersForTable(posVenueId: string, posTableId: string): Promise<PosOrder[]>;
  forwardPayment(posVenueId: string, posOrderId: string, input: ForwardPaymentInput): Promise<PosPaymentAnswer>;
  paymentStatus(posVenueId: string, posOrderId: string, paymentId: string): Promise<PosPaymentAnswer>;
}

const ajv = newAjv(false, { validateSchema: false }); // our own schemas: test/pos/pos-schemas.test.ts checks them
const compiled = new WeakMap<TSchema, ValidateFunction>();

function check<T>(schema: TSchema, value: unknown, what: string): T {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema as object);
    compiled.set(schema, validate);
  }
  if (!validate(value)) {
    const problems = fieldProblems(validate.errors ?? []);
    const [field, list] = Object.entries(problems)[0] ?? ['body', ['is invalid']];
    throw new PosError('bad_shape', `${what}: ${field === 'body' ? 'the answer' : field} ${list[0]}`);
  }
  return value as T;
}

export interface PosClientOptions {
  /** Whole-call limit (POS_TIMEOUT_MS). */
  timeoutMs: number;
  connectTimeoutMs?: number;
}

const enc = encodeURIComponent;
const isSuccess = (status: number | undefined) => status !== undefined && status >= 200 && status <= 299;

export class PosClient implements PosAdapter {
  private readonly dispatcher: Dispatcher;
  /** By POS venue id: the open-order list reads for live bills, each shared by the bills that asked before it was sent (openList). */
  private readonly openLists = nextReads((posVenueId: string) => this.readOpenList(posVenueId));
  // Each venue's last open-order list as the POS sent it, parsed and checked: the same bytes again
  // are that list (lib/last-answers.ts; the parse was ~7% of a live bill's time, issue 28).
  private readonly openListAnswers = lastAnswers<unknown>(64);
  private readonly checkedLists = new WeakSet<object>();
  // The orders of those lists that a bill has checked in full (PosOrder): the next bill of the same
  // answer finds the same object, already checked (a check per bill was ~1% of a live bill's CPU).
  // Only an order that passed is kept: a malformed one is refused again by every bill that finds it.
  private readonly checkedOrders = new WeakSet<object>();

  constructor(
    private readonly type: Pick<PosType, 'code' | 'baseUrl' | 'apiKey' | 'ca'>,
    private readonly opts: PosClientOptions,
  ) {
    // One keep-alive pool per POS type (its base URL). A POS with its own CA gets one TLS context:
    // given `ca`, every new connection parsed Node's ~140 root certificates again (a profile of the
    // payment bench: about 30 ms of CPU per connection). Made at the first connection: a sandbox
    // restart makes the clients of its venues' POS types and calls none of them (the context was
    // 0.1-0.27 s of that restart's profile).
    this.dispatcher = new Agent({
      connect: markingConnectFailures(connectorOnFirstUse<Parameters<buildConnector.connector>>(() =>
        buildConnector({ timeout: opts.connectTimeoutMs ?? 2000, ...(type.ca ? { secureContext: trustingContext(type.ca) } : {}) }))),
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      keepAliveTimeout: 10_000,
      connections: 32,
    });
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    opts: { query?: Record<string, string>; body?: unknown; timeoutMs?: number; parse?: (text: string) => unknown } = {},
  ): Promise<{ status: number; body: unknown }> {
    const url = new URL(this.type.baseUrl + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const what = `${method} ${path}`;
    const timeoutMs = opts.timeoutMs ?? this.opts.timeoutMs;
    const deadline = callDeadline(timeoutMs);
    try {
      return await this.send(method, url, what, timeoutMs, deadline.signal, opts.body, opts.parse);
    } finally {
      deadline.done();
    }
  }

  /** One call within `signal`'s limit: the request, its answer read within the cap, parsed as JSON. */
  private async send(method: 'GET' | 'POST', url: URL, what: string, timeoutMs: number, signal: AbortSignal, requestBody: unknown, parse = JSON.parse): Promise<{ status: number; body: unknown }> {
    let res: Dispatcher.ResponseData;
    try {
      // The race keeps the whole-call limit whole while a TLS handshake stalls (rejectOnAbort).
      const pending = request(url, {
        method,
        dispatcher: this.dispatcher,
        headers: {
          authorization: `Bearer ${this.type.apiKey}`,
          accept: 'application/json',
          ...(requestBody !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: requestBody !== undefined ? JSON.stringify(requestBody) : undefined,
        signal,
      });
      res = await Promise.race([pending, rejectOnAbort(signal)]);
    } catch (err) {
      throw this.transportError(err, what, timeoutMs);
    }
    let text: string | null;
    try {
      // Never more than 8 MiB of an answer (DESIGN 8.8e): the POS is untrusted and the process shared.
      text = await readWithin(res, MAX_PARTNER_ANSWER_BYTES);
    } catch (err) {
      throw this.transportError(err, what, timeoutMs);
    }
    // Unreadable, like a body that is not JSON: what a caller does with a bad body holds for it too.
    if (text === null) throw new PosError('bad_json', `${what}: the POS answered ${res.statusCode} with a body over ${MAX_PARTNER_ANSWER_BYTES} bytes; not read`, res.statusCode);
    let body: unknown = undefined;
    if (text.trim() !== '') {
      try {
        body = parse(text);
      } catch {
        // A success must be JSON. An error status with an HTML or text page (a proxy's 502, a
        // gateway's 504) is still that status: the caller maps it, with no body.
        if (res.statusCode >= 200 && res.statusCode <= 299) {
          throw new PosError('bad_json', `${what}: the POS answered ${res.statusCode} with a body that is not JSON`, res.statusCode);
        }
      }
    }
    return { status: res.statusCode, body };
  }

  private transportError(err: unknown, what: string, timeoutMs: number): PosError {
    const failure = transportFailure(err);
    if (failure.kind === 'unreachable') {
      const unsent = neverSent(err, failure);
      return new PosError('unreachable', `${what}: the POS could not be reached (${failure.code ?? failure.reason})`, undefined, unsent);
    }
    if (failure.connecting) return new PosError('timeout', `${what}: connecting to the POS timed out`, undefined, true);
    return new PosError('timeout', `${what}: the POS did not answer within ${timeoutMs} ms`);
  }

  private unexpected(what: string, status: number, body: unknown): PosError {
    const detail = body && typeof body === 'object' && 'error' in body ? `: ${String((body as { error: unknown }).error).slice(0, 200)}` : '';
    return new PosError('status', `${what}: the POS answered ${status}${detail}`, status);
  }

  async listTables(posVenueId: string): Promise<PosTable[]> {
    const path = `/venue/${enc(posVenueId)}/tables`;
    const res = await this.call('GET', path);
    if (res.status !== 200) throw this.unexpected(`GET ${path}`, res.status, res.body);
    const tables = check<PosTable[]>(PosTables, res.body, `GET ${path}`);
    const seen = new Set<string>();
    for (const t of tables) {
      if (seen.has(t.id)) throw new PosError('bad_shape', `GET ${path}: table id ${t.id} is listed twice`);
      seen.add(t.id);
    }
    return tables;
  }

  async createOrder(posVenueId: string, input: CreateOrderInput): Promise<CreateOrderResult> {
    const path = `/venue/${enc(posVenueId)}/orders`;
    // spec 4.6: tables (never the deprecated tableId), prepayment always, items only when there are some.
    const body: Record<string, unknown> = { tables: input.tables, prepayment: input.prepayment };
    for (const key of ['id', 'guestName', 'guestEmail', 'guestTelephone', 'partySize', 'date'] as const) {
      if (input[key] !== undefined) body[key] = input[key];
    }
    if (input.items && input.items.length > 0) {
      body.items = input.items.map((i) => (i.notes ? { sku: i.sku, quantity: i.quantity, notes: i.notes } : { sku: i.sku, quantity: i.quantity }));
    }
    let res: { status: number; body: unknown };
    try {
      res = await this.call('POST', path, { body });
    } catch (err) {
      if (err instanceof PosError && err.kind === 'bad_json' && isSuccess(err.status)) throw new PosCreatedUnread(err.message, err.status!, null);
      throw err;
    }
    if (res.status === 422 && res.body && typeof res.body === 'object' && 'unknownSkus' in res.body) {
      const answer = check<{ error: string; unknownSkus: string[] }>(UnknownSkus, res.body, `POST ${path}`);
      return { ok: false, error: answer.error, unknownSkus: answer.unknownSkus };
    }
    if (!isSuccess(res.status)) throw this.unexpected(`POST ${path}`, res.status, res.body);
    try {
      const created = check<{ id: string; checkNumber: string }>(CreatedOrder, res.body, `POST ${path}`);
      return { ok: true, id: created.id, checkNumber: created.checkNumber };
    } catch (err) {
      if (!(err instanceof PosError)) throw err;
      const said = res.body && typeof res.body === 'object' ? (res.body as { id?: unknown }).id : undefined;
      const id = typeof said === 'string' && said !== '' && said.length <= 200 ? said : null;
      throw new PosCreatedUnread(`${err.message} (answered ${res.status})`, res.status, id);
    }
  }

  async listOrders(posVenueId: string, query: ListOrdersQuery = {}): Promise<PosOrder[]> {
    const path = `/venue/${enc(posVenueId)}/orders`;
    const q: Record<string, string> = {};
    if (query.status) q.status = query.status;
    if (query.from) q.from = query.from.toISOString();
    if (query.until) q.until = query.until.toISOString();
    const res = await this.call('GET', path, { query: q });
    if (res.status !== 200) throw this.unexpected(`GET ${path}`, res.status, res.body);
    return check<PosOrder[]>(PosOrders, res.body, `GET ${path}`);
  }

  async getOrder(posVenueId: string, posOrderId: string): Promise<PosOrder | null> {
    const path = `/venue/${enc(posVenueId)}/orders/${enc(posOrderId)}`;
    const res = await this.call('GET', path);
    if (res.status === 404) return null;
    if (res.status !== 200) throw this.unexpected(`GET ${path}`, res.status, res.body);
    return check<PosOrder>(PosOrder, res.body, `GET ${path}`);
  }

  async openOrderForTable(posVenueId: string, posTableId: string): Promise<PosOrder | null> {
    return (await this.openOrdersForTable(posVenueId, posTableId))[0] ?? null;
  }

  async openOrdersForTable(posVenueId: string, posTableId: string): Promise<PosOrder[]> {
    const heads = await this.openList(posVenueId);
    const path = `/venue/${enc(posVenueId)}/orders`;
    const found: PosOrder[] = [];
    heads.forEach((o, i) => {
      if (o.status !== 'open' || !o.tables.includes(posTableId)) return;
      if (!this.checkedOrders.has(o)) {
        check<PosOrder>(PosOrder, o, `GET ${path} [${i}]`);
        this.checkedOrders.add(o);
      }
      found.push(o as PosOrder);
    });
    return found;
  }

  /**
   * The venue's open-order list, read after the caller asked for it and shared by the callers that
   * asked before it was sent (lib/next-reads.ts; issue 28: the contract has no per-table read, so
   * each live bill read and parsed the venue's whole list). A read already sent is never joined, so
   * no bill misses an order opened just before it asked (BILL-25: live at request time). Each caller
   * gets the read's answer or error as if it had sent it, within its own whole-call limit from the
   * moment it asked (POS_TIMEOUT_MS). A GET changes nothing: a late answer costs only that answer.
   */
  private openList(posVenueId: string): Promise<PosOrderHead[]> {
    return this.within(this.openLists(posVenueId), `GET /venue/${enc(posVenueId)}/orders`);
  }

  private async readOpenList(posVenueId: string): Promise<PosOrderHead[]> {
    const path = `/venue/${enc(posVenueId)}/orders`;
    const res = await this.call('GET', path, { query: { status: 'open' }, parse: (text) => this.openListAnswers(posVenueId, text, JSON.parse) });
    if (res.status !== 200) throw this.unexpected(`GET ${path}`, res.status, res.body);
    if (this.checkedLists.has(res.body as object)) return res.body as PosOrderHead[];
    const heads = check<PosOrderHead[]>(PosOrderHeads, res.body, `GET ${path}`);
    this.checkedLists.add(heads);
    return heads;
  }

  /** `answer` within the whole-call limit counted from now: the same timeout error a call of its own would give. */
  private async within<T>(answer: Promise<T>, what: string): Promise<T> {
    const deadline = callDeadline(this.opts.timeoutMs);
    try {
      return await Promise.race([answer, rejectOnAbort(deadline.signal)]);
    } catch (err) {
      throw err === deadline.signal.reason ? this.transportError(err, what, this.opts.timeoutMs) : err;
    } finally {
      deadline.done();
    }
  }

  private paymentAnswer(what: string, status: number, body: unknown, allowed: number[]): PosPaymentAnswer {
    if (!allowed.includes(status)) throw this.unexpected(what, status, body);
    const state = check<PosPaymentState>(PosPaymentState, body, what);
    if (state.status === 'failed') {
      if (!state.failureCode) throw new PosError('bad_shape', `${what}: a failed payment must carry a failureCode`);
      return { status: 'failed', failureCode: state.failureCode };
    }
    return { status: state.status };
  }

  async forwardPayment(posVenueId: string, posOrderId: string, input: ForwardPaymentInput): Promise<PosPaymentAnswer> {
    const path = `/venue/${enc(posVenueId)}/orders/${enc(posOrderId)}/payments`;
    const res = await this.call('POST', path, { body: input });
    const answer = this.paymentAnswer(`POST ${path}`, res.status, res.body, [200, 202, 409, 422]);
    // The status must agree with the code: 200 confirmed, 202 pending, 409/422 failed.
    const expected = res.status === 200 ? 'confirmed' : res.status === 202 ? 'pending' : 'failed';
    if (answer.status !== expected) {
      throw new PosError('bad_shape', `POST ${path}: status "${answer.status}" does not match HTTP ${res.status}`, res.status);
    }
    return answer;
  }

  async paymentStatus(posVenueId: string, posOrderId: string, paymentId: string): Promise<PosPaymentAnswer> {
    const path = `/venue/${enc(posVenueId)}/orders/${enc(posOrderId)}/payments/${enc(paymentId)}`;
    const res = await this.call('GET', path);
    return this.paymentAnswer(`GET ${path}`, res.status, res.body, [200]);
  }
}
