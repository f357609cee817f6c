// Time comes from a Clock so that deadlines (payment timeouts, token expiry, retention) are testable
// without sleeping: tests pass a ManualClock and move it.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  private ms: number;

  constructor(start: Date | string | number = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  set(at: Date | string | number): void {
    this.ms = new Date(at).getTime();
  }
}
