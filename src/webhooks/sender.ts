import { Agent, request, type Dispatcher } from 'undici';
import { callDeadline, rejectOnAbort } from '../lib/outbound-http.ts';
import { guardedLookup } from '../lib/outbound-url.ts';
import { trustingContext } from '../lib/tls.ts';

// One POST of a webhook to a partner's endpoint. The endpoint is untrusted: it may be slow, answer a
// huge body, redirect, reset or point its DNS at our own network. So: a whole-call limit (15 s), a
// connect limit, the outbound-URL guard at connect time (DNS rebinding), redirects never followed
// (a 3xx is a failed attempt), and at most a few KiB of the answer read. Never called inside a
// database transaction.

export const DELIVERY_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** How much of an endpoint's answer is read (for the log); the rest is discarded unread. */
export const RESPONSE_READ_CAP = 4096;

export interface SendResult {
  /** null: no HTTP answer (refused, reset, timed out, refused address). */
  status: number | null;
  retryAfter: string | null;
  durationMs: number;
  /** Why there was no answer, or the start of a non-2xx answer's body. */
  error: string | null;
}

export interface Sender {
  post(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

/** Reads at most `cap` bytes of a body, then drops the connection's remainder. */
async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= cap) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, cap).toString('utf8');
}

export function createSender(opts: { allowPrivate: boolean; timeoutMs?: number }): Sender {
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // Node's trust plus NODE_EXTRA_CA_CERTS as one TLS context for every connection: given `ca`, each
  // new connection would otherwise parse Node's ~150 root certificates again (the CPU profile of
  // bench/webhooks.ts put that first among the sender's costs). Made at the first delivery, not
  // with the sender: every operator command builds the services, and the context was 170 ms of
  // `tableside feeds export`'s start (a CPU profile, NODE_EXTRA_CA_CERTS the system's bundle).
  let agent: Agent | undefined;
  const dispatcher = () => {
    if (agent) return agent;
    const secureContext = process.env.NODE_EXTRA_CA_CERTS ? trustingContext() : undefined;
    return (agent = new Agent({
      connect: { timeout: CONNECT_TIMEOUT_MS, lookup: guardedLookup({ allowPrivate: opts.allowPrivate }), ...(secureContext ? { secureContext } : {}) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 10_000,
      connections: 16,
    }));
  };

  return {
    async post(url, headers, body) {
      const started = performance.now();
      // Stopped once the call is done (lib/outbound-http.ts callDeadline): AbortSignal.timeout kept
      // every delivery's timer for its whole 15 s, then fired it (issue 28).
      const deadline = callDeadline(timeoutMs);
      const { signal } = deadline;
      const done = (status: number | null, retryAfter: string | null, error: string | null): SendResult => ({
        status,
        retryAfter,
        error,
        durationMs: Math.round(performance.now() - started),
      });
      try {
        const pending = request(url, {
          method: 'POST',
          dispatcher: dispatcher(),
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Tableside-Webhooks/1' },
          body,
          signal,
        });
        // undici acts on the signal only once it has a socket; the race keeps the limit whole.
        const res = await Promise.race([pending, rejectOnAbort(signal)]);
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        const retryAfter = res.headers['retry-after'];
        // A 2xx's body is never used: it is read to its end (the connection goes back to the pool)
        // without being kept, at most the same few KiB (past them the connection is dropped); a
        // failure's start is kept for the log.
        const text = ok
          ? await res.body.dump({ limit: RESPONSE_READ_CAP, signal }).then(() => '', () => '')
          : await Promise.race([readCapped(res.body, RESPONSE_READ_CAP), rejectOnAbort(signal)]).catch(() => '');
        return done(res.statusCode, Array.isArray(retryAfter) ? retryAfter[0]! : (retryAfter ?? null), ok ? null : text.slice(0, 500) || null);
      } catch (err) {
        const e = err as Error & { code?: string; cause?: Error & { code?: string } };
        const reason = signal.aborted ? `no answer within ${timeoutMs / 1000} s` : (e.cause?.message ?? e.message ?? String(err));
        return done(null, null, reason.slice(0, 500));
      } finally {
        deadline.done();
      }
    },
    close: async () => agent?.close(),
  };
}
