// Coalesces calls made in one turn of the event loop into one call over all their inputs: the jobs
// a runner claims together start in the same turn, and the answers of concurrent POSTs often arrive
// in the same turn, so a statement per job becomes a statement per batch (bench/webhooks.ts). Each
// caller gets its own result; when the batch call fails, every caller of that batch gets its error.

/** `run` answers one result per input, in the inputs' order. */
export function coalesced<I, R>(run: (inputs: I[]) => Promise<R[]>, maxBatch = 100): (input: I) => Promise<R> {
  let pending: Array<{ input: I; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  const flush = () => {
    const batch = pending;
    if (batch.length === 0) return;
    pending = [];
    run(batch.map((p) => p.input)).then(
      (results) => batch.forEach((p, i) => p.resolve(results[i]!)),
      (err) => batch.forEach((p) => p.reject(err)),
    );
  };
  return (input) => new Promise<R>((resolve, reject) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push({ input, resolve, reject });
    if (pending.length >= maxBatch) {
      // A full batch goes now; the next call starts a new one (the scheduled flush finds it empty
      // or holding that next batch).
      flush();
    }
  });
}
