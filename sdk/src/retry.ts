// Which requests may be sent again, and when. A retry is safe only where sending twice cannot do
// twice: reads, and writes that carry their own idempotency key that the service honours.
//   GET, HEAD                                         reads
//   POST /v1/pat/venue/{v}/order/{o}/payment          externalReference is the payment's key (a replay answers the same payment)
//   POST /v1/bc/bookings with an Idempotency-Key      the same key answers the same booking
//   POST /v3/CreateBooking with idempotency_token     Google's key, honoured the same way
// Nothing else is retried: not a POST /v1/rms/company, not a PUT, not a cancel.

export interface RetryOptions {
  /** Further attempts after the first (default 3). */
  retries: number;
  /** First backoff; doubled per attempt, with jitter (default 200 ms). */
  baseDelayMs: number;
  /** Longest backoff (default 5 s). */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the answer is returned as it is (default 60 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 3, baseDelayMs: 200, maxDelayMs: 5_000, maxRetryAfterMs: 60_000 };

/** Answers worth another attempt (the service did not do the work, or a gateway could not say). */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const PAYMENT = /^\/v1\/pat\/venue\/[^/]+\/order\/[^/]+\/payment\/?$/;

/** The retry rule above; `body` is read only for /v3/CreateBooking. */
export function isRetrySafe(method: string, path: string, headers: Headers, body: () => Promise<string>): boolean | Promise<boolean> {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') return true;
  if (m !== 'POST') return false;
  if (PAYMENT.test(path)) return true;
  if (path === '/v1/bc/bookings' || path === '/v1/bc/bookings/') return Boolean(headers.get('idempotency-key'));
  if (path === '/v3/CreateBooking') {
    return body().then((text) => {
      try {
        const token = (JSON.parse(text) as { idempotency_token?: unknown })?.idempotency_token;
        return typeof token === 'string' && token.length > 0;
      } catch {
        return false;
      }
    });
  }
  return false;
}

/** Exponential backoff with "equal jitter": between half and all of base * 2^attempt, capped. */
export function backoffMs(attempt: number, opts: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Retry-After as milliseconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Waits, or rejects as soon as the request is aborted. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * An error from the network (refused, reset, DNS…: fetch's TypeError, or a socket error code), as
 * opposed to an abort by the caller or a bug in a custom fetch.
 */
export function isNetworkError(err: unknown, signal?: AbortSignal | null): boolean {
  if (signal?.aborted || !(err instanceof Error)) return false;
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return false;
  const code = (err as { code?: unknown }).code;
  return err instanceof TypeError || (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_)/.test(code));
}
