import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { Db } from '../../src/db/db.ts';
import { claimedJobColumns, endClaimedJobCte } from '../../src/db/job-claims.ts';
import { JobRunner, scheduleJob, type JobContext } from '../../src/db/jobs.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { openEmbedded } from '../../src/db/db.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/server/logger.ts';
import { describeEachStore, describePostgres, newPostgres, newStore } from '../helpers/db.ts';
import { ROOT } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { sink } from '../helpers/streams.ts';

const log = createLogger('silent');

describeEachStore('durable jobs', (kind) => {
  let db: Db;
  afterEach(async () => {
    await db?.close();
  });

  it('a job due at T runs once, at T and not before', async () => {
    db = await newStore(kind);
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    const runs: string[] = [];
    const runner = new JobRunner({ db, clock, log }).register('t', { run: async (job) => void runs.push(job.id) });
    await scheduleJob(db.kysely, { kind: 't', runAt: new Date('2026-03-01T12:00:10Z') }, clock.now());
    expect(await runner.runDue()).toBe(0);
    clock.advance(9_999);
    expect(await runner.runDue()).toBe(0);
    clock.advance(1);
    expect(await runner.runDue()).toBe(1);
    clock.advance(60_000);
    expect(await runner.runDue()).toBe(0);
    expect(runs).toHaveLength(1);
  });

  it('a failing job is retried with backoff; a dedupe key schedules one job; retryAt reschedules', async () => {
    db = await newStore(kind);
    const clock = new ManualClock();
    let attempts = 0;
    let polls = 0;
    const runner = new JobRunner({ db, clock, log })
      .register('flaky', {
        run: async () => {
          attempts++;
          if (attempts < 3) throw new Error('not yet');
        },
      })
      .register('poll', {
        run: async () => {
          polls++;
          return polls < 3 ? { retryAt: new Date(clock.now().getTime() + 1000) } : undefined;
        },
      });
    await scheduleJob(db.kysely, { kind: 'flaky', runAt: clock.now(), dedupeKey: 'k1' }, clock.now());
    await scheduleJob(db.kysely, { kind: 'flaky', runAt: clock.now(), dedupeKey: 'k1' }, clock.now());
    await scheduleJob(db.kysely, { kind: 'poll', runAt: clock.now() }, clock.now());
    await runner.runDue();
    expect(attempts).toBe(1);
    clock.advance(1000);
    await runner.runDue();
    expect(attempts).toBe(2);
    clock.advance(1500);
    await runner.runDue();
    expect(attempts).toBe(2); // second backoff is 2 s
    clock.advance(500);
    await runner.runDue();
    expect(attempts).toBe(3);
    expect(polls).toBe(3);
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM jobs`.execute(db.kysely);
    expect(rows[0].n).toBe(0);
  });

  it('a scheduled job wakes the runners (NOTIFY of its kind) when its transaction commits; a dedupe key that has a job already adds none', async () => {
    db = await newStore(kind);
    const clock = new ManualClock();
    const heard: string[] = [];
    const unlisten = await db.listen('tableside_jobs', (payload) => heard.push(payload));
    try {
      await db.kysely.transaction().execute(async (tx) => {
        await scheduleJob(tx, { kind: 'woken', runAt: clock.now(), dedupeKey: 'once' }, clock.now());
        await scheduleJob(tx, { kind: 'woken', runAt: clock.now(), dedupeKey: 'once' }, clock.now());
      });
      await eventually(() => expect(heard).toContain('woken'), { what: 'the NOTIFY' });
    } finally {
      await unlisten();
    }
    const { rows } = await sql<{ kind: string; dedupe_key: string }>`SELECT kind, dedupe_key FROM jobs`.execute(db.kysely);
    expect(rows).toEqual([{ kind: 'woken', dedupe_key: 'once' }]);
  });

  it('work done in ctx.transaction commits with the job, and rolls back when another process took the job over', async () => {
    db = await newStore(kind);
    await sql`CREATE TABLE effects (note text)`.execute(db.kysely);
    const clock = new ManualClock();
    const runner = new JobRunner({ db, clock, log }).register<{ note: string; stolen?: boolean }>('fx', {
      run: async (job, ctx) => {
        if (job.payload.stolen) await sql`UPDATE jobs SET locked_by = 'someone-else' WHERE id = ${job.id}`.execute(db.kysely);
        await ctx.transaction(async (tx) => {
          await sql`INSERT INTO effects (note) VALUES (${String(job.payload.note)})`.execute(tx);
        });
      },
    });
    await scheduleJob(db.kysely, { kind: 'fx', runAt: clock.now(), payload: { note: 'kept' } }, clock.now());
    await scheduleJob(db.kysely, { kind: 'fx', runAt: clock.now(), payload: { note: 'rolled back', stolen: true } }, clock.now());
    await runner.runDue();
    const { rows } = await sql<{ note: string }>`SELECT note FROM effects`.execute(db.kysely);
    expect(rows.map((r) => r.note)).toEqual(['kept']);
  });

  it('a handler may end its job in its own statement, fenced on ctx.fence, and say finished(); a fence taken over removes nothing', async () => {
    db = await newStore(kind);
    const clock = new ManualClock();
    const logged = sink();
    const ended: boolean[] = [];
    const runner = new JobRunner({ db, clock, log: createLogger('warn', logged) }).register<{ steal?: boolean }>('own', {
      run: async (job, ctx) => {
        if (job.payload.steal) await sql`UPDATE jobs SET locked_by = 'someone-else' WHERE id = ${job.id}`.execute(db.kysely);
        const { jobId, lockedBy, claim } = ctx.fence;
        const r = await sql`DELETE FROM jobs WHERE id = ${jobId} AND locked_by = ${lockedBy} AND claims = ${claim}`.execute(db.kysely);
        const gone = Number(r.numAffectedRows) === 1;
        ended.push(gone);
        if (gone) ctx.finished();
      },
    });
    await scheduleJob(db.kysely, { kind: 'own', runAt: clock.now(), payload: {} }, clock.now());
    await scheduleJob(db.kysely, { kind: 'own', runAt: clock.now(), payload: { steal: true } }, clock.now());
    await runner.runDue();
    expect(ended.sort()).toEqual([false, true]);
    // The ended job is gone and the runner did not try to remove it again (that would log "taken
    // over"); the stolen one is still the other process's.
    const { rows } = await sql<{ locked_by: string }>`SELECT locked_by FROM jobs WHERE kind = 'own'`.execute(db.kysely);
    expect(rows).toEqual([{ locked_by: 'someone-else' }]);
    expect(logged.text.split('\n').filter((line) => line.includes('taken over'))).toHaveLength(1);
  });

  it('endClaimedJobCte ends the claimed job within a statement of its own when its condition holds, and never a claim taken over', async () => {
    db = await newStore(kind);
    const clock = new ManualClock();
    const logged = sink();
    const ended: Record<string, boolean> = {};
    const runner = new JobRunner({ db, clock, log: createLogger('warn', logged) }).register<{ name: string; when: boolean; steal?: boolean }>('own', {
      run: async (job, ctx) => {
        if (job.payload.steal) await sql`UPDATE jobs SET locked_by = 'someone-else' WHERE id = ${job.id}`.execute(db.kysely);
        const { rows } = await sql<{ ended: boolean }>`
          WITH ${endClaimedJobCte('ended', ctx.fence, job.payload.when ? sql`true` : sql`false`)}
          SELECT EXISTS (SELECT 1 FROM ended) AS ended`.execute(db.kysely);
        ended[job.payload.name] = rows[0]!.ended;
        if (rows[0]!.ended) ctx.finished();
      },
    });
    for (const payload of [{ name: 'ends', when: true }, { name: 'keeps', when: false }, { name: 'stolen', when: true, steal: true }]) {
      await scheduleJob(db.kysely, { kind: 'own', runAt: clock.now(), payload }, clock.now());
    }
    await runner.runDue();
    expect(ended).toEqual({ ends: true, keeps: false, stolen: false });
    // 'keeps' was then removed by the runner itself; 'stolen' is still the other process's.
    const { rows } = await sql<{ locked_by: string }>`SELECT locked_by FROM jobs WHERE kind = 'own'`.execute(db.kysely);
    expect(rows).toEqual([{ locked_by: 'someone-else' }]);
    expect(logged.text.split('\n').filter((line) => line.includes('taken over'))).toHaveLength(1);
  });
});

// ---- processes: kill, restart, race ----

function spawnWorker(env: Record<string, string>): { child: ChildProcess; lines: string[]; waitFor(text: string): Promise<void>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/fixtures/job-worker.ts')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', TABLESIDE_DATA: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let err = '';
  const waiters: Array<[string, () => void]> = [];
  child.stdout!.on('data', (c) => {
    lines.push(...String(c).split('\n').filter(Boolean));
    for (const [text, resolve] of waiters) if (lines.some((l) => l.includes(text))) resolve();
  });
  child.stderr!.on('data', (c) => (err += c));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    lines,
    exit,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        if (lines.some((l) => l.includes(text))) return resolve();
        waiters.push([text, resolve]);
        child.on('exit', (code) => reject(new Error(`worker exited (${code}) before "${text}": ${err}`)));
      }),
  };
}

const killed = (w: { child: ChildProcess; exit: Promise<number | null> }) => {
  w.child.kill('SIGKILL');
  return w.exit;
};

describeEachStore('durable jobs: claims are fenced and leased on the database clock (issue 26)', (kind) => {
  let db: Db;
  afterEach(async () => {
    await db?.close();
  });

  /** Ends every lease now, as if the database's clock had passed them (no sleep). */
  const expireLeases = () => sql`UPDATE jobs SET locked_until = now() - interval '1 second' WHERE locked_until IS NOT NULL`.execute(db.kysely);

  it('[BKG-38] a lease is measured on the database clock: a runner whose own clock is hours ahead does not take a job another run holds', async () => {
    db = await newStore(kind);
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let runs = 0;
    const slow = new JobRunner({ db, clock, log }).register('t', { run: async () => { runs++; await held; } });
    const other = new JobRunner({ db, clock, log }).register('t', { run: async () => void runs++ });
    await scheduleJob(db.kysely, { kind: 't', runAt: clock.now() }, clock.now());
    const first = slow.runDue();
    await eventually(async () => expect(runs).toBe(1));
    clock.advance(3 * 3600_000);
    expect(await other.runDue()).toBe(0);
    release();
    await first;
    expect(runs).toBe(1);
  });

  it('[BKG-38] retryAt keeps the claim counter: a stale run of an earlier claim that ends late removes nothing of the newer claim', async () => {
    db = await newStore(kind);
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let calls = 0;
    // One process (one worker id): its first run stalls past the lease, its next runs go on meanwhile.
    const runner = new JobRunner({ db, clock, log }).register('t', {
      run: async () => {
        calls++;
        if (calls === 1) await held;
        else if (calls === 2) return { retryAt: new Date(clock.now().getTime() + 1000) };
        else await held;
      },
    });
    await scheduleJob(db.kysely, { kind: 't', runAt: clock.now(), dedupeKey: 'stale' }, clock.now());
    const stale = runner.runDue();
    await eventually(async () => expect(calls).toBe(1));
    await expireLeases();
    await runner.runDue(); // the second claim: retryAt, the job back in the queue
    expect(calls).toBe(2);
    clock.advance(1000);
    const third = runner.runDue(); // the third claim, still running
    await eventually(async () => expect(calls).toBe(3));
    release(); // the stale first run and the third end: only the third may remove the job
    await Promise.all([stale, third]);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs`.execute(db.kysely);
    expect(rows[0].n).toBe(0);
    expect(calls).toBe(3);
  });

  it('[BKG-38] a run taken over does not reschedule nor record a failure over the new claim; renewLease says the claim is lost', async () => {
    db = await newStore(kind);
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let renewed: boolean | null = null;
    let calls = 0;
    const runner = new JobRunner({ db, clock, log }).register('t', {
      run: async (_job, ctx) => {
        calls++;
        if (calls === 1) {
          expect(await ctx.renewLease()).toBe(true);
          await held;
          renewed = await ctx.renewLease();
          throw new Error('stale failure');
        }
        await held;
        return { retryAt: new Date(clock.now().getTime() + 60_000) };
      },
    });
    await scheduleJob(db.kysely, { kind: 't', runAt: clock.now() }, clock.now());
    const stale = runner.runDue();
    await eventually(async () => expect(calls).toBe(1));
    await expireLeases();
    const fresh = runner.runDue();
    await eventually(async () => expect(calls).toBe(2));
    release();
    await Promise.all([stale, fresh]);
    expect(renewed).toBe(false);
    const { rows } = await sql<{ run_at: Date; last_error: string | null; attempts: number; claims: number }>`
      SELECT run_at, last_error, attempts, claims::int AS claims FROM jobs`.execute(db.kysely);
    expect(rows).toHaveLength(1);
    // The fresh run's retryAt stands; the stale run's failure was not written over it.
    expect(rows[0].run_at.getTime()).toBe(clock.now().getTime() + 60_000);
    expect(rows[0].last_error).toBeNull();
    expect(rows[0].attempts).toBe(0); // a success starts the failure count again
    expect(rows[0].claims).toBe(2);
  });

  it('[BKG-38] a job a handler writes claimed by its own process (claimFor) runs at once in that process (runClaimed), is fenced on that claim, and is left to another process only once its lease expires', async () => {
    db = await newStore(kind);
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    const write = (ctx: JobContext, id: string) => sql`
      INSERT INTO jobs (id, kind, dedupe_key, payload, run_at, created_at, locked_by, locked_until, attempts, claims)
      SELECT ${id}::uuid, 'child', ${`child:${id}`}, '{}'::jsonb, ${clock.now()}::timestamptz, now(), ${claimedJobColumns(ctx.claimFor('child'))}`.execute(db.kysely);
    const [first, second] = [uuidv7(), uuidv7()];
    // This process: the parent writes two children claimed and runs them itself; the first stalls (the process dies).
    const dying = new JobRunner({ db, clock, log })
      .register('parent', {
        run: async (_job, ctx) => {
          for (const id of [first, second]) await write(ctx, id);
          ctx.runClaimed({ id: first, kind: 'child', dedupeKey: `child:${first}`, payload: {}, runAt: clock.now() }, async () => {
            ran.push('dying:first');
            await held;
          });
          ctx.runClaimed({ id: second, kind: 'child', dedupeKey: `child:${second}`, payload: {}, runAt: clock.now() });
        },
      })
      .register('child', { run: async (job) => void ran.push(`dying:${job.id === second ? 'second' : '?'}`) });
    const other = new JobRunner({ db, clock, log }).register('child', { run: async (job) => void ran.push(`other:${job.id === first ? 'first' : 'second'}`) });
    await scheduleJob(db.kysely, { kind: 'parent', runAt: clock.now() }, clock.now());
    const dyingRun = dying.runDue();
    await eventually(async () => expect(ran).toEqual(['dying:first', 'dying:second']));
    const jobs = async () => (await sql<{ id: string; locked_by: string | null; claims: string }>`SELECT id, locked_by, claims::text FROM jobs ORDER BY id`.execute(db.kysely)).rows;
    // The second ended, fenced on its claim (1); the first is held by the dying process, so nobody else takes it.
    // (Its handler has run when `ran` says so; its removal commits just after: waited for, not raced.)
    await eventually(async () => expect((await jobs()).map((j) => [j.id, j.claims])).toEqual([[first, '1']]));
    expect(await other.runDue()).toBe(0);
    await expireLeases();
    expect(await other.runDue()).toBe(1);
    expect(ran).toEqual(['dying:first', 'dying:second', 'other:first']);
    expect(await jobs()).toEqual([]);
    // The stalled run ends late: its claim was taken over, so it removes nothing (nothing is left to remove) and runDue counts the three runs.
    release();
    expect(await dyingRun).toBe(3);
  });

  it('[BKG-38] a periodic job that succeeds starts its failure count again: its next failure backs off 1 s, not the long backoff of its claim count', async () => {
    db = await newStore(kind);
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    let fail = false;
    const runner = new JobRunner({ db, clock, log }).register('tick', {
      run: async () => {
        if (fail) throw new Error('down');
        return { retryAt: new Date(clock.now().getTime() + 1000) };
      },
    });
    await scheduleJob(db.kysely, { kind: 'tick', runAt: clock.now() }, clock.now());
    for (let i = 0; i < 10; i++) {
      expect(await runner.runDue()).toBe(1);
      clock.advance(1000);
    }
    fail = true;
    expect(await runner.runDue()).toBe(1);
    const { rows } = await sql<{ run_at: Date; attempts: number; claims: number }>`
      SELECT run_at, attempts, claims::int AS claims FROM jobs`.execute(db.kysely);
    expect(rows[0]).toMatchObject({ attempts: 1, claims: 11 });
    expect(rows[0].run_at.getTime()).toBe(clock.now().getTime() + 1000);
  });
});

describe('durable jobs across processes [pglite]', () => {
  it('a job scheduled by a process killed before it was due runs once in the next process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tableside-jobs-'));
    const scheduler = spawnWorker({ MODE: 'schedule', TABLESIDE_DATA: dir, DELAY_MS: '1500' });
    await scheduler.waitFor('scheduled');
    const scheduledAt = new Date(scheduler.lines[0].split(' ')[1]).getTime();
    await killed(scheduler);
    const worker = spawnWorker({ MODE: 'run', TABLESIDE_DATA: dir });
    expect(await worker.exit).toBe(0);
    expect(JSON.parse(worker.lines.at(-1)!)).toEqual({ ran: 1 });
    const db = await openEmbedded({ dir: join(dir, 'pgdata') });
    onTestFinished(() => db.close());
    const { rows } = await sql<{ ran_at: Date }>`SELECT ran_at FROM test_job_runs`.execute(db.kysely);
    expect(rows).toHaveLength(1);
    expect(rows[0].ran_at.getTime()).toBeGreaterThanOrEqual(scheduledAt + 1500 - 5);
  });
});

describePostgres('durable jobs across processes', () => {
  it('killed before T: the job runs once, after T, in the process started next', async () => {
    const db = await newPostgres();
    onTestFinished(() => db.close());
    const scheduler = spawnWorker({ MODE: 'schedule', DATABASE_URL: db.url, DELAY_MS: '1500', RUN_JOBS: '1' });
    await scheduler.waitFor('scheduled');
    await killed(scheduler);
    const worker = spawnWorker({ MODE: 'run', DATABASE_URL: db.url });
    expect(await worker.exit).toBe(0);
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM test_job_runs`.execute(db.kysely);
    expect(rows[0].n).toBe(1);
  });

  it('killed in the middle of a job: the lease expires and another process runs it, with its effects once', async () => {
    const db = await newPostgres();
    onTestFinished(() => db.close());
    const hanging = spawnWorker({ MODE: 'schedule', DATABASE_URL: db.url, DELAY_MS: '0', RUN_JOBS: '1', HANG: '1', LEASE_MS: '1500' });
    await hanging.waitFor('hanging');
    await killed(hanging);
    const worker = spawnWorker({ MODE: 'run', DATABASE_URL: db.url, LEASE_MS: '1500' });
    expect(await worker.exit).toBe(0);
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM test_job_runs`.execute(db.kysely);
    expect(rows[0].n).toBe(1);
  });

  it('two processes racing on 300 due jobs run each exactly once', async () => {
    const db = await newPostgres();
    onTestFinished(() => db.close());
    await sql`CREATE TABLE IF NOT EXISTS test_job_runs (job_id uuid NOT NULL, pid integer NOT NULL, ran_at timestamptz NOT NULL)`.execute(db.kysely);
    const a = spawnWorker({ MODE: 'run', FOREVER: '1', DATABASE_URL: db.url, WORK_MS: '2' });
    const b = spawnWorker({ MODE: 'run', FOREVER: '1', DATABASE_URL: db.url, WORK_MS: '2' });
    await Promise.all([a.waitFor('ready'), b.waitFor('ready')]);
    const now = new Date();
    await db.kysely.transaction().execute(async (tx) => {
      for (let i = 0; i < 300; i++) await scheduleJob(tx, { kind: 'record', runAt: now, payload: { i } }, now);
    });
    await eventually(async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM jobs`.execute(db.kysely);
      expect(rows[0].n).toBe(0);
    }, { intervalMs: 100, timeoutMs: 60_000, what: 'every job to run' });
    await Promise.all([killed(a), killed(b)]);
    const { rows } = await sql<{ job_id: string; runs: number; pid: number }>`
      SELECT job_id, count(*) AS runs, min(pid) AS pid FROM test_job_runs GROUP BY job_id`.execute(db.kysely);
    expect(rows).toHaveLength(300);
    expect(rows.every((r) => r.runs === 1)).toBe(true);
    const pids = new Set(rows.map((r) => r.pid));
    expect(pids.size).toBe(2);
  });
});
