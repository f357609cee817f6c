import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import type { FailureThrottle, ThrottleStatus } from '../server/auth.ts';

// Failed authentications per client address in a sliding minute (DES-031), one limit for the whole
// fleet (issue 29): the counts live in PostgreSQL (migration 023), per address and second, so every
// replica reads the failures the others counted. Past the limit, further failing attempts get 429
// with Retry-After; requests with valid credentials are never limited, so a partner behind a
// shared address is not locked out by someone else's guessing.
//
// Cost: only a failure writes (one upsert). A failure first reads the address's minute (the 429
// decision is made on the fleet's count, not on a local guess), unless this process already knows
// the address is blocked. The RateLimit headers of a success read the local view, refreshed from
// the database at most once per VIEW_TTL_MS per address, so a valid credential costs at most one
// small indexed read a second per address and never a write.
//
// Tolerance (docs/decisions.md): sequential failures anywhere in the fleet count exactly; failures
// in flight at the same moment on different processes may each pass the check, so the limit can be
// overshot by the failing requests concurrent at the moment it is reached; a success's headers may
// lag the fleet by up to VIEW_TTL_MS; replicas' clocks are assumed NTP-close (seconds are keyed by
// each process's wall clock).

const WINDOW_S = 60;
const VIEW_TTL_MS = 1_000;
const PRUNE_EVERY_MS = 60_000;
/** Local views kept at most; past it the stale ones are dropped (they are re-read when needed). */
const MAX_VIEWS = 10_000;

interface View {
  readAt: number;
  /** Counted failures per second, oldest first, within the window when read. */
  seconds: Array<{ second: number; failures: number }>;
}

export class FailureLimiter implements FailureThrottle {
  private readonly views = new Map<string, View>();
  private lastPrune = 0;

  constructor(
    private readonly db: Executor,
    private readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds the address must wait, or 0 when it may still fail: the fleet's count, read now. */
  async retryAfter(address: string): Promise<number> {
    const known = this.views.get(address);
    // Blocked only eases with time, so a fresh local "blocked" needs no read.
    const view = known && this.fresh(known) && this.standing(known).remaining === 0 ? known : await this.read(address);
    const { remaining, resetS } = this.standing(view);
    return remaining > 0 ? 0 : resetS;
  }

  /** The limit, what the address may still fail, and when that rises (the RateLimit headers). */
  async status(address: string): Promise<ThrottleStatus> {
    const known = this.views.get(address);
    return this.standing(known && this.fresh(known) ? known : await this.read(address));
  }

  /** Counts one failed authentication of the address, for every process. */
  async record(address: string): Promise<void> {
    const now = this.now();
    const second = Math.floor(now / 1000);
    await sql`INSERT INTO auth_failures (address, second, failures) VALUES (${address}, ${second}, 1)
      ON CONFLICT (address, second) DO UPDATE SET failures = auth_failures.failures + 1`.execute(this.db);
    const view = this.views.get(address) ?? { readAt: now, seconds: [] };
    const last = view.seconds.at(-1);
    if (last?.second === second) last.failures++;
    else view.seconds.push({ second, failures: 1 });
    this.views.set(address, view);
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await sql`DELETE FROM auth_failures WHERE second <= ${second - WINDOW_S}`.execute(this.db);
    }
  }

  private fresh(view: View): boolean {
    return this.now() - view.readAt < VIEW_TTL_MS;
  }

  private async read(address: string): Promise<View> {
    const readAt = this.now();
    const { rows } = await sql<{ second: string | number; failures: number }>`SELECT second, failures FROM auth_failures
      WHERE address = ${address} AND second > ${Math.floor(readAt / 1000) - WINDOW_S} ORDER BY second`.execute(this.db);
    const view = { readAt, seconds: rows.map((r) => ({ second: Number(r.second), failures: Number(r.failures) })) };
    if (this.views.size >= MAX_VIEWS) this.dropStale();
    this.views.set(address, view);
    return view;
  }

  private standing(view: View): ThrottleStatus {
    const nowS = this.now() / 1000;
    const recent = view.seconds.filter((s) => s.second > Math.floor(nowS) - WINDOW_S);
    const counted = recent.reduce((n, s) => n + s.failures, 0);
    // The oldest counted second leaves the window WINDOW_S after it began.
    const resetS = recent.length === 0 ? 0 : Math.max(1, Math.ceil(recent[0].second + WINDOW_S - nowS));
    return { limit: this.limitPerMinute, windowS: WINDOW_S, remaining: Math.max(0, this.limitPerMinute - counted), resetS };
  }

  private dropStale(): void {
    for (const [address, view] of this.views) if (!this.fresh(view)) this.views.delete(address);
    if (this.views.size >= MAX_VIEWS) this.views.clear();
  }
}
