// Coalesces calls made in one turn of the event loop into one call over all their inputs: the jobs
// a runner claims together start in the same turn, and the answers of concurrent POSTs often arrive
// in the same turn, so a statement per job becomes a statement per batch (bench/webhooks.ts). Each
// caller gets its own result; when the batch call fails, every caller of that batch gets its error.
//
// `oneAtATime`: while a batch runs, the calls made meanwhile (in any turn) wait and go together as
// the next batch once it ends. For a statement whose batches would otherwise be as small as the
// turns are many (successes recorded as their POSTs' answers trickle in, one commit each): a caller
// waits at most one batch's statement longer, and the statements adapt to the load (issue 28).
//
// `gather`: a batch waits up to a few ms for more calls (or until it has its size), for callers
// that can wait: on a quiet host one statement's time is too short for oneAtATime to batch much.

export interface CoalescedOptions {
  oneAtATime?: boolean;
  /**
   * A batch waits for more calls: it goes once it holds `size` inputs, or `ms` after its first call,
   * whichever comes first (rather than at the end of its turn). For a statement whose callers can
   * wait a few ms and whose batches would otherwise be as small as the host is quiet.
   */
  gather?: { ms: number; size: number };
}

/** `run` answers one result per input, in the inputs' order. */
export function coalesced<I, R>(run: (inputs: I[]) => Promise<R[]>, maxBatch = 100, opts: CoalescedOptions = {}): (input: I) => Promise<R> {
  const { gather } = opts;
  let pending: Array<{ input: I; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  /** When the oldest pending call was made (gather's clock). */
  let firstAt = 0;
  let scheduled = false;
  let gatherTimer: ReturnType<typeof setTimeout> | null = null;
  let running = 0;
  const flush = () => {
    scheduled = false;
    if (gatherTimer) clearTimeout(gatherTimer);
    gatherTimer = null;
    const batch = pending;
    if (batch.length === 0) return;
    pending = [];
    running++;
    run(batch.map((p) => p.input))
      .then(
        (results) => batch.forEach((p, i) => p.resolve(results[i]!)),
        (err) => batch.forEach((p) => p.reject(err)),
      )
      .finally(() => {
        running--;
        // What waited for this batch goes now, in the next turn (with what that turn adds), or
        // once gathered.
        if (opts.oneAtATime && running === 0 && pending.length > 0) schedule();
      });
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    const wait = gather && pending.length < gather.size ? firstAt + gather.ms - performance.now() : 0;
    if (wait > 0) gatherTimer = setTimeout(flush, wait);
    else setImmediate(flush);
  };
  return (input) => new Promise<R>((resolve, reject) => {
    if (pending.length === 0) firstAt = performance.now();
    pending.push({ input, resolve, reject });
    if (pending.length >= maxBatch) {
      // A full batch goes now, whatever runs; the next call starts a new one (the scheduled flush
      // finds it empty or holding that next batch).
      flush();
    } else if (!(opts.oneAtATime && running > 0)) {
      // A gathered batch that has reached its size goes at the end of this turn.
      if (gather && gatherTimer && pending.length >= gather.size) {
        clearTimeout(gatherTimer);
        gatherTimer = null;
        scheduled = false;
      }
      schedule();
    }
  });
}
