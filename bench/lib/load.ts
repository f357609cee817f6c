import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';

// A closed-loop load generator: `concurrency` workers each send the next request as soon as their
// previous one completed, until `total` requests are done. Latency is measured from send to the
// last byte of the body. Used with a baseline measured the same way in the same run.

export interface Stats {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
}

export interface LoadRequest {
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** Status codes counted as success (default 200). */
  ok?: number[];
}

export async function load(
  dispatcher: Dispatcher,
  origin: string,
  /** The i-th request; several requests are sent one after the other and timed as one. */
  next: (i: number) => LoadRequest | LoadRequest[],
  total: number,
  concurrency: number,
): Promise<Stats> {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  const worker = async () => {
    while (issued < total) {
      const i = issued++;
      const sequence = next(i);
      const t0 = performance.now();
      for (const r of Array.isArray(sequence) ? sequence : [sequence]) {
        const res = await request(origin + r.path, {
          dispatcher,
          method: r.method ?? 'GET',
          body: r.body,
          headers: { ...(r.body ? { 'content-type': 'application/json' } : {}), ...(r.headers ?? {}) },
        });
        const text = await res.body.text();
        if (!(r.ok ?? [200]).includes(res.statusCode)) throw new Error(`${r.method ?? 'GET'} ${r.path} → ${res.statusCode}: ${text.slice(0, 300)}`);
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    requests: total,
    rps: (total / elapsed) * 1000,
    p50: at(0.5),
    p99: at(0.99),
    mean: latencies.reduce((s, x) => s + x, 0) / latencies.length,
  };
}

export const fmt = (s: Stats) => `${s.rps.toFixed(0).padStart(6)} req/s  p50 ${s.p50.toFixed(2).padStart(7)} ms  p99 ${s.p99.toFixed(2).padStart(7)} ms`;
