// What Tableside's clients of untrusted HTTP services share (the POS, RMS and Google clients, the
// webhook sender): keeping a whole-call time limit whole, reading an answer no further than a cap,
// and telling what a call that got no answer ran into. Each client words its own error from it.
// undici is recognised by its documented error codes and shapes, so lib/ needs no import of it.

/**
 * A client's connect function (undici's connector), made at its first connection rather than with
 * the client: its TLS context costs tens of ms of CPU (lib/tls.ts), and a start makes clients it
 * does not call before its first request (a sandbox restart: its POS types' clients).
 */
export function connectorOnFirstUse<A extends unknown[]>(build: () => (...args: A) => void): (...args: A) => void {
  let connector: ((...args: A) => void) | undefined;
  return (...args) => (connector ??= build())(...args);
}

/**
 * A promise that rejects with the signal's reason once it aborts. undici acts on a request's
 * signal only once the request has a socket: a peer that accepts the connection and stalls the TLS
 * handshake would hold the call until the connect timeout. Racing the request against this keeps
 * the whole-call limit whole (undici drops the request when it does connect).
 */
export function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * A whole-call time limit whose timer is stopped once the call is done (`done`). AbortSignal.timeout
 * keeps its timer to the end whatever happens: a profile of the live bill under load (issue 28)
 * showed every finished call's timer firing seconds later, dispatching the abort and building a
 * DOMException with its stack trace, about 2% of the service's time. The reason is the same
 * TimeoutError DOMException AbortSignal.timeout gives, so `transportFailure` reads it the same way.
 *
 * The signal is a DeadlineSignal, not an AbortController's: Node's EventTarget made each call's
 * signal, and the listeners undici, `rejectOnAbort` and a body's `dump` add and remove on it, about
 * 5% of the webhook sender's CPU (bench/webhooks.ts backlog profile, issue 28). It is typed as an
 * AbortSignal for undici's options; only pass it where the signal is read through `aborted`,
 * `reason` and `addEventListener`/`removeEventListener('abort')` (undici's request and body, this
 * file): `fetch` and `AbortSignal.any` check the brand and would refuse it.
 */
export function callDeadline(ms: number): { signal: AbortSignal; done(): void } {
  const signal = new DeadlineSignal();
  const timer = setTimeout(() => signal.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  return { signal: signal as unknown as AbortSignal, done: () => clearTimeout(timer) };
}

/** The reading side of an AbortSignal over a plain list of 'abort' listeners (callDeadline says why). */
export class DeadlineSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: (() => void) | null = null;
  private listeners: Array<() => void> = [];

  addEventListener(type: string, listener: () => void): void {
    if (type === 'abort' && !this.aborted) this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type !== 'abort') return;
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Aborts once: every listener is called once (each was added `once`, as undici and rejectOnAbort add them). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    // As EventTarget does, a listener that throws is reported (uncaught) without stopping the others.
    for (const listener of [...(this.onabort ? [this.onabort] : []), ...listeners]) {
      try {
        listener();
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}

/** Why a call got no answer: a time limit passed, or the peer could not be reached. */
export type TransportFailure =
  /** `connecting`: the connect limit passed; otherwise the whole-call, headers or body limit. */
  | { kind: 'timeout'; connecting: boolean }
  /** `code`: the error's code (ECONNREFUSED, UND_ERR_SOCKET, …); `reason`: the code and the message. */
  | { kind: 'unreachable'; code: string | undefined; reason: string };

const ANSWER_TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** What an error thrown by an undici request (or by `rejectOnAbort` of its signal) means. */
export function transportFailure(err: unknown): TransportFailure {
  const e = (err ?? {}) as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || ANSWER_TIMEOUTS.has(e.code ?? '')) return { kind: 'timeout', connecting: false };
  if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'timeout', connecting: true };
  const code = e.code ?? e.cause?.code;
  const reason = [code, e.cause?.message ?? e.message].filter(Boolean).join(': ');
  return { kind: 'unreachable', code, reason };
}

/** DESIGN 8.8e: the most Tableside reads of one answer from an RMS or a POS (Google's is 1 MiB). */
export const MAX_PARTNER_ANSWER_BYTES = 8 * 1024 * 1024;

/** What `readWithin` needs of an answer (undici's `Dispatcher.ResponseData`). */
export interface StreamedAnswer {
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array> & { destroy(): unknown };
}

/**
 * The body as UTF-8 text when it fits in `cap` bytes; null when it does not. A Content-Length over
 * the cap is refused before reading; otherwise the bytes are counted as they arrive and the reading
 * stops at the cap. Either way the rest is never read (the stream, and its connection, are
 * destroyed), so an answer of any size costs at most `cap` bytes of memory.
 */
export async function readWithin(res: StreamedAnswer, cap: number): Promise<string | null> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > cap) {
    res.body.destroy();
    return null;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.length;
    if (size > cap) {
      res.body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// Failures that happen before a request is written: nothing reached the peer (DESIGN 8.8a).
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Errors of connections that never opened (TCP or TLS): no request was written on them. */
const failedToConnect = new WeakSet<object>();

/** A client's connector (undici's), noting which errors are its own: a request fails with them only before it is sent. */
export function markingConnectFailures<O, C>(connect: (options: O, callback: C) => void): (options: O, callback: C) => void {
  return (options, callback) => connect(options, ((...args: unknown[]) => {
    if (args[0] && typeof args[0] === 'object') failedToConnect.add(args[0]);
    (callback as (...a: unknown[]) => void)(...args);
  }) as C);
}

/**
 * Whether a request that failed with an unreachable peer (`failure`, of `err`) surely never reached
 * it: its connection or TLS handshake failed (the connector marked the error), or the error says so.
 */
export function neverSent(err: unknown, failure: Extract<TransportFailure, { kind: 'unreachable' }>): boolean {
  if (failedToConnect.has(err as object)) return true;
  if (failure.code && (NEVER_SENT_CODES.has(failure.code) || /^(ERR_TLS_|ERR_SSL_)|CERT|UNABLE_TO_VERIFY/.test(failure.code))) return true;
  // Node words a failure of the connect system call `connect ECONNRESET 127.0.0.1:443`.
  return /(^|: )connect E[A-Z]+\b|before secure TLS connection was established/.test(failure.reason);
}
