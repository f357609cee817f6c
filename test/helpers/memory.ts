// How much more memory a process held at its peak while something ran: sampled every few
// milliseconds (heap and off-heap buffers), so memory that was allocated and freed again during the
// call still counts. Used to show that a call does not read a huge answer whole (DESIGN 8.8e), with
// a simulator's oversized-answer knob (`oversizedCall`).

import { expect } from 'vitest';
import type { OversizedAnswer, OversizedInput, OversizedView } from '../../pos-simulator/src/oversized.ts';
import { eventually } from './eventually.ts';

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

/** The oversized-answer knob of the POS or RMS simulator's control client. */
export interface OversizedControl {
  setOversized(input: OversizedInput | null): Promise<OversizedView>;
  oversized(): Promise<OversizedView>;
}

/**
 * Makes `call` against a simulator answering one oversized body: what it threw (null if nothing),
 * the process's peak memory growth meanwhile, and the simulator's account of the answer once its
 * connection ended (how much it streamed).
 */
export async function oversizedCall(control: OversizedControl, call: () => Promise<unknown>, knob: { bytes: number; chunked: boolean }) {
  await control.setOversized({ ...knob, count: 1 });
  const { result: err, growth } = await peakMemoryGrowth(() => call().then(() => null, (e: unknown) => e));
  const answer: OversizedAnswer = await eventually(async () => {
    const { answers } = await control.oversized();
    const last = answers[answers.length - 1];
    expect(last?.ended).toBe(true);
    return last!;
  }, { what: 'the oversized answer ended' });
  return { err, growth, answer };
}
