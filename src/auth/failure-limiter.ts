import type { FailureThrottle, ThrottleStatus } from '../server/auth.ts';

// Failed authentications per client address in a sliding minute (DES-031). Past the limit, further
// failing attempts get 429 with Retry-After; requests with valid credentials are never limited, so
// a partner behind a shared address is not locked out by someone else's guessing.
//
// The count is per process: with several replicas the effective limit is the limit times the
// replicas (docs/decisions.md). A brute-force guess at a 256-bit secret is hopeless either way;
// this bounds the load a misbehaving client can put on credential lookups.

const WINDOW_MS = 60_000;

export class FailureLimiter implements FailureThrottle {
  private readonly failures = new Map<string, number[]>();
  private sweeps = 0;

  constructor(
    private readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds the address must wait, or 0 when it may still fail. */
  retryAfter(address: string): number {
    const { remaining, resetS } = this.status(address);
    return remaining > 0 ? 0 : resetS;
  }

  /** The limit, what the address may still fail, and when that rises (the RateLimit headers). */
  status(address: string): ThrottleStatus {
    const recent = this.recent(address);
    const resetS = recent.length === 0 ? 0 : Math.max(1, Math.ceil((recent[0] + WINDOW_MS - this.now()) / 1000));
    return { limit: this.limitPerMinute, windowS: WINDOW_MS / 1000, remaining: Math.max(0, this.limitPerMinute - recent.length), resetS };
  }

  record(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    if (recent.length > this.limitPerMinute) recent.splice(0, recent.length - this.limitPerMinute);
    this.failures.set(address, recent);
    if (++this.sweeps % 1000 === 0) this.sweep();
  }

  private recent(address: string): number[] {
    const cutoff = this.now() - WINDOW_MS;
    const list = (this.failures.get(address) ?? []).filter((t) => t > cutoff);
    if (list.length === 0) this.failures.delete(address);
    return list;
  }

  private sweep(): void {
    for (const address of [...this.failures.keys()]) this.recent(address);
  }
}
