// Polls until a check neither throws nor returns false, so tests wait for a condition instead of a
// duration; answers what the check returned. Fails with the last error once `timeoutMs` (generous:
// the machine is shared) passes.

export async function eventually<T>(check: () => T | Promise<T>, opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== false) return value;
      last = new Error('condition still false');
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw last;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
}
