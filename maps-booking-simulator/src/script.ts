// Scripted answers: the next N calls of one operation answer as told (a status with Google's error
// body or another, a hang, a slow answer, an oversized body) instead of the real behaviour. Taken in
// the order they were scripted; each is used up by the calls it covers.

export const OPERATIONS = ['token', 'notifyBooking', 'replaceAvailability'] as const;
export type Operation = (typeof OPERATIONS)[number];

export type ScriptedAnswer =
  /** This status; `body` defaults to Google's error JSON for it; `retryAfter` sets the Retry-After header. */
  | { kind: 'status'; status: number; body?: unknown; retryAfter?: string }
  /** No answer at all; the connection is dropped when the simulator closes. */
  | { kind: 'hang' }
  /** The real answer, after this delay. */
  | { kind: 'slow'; delayMs: number }
  /** 200 with a JSON body of this many bytes, streamed (never held whole in memory). */
  | { kind: 'oversized'; bytes: number };

export interface ScriptEntry { operation: Operation; answer: ScriptedAnswer; remaining: number }

export class Script {
  private entries: ScriptEntry[] = [];

  add(operation: Operation, answer: ScriptedAnswer, count = 1): ScriptEntry[] {
    this.entries.push({ operation, answer, remaining: count });
    return this.list();
  }

  /** The answer scripted for this call of `operation`, used up; null when the call is answered for real. */
  take(operation: Operation): ScriptedAnswer | null {
    const entry = this.entries.find((e) => e.operation === operation);
    if (!entry) return null;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.entries = this.entries.filter((e) => e !== entry);
    return entry.answer;
  }

  list(): ScriptEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
  }
}
