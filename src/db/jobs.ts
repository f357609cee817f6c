import { hostname } from 'node:os';
import { sql, type RawBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { Db, Executor } from './db.ts';
import { claimed, type JobFence, type NewClaim } from './job-claims.ts';

// Durable jobs and timers in the database (DESIGN 3): payment deadlines, POS dispatch, order sync,
// webhook delivery. A job is a row; every process polls for due rows and claims them with
// FOR UPDATE SKIP LOCKED, so among live processes each job runs once. A claim is a lease: if the
// process dies mid-run, the lease expires and another process runs the job again. Handlers whose
// effects are all in the database finish through `ctx.transaction`, which commits their effects
// together with the job's removal, fenced on the lease, so those effects happen exactly once.

const NOTIFY_CHANNEL = 'tableside_jobs';

export interface Job<P = Record<string, unknown>> {
  id: string;
  kind: string;
  dedupeKey: string | null;
  payload: P;
  runAt: Date;
  attempts: number;
}

export interface JobContext {
  /**
   * Runs fn in a transaction that also removes the job; both commit or neither does. If another
   * process has taken the job over meanwhile (lease expired), it throws and fn's work is rolled back.
   */
  transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /**
   * This run's claim on the job, for a handler that removes the job in its own statement (one round
   * trip instead of two): `endClaimedJobCte(…, fence, …)`, then `finished()` if that removed it.
   */
  readonly fence: JobFence;
  /** The handler's own statement removed the job (fenced): the runner does not remove it again. */
  finished(): void;
  /**
   * Extends this run's claim by the kind's lease from now (the database's clock), for a handler
   * whose work may outlast one lease; false when the claim was taken over meanwhile, and then the
   * handler must stop before it acts again (another process runs the job).
   */
  renewLease(): Promise<boolean>;
  /**
   * The claim a handler writes new jobs of `kind` with when it means to run them itself at once
   * (`runClaimed`) rather than leave them to any process's poll: held by this process, leased from
   * the statement's `now()` by the kind's lease, claim counter 1 (`claimedJobColumns`). If this
   * process dies before they end, the lease expires and any process claims them as usual.
   */
  claimFor(kind: string): NewClaim;
  /**
   * Runs a job this run wrote claimed (`claimFor`, claim 1) as the runner runs a job it claimed:
   * counted in flight (past the runner's concurrency for a while, since the room was measured
   * before the claim of the job that starts it), its end or retry fenced on that claim, a throw
   * retried with backoff. `run`
   * replaces the kind's handler for this run only (a handler that already holds what the job would
   * read); it must behave as the kind's handler does.
   */
  runClaimed(job: Omit<Job, 'attempts'>, run?: JobDefinition['run']): void;
}

export type JobResult = void | { retryAt: Date };

export interface JobDefinition<P = Record<string, unknown>> {
  run(job: Job<P>, ctx: JobContext): Promise<JobResult>;
  /**
   * How long a claim lasts before another process may run the job again (default 60 s), measured on
   * the database's clock, so two hosts whose clocks disagree never hold one job at once.
   */
  leaseMs?: number;
}

export interface ScheduleJob {
  kind: string;
  runAt: Date;
  payload?: Record<string, unknown>;
  /** At most one job per key; scheduling an existing key changes nothing. */
  dedupeKey?: string;
}

/** Schedules a job in the caller's transaction, so it exists exactly when the caller's change commits. */
export async function scheduleJob(ex: Executor, job: ScheduleJob, now: Date): Promise<void> {
  await sql`WITH ${scheduledJob(job, now)}`.execute(ex);
}

/**
 * The tail of a `WITH` statement that schedules a job: its INSERT as a CTE, then the wake-up
 * NOTIFY, so a caller writes its own rows, the job and the hint in one round trip (outbox emit).
 * The NOTIFY is a hint only: a process that misses it finds the job on its next poll. A key that
 * already has a job inserts nothing and notifies nothing (that job's own hint went out with it).
 */
export function scheduledJob(job: ScheduleJob, now: Date): RawBuilder<unknown> {
  return sql`${jobCte('scheduled_job', job, now)} SELECT ${notifyJobs('scheduled_job')}`;
}

/**
 * A job's INSERT as a CTE named `name` (RETURNING its kind), for a statement that writes other rows
 * too. With `from` (the name of an earlier CTE), the job is written only if that CTE returned a row:
 * an event's job exists only with its event. Pair it with `notifyJobs(name)` in the statement's
 * outer SELECT, since a CTE that only reads runs only when the outer query reads it.
 */
export function jobCte(name: string, job: ScheduleJob, now: Date, from?: string): RawBuilder<unknown> {
  const values = sql`${uuidv7()}::uuid, ${job.kind}::text, ${job.dedupeKey ?? null}::text, ${JSON.stringify(job.payload ?? {})}::jsonb,
              ${job.runAt}::timestamptz, ${now}::timestamptz`;
  return sql`
    ${sql.raw(name)} AS (
      INSERT INTO jobs (id, kind, dedupe_key, payload, run_at, created_at)
      ${from ? sql`SELECT ${values} FROM (SELECT 1 FROM ${sql.raw(from)} LIMIT 1) AS gate` : sql`VALUES (${values})`}
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING kind)`;
}

/** The wake-up NOTIFY for the jobs a `jobCte(name, …)` wrote, as an expression (0 or 1 rows notified). */
export function notifyJobs(name: string): RawBuilder<unknown> {
  return sql`(SELECT count(pg_notify(${NOTIFY_CHANNEL}, kind)) FROM ${sql.raw(name)})`;
}

/** Makes a scheduled job due now (if it is later); false when no job has that key. */
export async function runJobNow(ex: Executor, dedupeKey: string, now: Date): Promise<boolean> {
  const result = await sql`UPDATE jobs SET run_at = least(run_at, ${now}) WHERE dedupe_key = ${dedupeKey}`.execute(ex);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/**
 * Makes a scheduled job due no earlier than `runAt`; a job running now (leased) is left to its run,
 * which schedules its own next one.
 */
export async function postponeJob(ex: Executor, dedupeKey: string, runAt: Date): Promise<void> {
  await sql`UPDATE jobs SET run_at = greatest(run_at, ${runAt})
            WHERE dedupe_key = ${dedupeKey} AND (locked_until IS NULL OR locked_until <= now())`.execute(ex);
}

/** Removes the jobs with these keys (one statement, whatever their number). */
export async function cancelJob(ex: Executor, ...dedupeKeys: string[]): Promise<void> {
  await sql`DELETE FROM jobs WHERE dedupe_key = ANY(${dedupeKeys}::text[])`.execute(ex);
}

interface JobRow {
  id: string;
  kind: string;
  dedupe_key: string | null;
  payload: Record<string, unknown>;
  run_at: Date;
  attempts: number;
  /** The claim counter: bumped by every claim, never reset (the fence of the run that holds it). */
  claims: number;
}

const MAX_BACKOFF_MS = 5 * 60_000;
const DEFAULT_LEASE_MS = 60_000;
// Jobs in flight and claimed per statement. A webhook fan-out's first attempts run in flight too,
// and most of a delivery's time is its POST (no connection held): at 32 / 10 the sender sat below
// its 16 connections a third of the time between claims, and each claim, fan-out read and fan-out
// write served 8 events; 64 / 16 halved those statements (bench/webhooks.ts: PostgreSQL CPU per
// delivery -25%, issue 28). 128 / 32 halves them again (a backlog of 4,000 deliveries: claims 127 ->
// 75, fan-out reads and writes 245 -> 142), the slots held by successes waiting for their record
// (webhooks/delivery.service.ts gathers them) included. A job holds a pool connection only for its
// statements, so more in flight queue on the pool rather than grow it.
const CONCURRENCY = 128;
const BATCH_SIZE = 32;

export interface JobRunnerOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  /** Longest idle wait between polls. */
  pollMs?: number;
  batchSize?: number;
  /** Most jobs the poller runs at once (default CONCURRENCY). */
  concurrency?: number;
}

export class JobRunner {
  private readonly kinds = new Map<string, JobDefinition<any>>();
  private readonly workerId = `${hostname()}:${process.pid}:${uuidv7().slice(-8)}`;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Jobs started by runClaimed, ever (runDue counts the ones started while it ran). */
  private startedClaimed = 0;

  constructor(private readonly opts: JobRunnerOptions) {}

  register<P>(kind: string, definition: JobDefinition<P>): this {
    this.kinds.set(kind, definition as JobDefinition<any>);
    return this;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unlisten = await this.opts.db.listen(NOTIFY_CHANNEL, () => this.wake?.());
    this.loop = this.pollLoop();
  }

  /** Stops polling and waits for the jobs in progress to end. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.unlisten?.();
    this.loop = null;
    this.unlisten = null;
  }

  /** Claims and runs every job due now; returns how many ran. Tests call it with a manual clock. */
  async runDue(): Promise<number> {
    let total = 0;
    const startedBefore = this.startedClaimed;
    for (;;) {
      const claimed = await this.claim();
      if (claimed.length === 0) return total + this.startedClaimed - startedBefore;
      await Promise.all(claimed.map((row) => this.execute(row)));
      // The jobs these runs wrote claimed and started (runClaimed) end before the next claim.
      await this.settled();
      total += claimed.length;
    }
  }

  /** Waits for every job in flight, including those started meanwhile by the ones that end. */
  private async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  private async pollLoop(): Promise<void> {
    const pollMs = this.opts.pollMs ?? 1000;
    const max = this.opts.concurrency ?? CONCURRENCY;
    while (this.running) {
      try {
        await this.startDue(max);
      } catch (err) {
        this.opts.log.error({ err }, 'job poll failed');
      }
      if (!this.running) break;
      let delay = pollMs;
      // While every slot is busy, wait for a job to end (it wakes the loop) rather than for due rows.
      if (this.inFlight.size < max) {
        try {
          const next = await this.nextRunAt();
          if (next) delay = Math.max(0, Math.min(pollMs, next.getTime() - this.opts.clock.now().getTime()));
        } catch {
          // the database is unreachable for now; poll again later
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    await this.settled();
  }

  /**
   * Claims due jobs while there is room and starts them without waiting for them to end, so one slow
   * job (a webhook endpoint that takes its whole 15 s) never holds back the jobs behind it.
   */
  private async startDue(max: number): Promise<void> {
    for (;;) {
      const room = Math.min(max - this.inFlight.size, this.opts.batchSize ?? BATCH_SIZE);
      if (room <= 0) return;
      const claimed = await this.claim(room);
      for (const row of claimed) this.launch(row);
      if (claimed.length < room) return;
    }
  }

  /** Runs a claimed job in the background, counted in flight until it ends. */
  private launch(row: JobRow, run?: JobDefinition['run']): void {
    const max = this.opts.concurrency ?? CONCURRENCY;
    const batchRoom = Math.min(this.opts.batchSize ?? BATCH_SIZE, Math.ceil(max / 4));
    const running: Promise<void> = this.execute(row, run)
      .catch((err) => this.opts.log.error({ err, jobId: row.id }, 'job bookkeeping failed'))
      .finally(() => {
        this.inFlight.delete(running);
        // Claim in batches: a job ending wakes the loop only once a batch's worth of slots is
        // free (or none is busy), not for each slot, so a backlog costs one claim per batch
        // rather than one per job (issue 28). A new job's NOTIFY and the poll timer still wake
        // it whatever the room, so a job due now waits for no batch when there is room.
        if (max - this.inFlight.size >= batchRoom || this.inFlight.size === 0 || !this.running) this.wake?.();
      });
    this.inFlight.add(running);
  }

  private async nextRunAt(): Promise<Date | null> {
    const kinds = [...this.kinds.keys()];
    const { rows } = await sql<{ next: Date | null }>`
      SELECT min(greatest(run_at, coalesce(locked_until, run_at))) AS next
      FROM jobs WHERE kind = ANY(${kinds}::text[])`.execute(this.opts.db.kysely);
    return rows[0]?.next ?? null;
  }

  private async claim(limit: number = this.opts.batchSize ?? BATCH_SIZE): Promise<JobRow[]> {
    const kinds = [...this.kinds.keys()];
    if (kinds.length === 0) return [];
    // Due by the service's clock (tests drive it), leased by the database's: the lease is what keeps
    // two processes off one job, and only one clock may decide it.
    const { rows } = await sql<JobRow>`
      UPDATE jobs SET locked_by = ${this.workerId}, locked_until = now() + ${this.leaseOf()}, attempts = attempts + 1,
          claims = claims + 1
      WHERE id IN (
        SELECT id FROM jobs
        WHERE kind = ANY(${kinds}::text[]) AND run_at <= ${this.opts.clock.now()}
          AND (locked_until IS NULL OR locked_until <= now())
        ORDER BY run_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, dedupe_key, payload, run_at, attempts, claims::int AS claims`.execute(this.opts.db.kysely);
    return rows;
  }

  /** The lease of the row's kind, as an interval expression over `kind` (one claim statement for all kinds). */
  private leaseOf(): RawBuilder<unknown> {
    const longer = [...this.kinds].filter(([, d]) => d.leaseMs && d.leaseMs !== DEFAULT_LEASE_MS);
    const ms = longer.length === 0
      ? sql`${DEFAULT_LEASE_MS}`
      : sql`CASE kind ${sql.join(longer.map(([k, d]) => sql`WHEN ${k}::text THEN ${d.leaseMs}`), sql` `)} ELSE ${DEFAULT_LEASE_MS} END`;
    return sql`make_interval(secs => (${ms})::float8 / 1000)`;
  }

  private async execute(row: JobRow, run?: JobDefinition['run']): Promise<void> {
    const definition = this.kinds.get(row.kind)!;
    const job: Job = {
      id: row.id,
      kind: row.kind,
      dedupeKey: row.dedupe_key,
      payload: row.payload,
      runAt: row.run_at,
      attempts: row.attempts,
    };
    let finished = false;
    const fence = { jobId: row.id, lockedBy: this.workerId, claim: row.claims };
    const leaseMs = definition.leaseMs ?? DEFAULT_LEASE_MS;
    const ctx: JobContext = {
      fence,
      finished: () => {
        finished = true;
      },
      transaction: (fn) =>
        this.opts.db.kysely.transaction().execute(async (tx) => {
          const result = await fn(tx);
          await this.remove(tx, row);
          finished = true;
          return result;
        }),
      renewLease: async () => {
        const r = await sql`UPDATE jobs SET locked_until = now() + make_interval(secs => ${leaseMs / 1000})
                            WHERE ${claimed(fence)}`.execute(this.opts.db.kysely);
        return Number(r.numAffectedRows ?? 0) === 1;
      },
      claimFor: (kind) => ({ lockedBy: this.workerId, leaseMs: this.kinds.get(kind)?.leaseMs ?? DEFAULT_LEASE_MS }),
      runClaimed: (claimedJob, run) => {
        if (!this.kinds.has(claimedJob.kind)) throw new Error(`runClaimed: no job kind ${claimedJob.kind} registered`);
        this.startedClaimed++;
        this.launch({ id: claimedJob.id, kind: claimedJob.kind, dedupe_key: claimedJob.dedupeKey, payload: claimedJob.payload, run_at: claimedJob.runAt, attempts: 1, claims: 1 }, run);
      },
    };
    // Made only when something is logged: a child logger per run was ~1% of the webhook bench's profile (issue 28).
    const log = () => this.opts.log.child({ jobId: row.id, jobKind: row.kind });
    try {
      const result = await (run ? run(job, ctx) : definition.run(job, ctx));
      if (finished) return;
      if (result && 'retryAt' in result) {
        // A run that ends well starts the failure count again (the backoff of its next failure);
        // the fence is the claim counter, which a success does not reset.
        await sql`UPDATE jobs SET run_at = ${result.retryAt}, locked_by = NULL, locked_until = NULL, attempts = 0
                  WHERE ${claimed(fence)}`.execute(this.opts.db.kysely);
      } else {
        await this.remove(this.opts.db.kysely, row).catch((err) => log().warn({ err }, 'job finished after its lease'));
      }
    } catch (err) {
      const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(row.attempts - 1, 16));
      log().warn({ err, attempts: row.attempts, retryInMs: backoff }, 'job failed; will retry');
      await sql`UPDATE jobs SET run_at = ${new Date(this.opts.clock.now().getTime() + backoff)},
                  locked_by = NULL, locked_until = NULL, last_error = ${String((err as Error)?.message ?? err).slice(0, 2000)}
                WHERE ${claimed(fence)}`
        .execute(this.opts.db.kysely)
        .catch((e) => log().error({ err: e }, 'could not record a job failure'));
    }
  }

  /** Removes a finished job, fenced on this process's claim. */
  private async remove(ex: Executor, row: JobRow): Promise<void> {
    const result = await sql`DELETE FROM jobs WHERE ${claimed({ jobId: row.id, lockedBy: this.workerId, claim: row.claims })}`.execute(ex);
    if (Number(result.numAffectedRows ?? 0) !== 1) {
      throw new Error(`job ${row.id} was taken over by another process`);
    }
  }
}
