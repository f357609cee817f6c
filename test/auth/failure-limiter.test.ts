import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import { FailureLimiter } from '../../src/auth/failure-limiter.ts';
import type { Db } from '../../src/db/db.ts';
import { describeEachStore, newStore } from '../helpers/db.ts';

// The fleet-wide failure limit on the store itself (DES-031, issue 29): two limiters on one store
// stand for two replicas; a manual wall clock moves the sliding minute.

describeEachStore('the failed-authentication limit in the store', (kind) => {
  const open = async (): Promise<Db> => {
    const db = await newStore(kind);
    onTestFinished(() => db.close());
    return db;
  };
  const rows = async (db: Db) =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM auth_failures`.execute(db.kysely)).rows[0].n;

  it('[DES-031] two limiters on one store share one count; a failure past the limit and a status read write nothing', async () => {
    const db = await open();
    let now = Date.parse('2026-11-27T10:00:00.200Z');
    const a = new FailureLimiter(db.kysely, 3, () => now);
    const b = new FailureLimiter(db.kysely, 3, () => now);
    for (const limiter of [a, b, a]) {
      expect(await limiter.retryAfter('10.0.0.1')).toBe(0);
      await limiter.record('10.0.0.1');
      now += 100;
    }
    expect(await b.retryAfter('10.0.0.1')).toBeGreaterThan(0);
    expect((await b.status('10.0.0.1')).remaining).toBe(0);
    // Another address is untouched.
    expect((await a.status('10.0.0.2')).remaining).toBe(3);
    const written = await rows(db);
    for (let i = 0; i < 5; i++) await a.status('10.0.0.9');
    expect(await rows(db)).toBe(written);
  });

  it('[DES-031] a failure leaves the window a minute after it, Reset counts down to it, and old rows are pruned', async () => {
    const db = await open();
    let now = Date.parse('2026-11-27T10:00:00.000Z');
    const limiter = new FailureLimiter(db.kysely, 2, () => now);
    await limiter.record('10.0.0.1');
    now += 30_000;
    await limiter.record('10.0.0.1');
    expect(await limiter.retryAfter('10.0.0.1')).toBe(30);
    now += 30_000; // the first failure has left the minute
    const after = new FailureLimiter(db.kysely, 2, () => now); // a replica with no local view
    expect(await after.status('10.0.0.1')).toMatchObject({ remaining: 1, resetS: 30 });
    expect(await after.retryAfter('10.0.0.1')).toBe(0);

    now += 61_000; // every failure is past; the next counted failure prunes them
    await after.record('10.0.0.3');
    expect((await sql<{ address: string }>`SELECT address FROM auth_failures`.execute(db.kysely)).rows).toEqual([{ address: '10.0.0.3' }]);
  });
});
