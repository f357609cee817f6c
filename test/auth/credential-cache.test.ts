import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAuthService } from '../../src/auth/auth.service.ts';
import { createCredentialCache, currentEpoch, type Epoched } from '../../src/auth/credential-cache.ts';
import type { Db } from '../../src/db/db.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { jsonOf, runCli } from '../helpers/cli.ts';
import { startCluster } from '../helpers/cluster.ts';
import { describeEachStore, describePostgres, newStore, type StoreKind } from '../helpers/db.ts';

// Issue 14: checked credentials are kept in memory under a lease (src/auth/credential-cache.ts);
// a revocation must still be refused by every request that starts after it returns, on every
// process. The cluster test shows it across real processes; the rest shows each part of the
// protocol that makes it so.

const log = pino({ level: 'silent' });

async function store(kind: StoreKind): Promise<Db> {
  const db = await newStore(kind);
  onTestFinished(() => db.close());
  return db;
}

function cache(db: Db, leaseMs = 3000) {
  const c = createCredentialCache({ db, log, leaseMs });
  onTestFinished(() => c.stop());
  return c;
}

/** A loader that counts its calls and answers a row at the given epoch. */
function loader(epoch: () => Promise<number> | number) {
  const calls = { n: 0 };
  const load = async (): Promise<Epoched & { id: string }> => {
    calls.n++;
    return { id: 'row', auth_epoch: String(await epoch()) };
  };
  return { calls, load };
}

describePostgres('credentials across two processes', () => {
  it('[DES-058] [DES-059] [AUTH-06] [AUTH-02] after token revoke and key revoke return, both processes refuse the credential that each had just accepted', async () => {
    const c = await startCluster(2);
    const cli = (...args: string[]) => runCli(args, { DATABASE_URL: c.url });
    // The cluster's token: each process checks it twice, so it is held in both processes' memory.
    for (const client of c.clients) {
      for (let i = 0; i < 2; i++) expect((await client.get('/v1/pat/venues', { token: c.token })).status).toBe(200);
    }
    expect((await cli('token', 'revoke', '--token', c.token)).code).toBe(0);
    for (const client of c.clients) {
      const res = await client.get('/v1/pat/venues', { token: c.token });
      expect(res.status).toBe(401);
      expect(JSON.stringify(res.body)).toMatch(/revoked/);
    }
    const { apiKey } = jsonOf(await cli('partner', 'create', '--name', 'content', '--access', 'rms', '--json'));
    for (const client of c.clients) {
      for (let i = 0; i < 2; i++) expect((await client.get('/v1/rms/venues', { token: apiKey })).status).toBe(200);
    }
    expect((await cli('key', 'revoke', '--key', apiKey)).code).toBe(0);
    for (const client of c.clients) expect((await client.get('/v1/rms/venues', { token: apiKey })).status).toBe(401);
  });
});

describeEachStore('the credential cache', (kind) => {
  it('[DES-058] a credential is read once while the epoch stands; a revocation on another holder makes the next lookup read it again', async () => {
    const db = await store(kind);
    const a = cache(db);
    await a.start();
    expect(a.serving).toBe(true);
    const { calls, load } = loader(() => currentEpoch(db.kysely));
    await a.lookup('token', 'h1', load);
    await a.lookup('token', 'h1', load);
    expect(calls.n).toBe(1);

    const auth = createAuthService({ db, clock: systemClock, accessTokenTtlS: 3600 });
    const partner = await auth.createPartner({ name: 'p', access: ['pat'] });
    const { accessToken } = await auth.issueToken(partner.partnerId);
    await auth.revokeToken(accessToken);
    // revokeToken returned: `a` has acknowledged the new epoch and dropped what it held.
    await a.lookup('token', 'h1', load);
    expect(calls.n).toBe(2);
  });

  it('[DES-058] a row read at an older epoch than the holder knows is never kept (a lookup that raced a revocation)', async () => {
    const db = await store(kind);
    const a = cache(db);
    await a.start();
    const now = await currentEpoch(db.kysely);
    const stale = loader(() => now - 1);
    await a.lookup('key', 'h2', stale.load);
    await a.lookup('key', 'h2', stale.load);
    expect(stale.calls.n).toBe(2);
    // A row read at a newer epoch than the holder knows is not served either until it learns that epoch.
    const ahead = loader(() => now + 1);
    await a.lookup('key', 'h3', ahead.load);
    await a.lookup('key', 'h3', ahead.load);
    expect(ahead.calls.n).toBe(2);
  });

  it('[DES-058] a revocation waits for a holder that has not acknowledged it, until its lease ends, and no longer', async () => {
    const db = await store(kind);
    const epoch = await currentEpoch(db.kysely);
    // A holder that stopped answering (its process hangs): a lease 1.5 s long, behind the next epoch.
    await sql`INSERT INTO auth_leases (holder, valid_until, acked_epoch)
              VALUES ('hung', now() + interval '1500 milliseconds', ${epoch})`.execute(db.kysely);
    // And one whose lease ended long ago (a process killed): it does not hold anything up.
    await sql`INSERT INTO auth_leases (holder, valid_until, acked_epoch)
              VALUES ('gone', now() - interval '1 minute', ${epoch})`.execute(db.kysely);
    const auth = createAuthService({ db, clock: systemClock, accessTokenTtlS: 3600 });
    const partner = await auth.createPartner({ name: 'p', access: ['pat'] });
    const { accessToken } = await auth.issueToken(partner.partnerId);
    const t0 = performance.now();
    await auth.revokeToken(accessToken);
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThan(10_000);
    expect(await currentEpoch(db.kysely)).toBeGreaterThan(epoch);
  });

  it('[DES-058] a holder that cannot renew its lease stops serving from memory before the lease ends in the database', async () => {
    const db = await store(kind);
    if (kind === 'pglite') return; // one session: a held lock would block the test itself
    const a = cache(db, 600);
    await a.start();
    const { calls, load } = loader(() => currentEpoch(db.kysely));
    await a.lookup('token', 'h4', load);
    await a.lookup('token', 'h4', load);
    expect(calls.n).toBe(1);
    // Another session locks every lease row: the holder's renewals block, as when the database is unreachable.
    const blocker = await db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE auth_leases IN ACCESS EXCLUSIVE MODE');
    try {
      await new Promise((r) => setTimeout(r, 700));
      expect(a.serving).toBe(false);
      await a.lookup('token', 'h4', load);
      expect(calls.n).toBe(2);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    // Renewed again: it serves from memory again.
    await new Promise((r) => setTimeout(r, 400));
    expect(a.serving).toBe(true);
  });
});

describe('the credential epoch', () => {
  it('[DES-058] every change to a partner, token or key bumps it, by trigger, so no code path can skip it', async () => {
    const db = await store('pglite');
    const auth = createAuthService({ db, clock: systemClock, accessTokenTtlS: 3600 });
    const partner = await auth.createPartner({ name: 'p', access: ['pat', 'rms'] });
    const e0 = await currentEpoch(db.kysely);
    await auth.issueToken(partner.partnerId);
    expect(await currentEpoch(db.kysely)).toBe(e0); // a new credential changes nothing held
    await sql`UPDATE partners SET active = false WHERE id = ${partner.partnerId}`.execute(db.kysely);
    const e1 = await currentEpoch(db.kysely);
    expect(e1).toBeGreaterThan(e0);
    await auth.revokeKey(partner.apiKey!);
    expect(await currentEpoch(db.kysely)).toBeGreaterThan(e1);
  });
});
