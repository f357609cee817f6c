// Waiting for something that happens on its own (another process, a real-time POS delay, a log
// stream) without a fixed sleep and without a bound on how fast it must happen: `eventually(check)`
// calls `check` until it passes, then returns what it returned. `check` passes when it neither
// throws (an `expect` in it failing counts as not yet) nor returns `false`. Past `timeoutMs` (a
// generous bound for a loaded machine, not a latency assertion) the last failure is thrown.

export interface EventuallyOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Pause between checks (default 25 ms). */
  intervalMs?: number;
  /** What is awaited, for the timeout message. */
  what?: string;
}

export async function eventually<T>(check: () => T | Promise<T>, opts: EventuallyOptions = {}): Promise<Exclude<T, false>> {
  const { timeoutMs = 30_000, intervalMs = 25, what = 'the condition' } = opts;
  const until = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await check();
      if (value !== false) return value as Exclude<T, false>;
      last = null;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) {
      if (last instanceof Error) {
        last.message = `eventually: ${what} did not happen within ${timeoutMs} ms; last failure: ${last.message}`;
        throw last;
      }
      throw new Error(`eventually: ${what} did not happen within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
