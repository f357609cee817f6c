import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, inject, it, onTestFinished } from 'vitest';
import { openPostgres, type Db } from '../../src/db/db.ts';
import { ROOT } from '../helpers/cli.ts';
import { describePostgres } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildRelease, previousRelease } from '../helpers/previous-release.ts';
import { HttpClient } from '../helpers/http.ts';
import { flows, newTally, seedWorld, startFleet, through, type Fleet, type Replica, type Tally, type World } from '../helpers/rolling.ts';

// The rolling upgrade (issue 29 item 3; src/db/README.md, "Migrations: expand, then contract";
// docs/deploy.md, "The rolling upgrade"). The previous release's code, checked out from git and
// bundled, migrates a fresh database and runs two replicas; the data is seeded through them. Then
// this release's first replica applies its migrations, and the old replicas must still serve every
// flow, reading and writing, and restart on the newer schema. Then, under a steady load across the
// fleet, the old replicas are swapped one by one for new ones (SIGTERM, drain, start), and no call
// may fail beyond the retries the contract allows. Which commit is "the previous release" is
// src/db/README.md's rule (test/helpers/previous-release.ts); ROLLING_FROM=<ref> overrides it.
// No rule of rules.md names the rolling upgrade; it holds DES-050 (replicas sharing one PostgreSQL
// coordinate through it, here of two releases), DES-048 (two releases migrating one database both
// succeed, the schema applied once) and DES-046 (SIGTERM: a replica drains, closes and exits 0).

const LOAD_TICK_MS = 300;

async function everyFlow(fleet: Fleet, f: ReturnType<typeof flows>): Promise<void> {
  await f.livePayment();
  await f.storedBill();
  await f.channelBooking();
  await f.google();
  await f.seated();
  await f.notice();
  await f.feedShard();
  await f.contentReads();
}

/** Open-loop load: a flow started every tick, round-robin over the kinds, until `stop()`. */
function steadyLoad(f: ReturnType<typeof flows>, tally: Tally) {
  const kinds = [f.livePayment, f.storedBill, f.channelBooking, f.google, f.seated, f.notice, f.feedShard, f.contentReads];
  const running = new Set<Promise<void>>();
  let i = 0;
  const timer = setInterval(() => {
    const kind = kinds[i++ % kinds.length]!;
    const p: Promise<void> = kind().catch((err: Error) => void tally.failed.push(err.message)).finally(() => running.delete(p));
    running.add(p);
  }, LOAD_TICK_MS);
  return {
    started: () => i,
    async stop() {
      clearInterval(timer);
      await Promise.all(running);
    },
  };
}

/** What every flow left behind agrees with the POS, the RMS and the webhook receiver. */
async function verifyOutcome(fleet: Fleet, w: World, db: Db): Promise<void> {
  const tally = newTally();
  for (const p of w.made.payments) {
    const res = await through(fleet, tally, 'payment status', (c) => c.get(`/v1/pat/venue/${w.live.venueId}/order/${p.orderId}/payment/${p.ref}`, { token: w.patToken }));
    expect(res.body, p.ref).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
  }
  const pos = new HttpClient(fleet.pos.baseUrl, fleet.pos.ca);
  onTestFinished(() => pos.close());
  expect((await pos.get(`/venue/${w.live.posVenueId}/orders?status=open`, { token: fleet.pos.apiKey })).body).toEqual([]);
  for (const id of w.made.channelBookings) {
    const res = await through(fleet, tally, 'channel booking', (c) => c.get(`/v1/bc/bookings/${id}`, { headers: { authorization: `Bearer ${w.channelKey}` } }));
    expect(res.body.status, id).toBe('canceled');
  }
  const atRms = await fleet.rms.control.bookings('rms-venue-1');
  const byEmail = (prefix: string) => atRms.filter((x) => x.contact.email?.startsWith(prefix));
  expect(byEmail('ada').map((x) => x.status)).toEqual(w.made.channelBookings.map(() => 'canceled'));
  expect(byEmail('g').filter((x) => x.status === 'confirmed')).toHaveLength(w.made.googleBookings.length);
  // Every booking event of the RMS partner reached its endpoint (delivered by whichever replica ran the job).
  await eventually(async () => {
    const { rows } = await sql<{ type: string; entity_id: string }>`SELECT type, entity_id FROM outbox WHERE partner_id = ${w.rmsPartnerId} AND type IN ('booking.created', 'booking.canceled')`.execute(db.kysely);
    expect(rows.length).toBeGreaterThanOrEqual(2 * w.made.channelBookings.length);
    const got = new Set(fleet.receiver.on(w.webhookPath).map((r) => `${r.json?.type} ${r.json?.data?.entityId}`));
    expect(rows.filter((e) => !got.has(`${e.type} ${e.entity_id}`))).toEqual([]);
  }, { what: 'every booking event delivered', timeoutMs: 60_000 });
  expect(tally.failed).toEqual([]);
}

describePostgres('rolling upgrade from the previous release', () => {
  it('[DES-050] [DES-048] [DES-046] the previous release serves every flow on the new schema and restarts on it; swapped replica by replica under load, no call fails beyond the allowed retries', async () => {
    const t0 = Date.now();
    const marks: string[] = [];
    const mark = (what: string) => marks.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    onTestFinished(() => console.log(`phases: ${marks.join(', ')}`));
    const prev = previousRelease(ROOT);
    const old = await buildRelease(ROOT, prev.commit, `rolling-${inject('runId')}`);
    mark('old release built');
    // The old build is removed once its replicas are stopped (startFleet's cleanup).
    const fleet = await startFleet({ old: old.entry, new: undefined }, old.remove);
    const oldMigrations = readdirSync(join(old.dir, 'src', 'db', 'migrations')).filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, ''));
    const newMigrations = readdirSync(join(ROOT, 'src', 'db', 'migrations')).filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, ''));
    const added = newMigrations.filter((m) => !oldMigrations.includes(m));
    console.log(`rolling from ${prev.commit.slice(0, 10)} (${prev.why}); migrations it lacks: ${added.join(', ') || 'none'}`);

    // Release N: migrates the fresh database, two replicas, the data seeded through them.
    const migrated = await fleet.cli('old', 'migrate', '--json');
    expect(migrated.applied).toEqual(oldMigrations);
    const [a, b] = [await fleet.start('old'), await fleet.start('old')];
    mark('2 old replicas');
    const world = await seedWorld(fleet, a.client);
    mark('seeded');
    const db = openPostgres(fleet.url);
    onTestFinished(() => db.close());
    const checkTally = newTally();
    // The stored bill is the order sync's (every second): present before anything else is checked.
    await eventually(() => flows(fleet, world, checkTally, b).storedBill(), { what: 'the stored bill synced', timeoutMs: 30_000 });

    // Release N+1's first replica applies its migrations while N runs.
    await fleet.start('new');
    mark('new replica migrated');
    const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db.kysely);
    expect(rows.map((r) => r.name).sort()).toEqual([...new Set([...oldMigrations, ...newMigrations])].sort());

    // The old replicas serve every flow, reading and writing, on the new schema; so does the new one.
    for (const replica of [a, b]) await everyFlow(fleet, flows(fleet, world, checkTally, replica));
    // An old replica restarted now starts on the newer schema (it used to refuse it) and serves.
    expect(await fleet.stop(b)).toBe(0);
    const restarted = await fleet.start('old');
    if (added.length > 0) expect(restarted.server.output()).toContain(added[0]);
    const onRestarted = flows(fleet, world, checkTally, restarted);
    await onRestarted.livePayment();
    await onRestarted.channelBooking();
    expect(checkTally.failed).toEqual([]);
    mark('every flow on each replica, old restarted');

    // The swap under load: each old replica SIGTERMed, drained, replaced by a new one.
    const tally = newTally();
    const f = flows(fleet, world, tally);
    const load = steadyLoad(f, tally);
    // A stretch of load before and after each swap (a phase of the run, not a wait for a condition).
    const pause = () => new Promise((r) => setTimeout(r, 1500));
    await pause();
    for (const replica of fleet.replicas.filter((r): r is Replica => r.release === 'old')) {
      expect(await fleet.stop(replica)).toBe(0);
      await fleet.start('new');
      await pause();
    }
    await load.stop();
    mark('swapped under load');
    console.log(`swap under load: ${load.started()} flows, ${tally.calls} calls, retried ${tally.retried503} after 503 + Retry-After, ${tally.retriedConnection} after a refused or reset connection, ${tally.retriedUpstream} after the POS or RMS answered late; failed ${tally.failed.length}`);
    expect(tally.failed).toEqual([]);
    expect(fleet.replicas.every((r) => r.release === 'new')).toBe(true);
    await verifyOutcome(fleet, world, db);
    mark('outcome verified');
  }, 900_000);
});
