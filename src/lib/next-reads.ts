// Reads shared by the callers that asked for them before they were sent, never by a caller that
// asks once one is sent (the live bill's open-order list, issue 28). A read already sent may be
// answered from what the other side held before the caller asked, so a caller that joined it
// could miss a change made just before it asked; sharing only the read not sent yet keeps every
// answer at least as fresh as the moment its caller asked. Per key: a caller that finds no read in
// flight shares the read sent at the end of the current turn of the event loop; one that finds a
// read in flight waits for it to settle and shares the next one, sent then for every caller
// waiting. Every caller of one read gets its answer or its error.

interface KeyReads<T> {
  inFlight: boolean;
  unsent: { answer: Promise<T>; start(): void } | null;
}

/** `read(key)`, shared as above; a key's state is dropped once no read of it is in flight or waiting. */
export function nextReads<K, T>(read: (key: K) => Promise<T>): (key: K) => Promise<T> {
  const byKey = new Map<K, KeyReads<T>>();
  const send = (key: K, reads: KeyReads<T>): void => {
    const next = reads.unsent!;
    reads.unsent = null;
    reads.inFlight = true;
    next.start();
    const settled = () => {
      reads.inFlight = false;
      if (reads.unsent) setImmediate(() => send(key, reads));
      else byKey.delete(key);
    };
    next.answer.then(settled, settled);
  };
  return (key) => {
    let reads = byKey.get(key);
    if (!reads) {
      reads = { inFlight: false, unsent: null };
      byKey.set(key, reads);
    }
    if (!reads.unsent) {
      let start!: () => void;
      const answer = new Promise<T>((resolve) => (start = () => resolve(read(key))));
      reads.unsent = { answer, start };
      // Sent at the end of this turn, so callers of the same turn share it; while a read is in
      // flight, once it has settled (send's `settled`).
      const owner = reads;
      if (!owner.inFlight) setImmediate(() => send(key, owner));
    }
    return reads.unsent.answer;
  };
}
