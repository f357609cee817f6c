// How much more memory a process held at its peak while something ran: sampled every few
// milliseconds (heap and off-heap buffers), so memory that was allocated and freed again during the
// call still counts. Used to show that a call does not read a huge answer whole (DESIGN 8.8e).

/** What the process has allocated: the JS heap plus memory outside it (Buffers, TLS). */
const allocated = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

export async function peakMemoryGrowth<T>(fn: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const base = allocated();
  let peak = base;
  const timer = setInterval(() => { peak = Math.max(peak, allocated()); }, 2);
  try {
    const result = await fn();
    peak = Math.max(peak, allocated());
    return { result, growth: peak - base };
  } finally {
    clearInterval(timer);
  }
}

export const MiB = 1024 * 1024;
