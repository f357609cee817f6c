import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/db.ts';
import { startRmsWorld, type RmsWorld } from './world.ts';

// The availability feed (DESIGN 8.3b) over HTTPS: pushed by the reference RMS, and hand-made shards.

const record = (venueId: string, date: string, partySize: number, startSec = 1_749_661_200) => ({
  venueId, date, partySize, duration: 5400,
  slotData: [
    { startSec, totalSpots: 4, openSpots: 3, deposit: false, depositAmount: 0, requiresCc: false },
    { startSec: startSec + 900, totalSpot: 4, openSpot: 0, deposit: true, depositAmount: 1000, requireCc: true },
  ],
});

describeEachStore('POST/GET /v1/rms/availability-feed', (store) => {
  let w: RmsWorld;
  let n = 0;
  const nonce = () => `nonce-${process.pid}-${++n}`;
  const shard = (nonceValue: string, shardNumber: number, total: number, data: unknown[]) =>
    w.app.http.post('/v1/rms/availability-feed', { token: w.key, body: { metadata: { total_shards: total, shard_number: shardNumber, nonce: nonceValue, date: '2025-06-10T09:00:00Z' }, data } });
  const status = async () => (await w.app.http.get('/v1/rms/availability-feed', { token: w.key })).body;

  beforeAll(async () => {
    w = await startRmsWorld({ app: { store } });
    await w.sim.control.setClock({ set: '2025-06-10T09:00:00Z', frozen: true });
  });
  afterAll(async () => w?.close());

  it('[BKG-20] the reference RMS pushes its feed in shards, last first; the snapshot is replaced when every shard has arrived', async () => {
    const pushed = await w.sim.control.pushFeed({ days: 2, shardSize: 7, order: 'desc', startDate: '2025-06-11' });
    expect(pushed.totalShards).toBeGreaterThan(1);
    expect(pushed.shards.every((s) => s.status === 202)).toBe(true);
    const now = await status();
    expect(now).toMatchObject({ nonce: pushed.nonce, records: pushed.records, venues: 3, completedAt: expect.any(String), incomplete: [] });
    const { rows } = await sql<{ type: string; data: any }>`SELECT type, data FROM outbox WHERE type = 'availability_feed.processed'`.execute(w.app.db.kysely);
    expect(rows.map((r) => r.data.nonce)).toEqual([pushed.nonce]);
    // The snapshot answers what the RMS answers live for the same venue, date and party size.
    const live = await (await w.app.service.app.services.bookingServices.client(w.partnerId))!.availability({ venueId: 'rms-venue-1', date: '2025-06-11', partySize: 2 });
    const snap = await w.app.service.app.services.feed.snapshotAvailability(w.partnerId, 'rms-venue-1', '2025-06-11', 2);
    expect(snap!.slots).toEqual(live.slots);
  });

  it('[BKG-20] [BKG-22] [BKG-33] hand-made shards in any order: incomplete until the last, then the snapshot; shard_number counts from 0', async () => {
    const before = await status();
    const id = nonce();
    expect((await shard(id, 2, 3, [record('v-a', '2025-06-12', 2)])).status).toBe(202);
    const partial = await shard(id, 0, 3, [record('v-a', '2025-06-12', 4), record('v-b', '2025-06-12', 2)]);
    expect(partial.body).toEqual({ nonce: id, status: 'received', receivedShards: 2, totalShards: 3 });
    const mid = await status();
    expect(mid).toMatchObject({ nonce: before.nonce, records: before.records, incomplete: [{ nonce: id, receivedShards: 2, totalShards: 3 }] });
    // A repeated shard changes nothing.
    expect((await shard(id, 0, 3, [record('v-a', '2025-06-12', 4), record('v-b', '2025-06-12', 2)])).body.status).toBe('duplicate');
    const beyond = await shard(id, 3, 3, [record('v-a', '2025-06-12', 6)]);
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.details['metadata.shard_number']).toBeDefined();
    // That 400 forgot the nonce: it must be sent again, every shard.
    expect((await status()).incomplete).toEqual([]);
    for (const [i, data] of [[1, [record('v-c', '2025-06-12', 2)]], [0, [record('v-a', '2025-06-12', 4), record('v-b', '2025-06-12', 2)]]] as const) {
      expect((await shard(id, i, 3, [...data])).status).toBe(202);
    }
    expect((await shard(id, 2, 3, [record('v-a', '2025-06-12', 2)])).body).toEqual({ nonce: id, status: 'complete', receivedShards: 3, totalShards: 3 });
    expect(await status()).toMatchObject({ nonce: id, date: '2025-06-10T09:00:00.000Z', records: 4, venues: 3, incomplete: [] });
    const snap = await w.app.service.app.services.feed.snapshotAvailability(w.partnerId, 'v-a', '2025-06-12', 4);
    expect(snap).toMatchObject({ source: 'snapshot', nonce: id, duration: 5400 });
    expect(snap!.slots[1]).toEqual({ start: new Date((1_749_661_200 + 900) * 1000), totalSpots: 4, openSpots: 0, deposit: true, depositAmount: 1000, requiresCc: true });
    expect(await w.app.service.app.services.feed.snapshotAvailability(w.partnerId, 'rms-venue-1', '2025-06-11', 2)).toBeNull();
  });

  it('[BKG-21] a shard with a bad record → 400 naming the record index and field; nothing of the nonce is kept', async () => {
    const before = await status();
    const id = nonce();
    expect((await shard(id, 0, 2, [record('v-a', '2025-06-13', 2)])).status).toBe(202);
    const bad = await shard(id, 1, 2, [
      record('v-a', '2025-06-13', 4),
      { ...record('v-a', '2025-06-13', 0) },
      { ...record('v-b', '2025-02-30', 2) },
      { ...record('v-b', '2025-06-13', 2), slotData: [{ startSec: 1, totalSpots: 2, openSpots: '1', deposit: false, depositAmount: 0, requiresCc: false }] },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual({
      'data[1].partySize': [expect.any(String)],
      'data[2].date': [expect.any(String)],
      'data[3].slotData[0].openSpots': [expect.any(String)],
    });
    const after = await status();
    expect(after).toMatchObject({ nonce: before.nonce, records: before.records, incomplete: [] });
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rms_feed_staging WHERE nonce = ${id}`.execute(w.app.db.kysely);
    expect(rows[0]!.n).toBe(0);
  });

  it('[BKG-20] ids and nonces with backslashes, tabs, newlines and quotes are kept exactly as sent (the shard is bulk-loaded as COPY text)', async () => {
    const id = `${nonce()}\\tab\there`;
    const venue = 'v\\1\t"quoted"\nline\r\\N';
    const area = 'terrace\\N';
    const withArea = { ...record(venue, '2025-06-14', 2, 1_749_920_400), areaId: area, duration: null };
    expect((await shard(id, 1, 2, [withArea])).status).toBe(202);
    expect((await shard(id, 0, 2, [record(venue, '2025-06-14', 2, 1_749_920_400)])).body.status).toBe('complete');
    expect(await status()).toMatchObject({ nonce: id, records: 2, venues: 1 });
    const feed = w.app.service.app.services.feed;
    expect(await feed.snapshotAvailability(w.partnerId, venue, '2025-06-14', 2)).toMatchObject({ nonce: id, duration: 5400 });
    const inArea = await feed.snapshotAvailability(w.partnerId, venue, '2025-06-14', 2, area);
    expect(inArea).toMatchObject({ nonce: id, duration: null });
    expect(inArea!.slots[1]).toEqual({ start: new Date((1_749_920_400 + 900) * 1000), totalSpots: 4, openSpots: 0, deposit: true, depositAmount: 1000, requiresCc: true });
    expect(await feed.snapshotAvailability(w.partnerId, 'v\\1', '2025-06-14', 2)).toBeNull();
  });

  it('[BKG-20] a feed generated before the current snapshot, completing late, does not replace it; a feed left incomplete for a day is forgotten', async () => {
    const current = await status();
    const old = nonce();
    const late = await w.app.http.post('/v1/rms/availability-feed', { token: w.key, body: { metadata: { total_shards: 1, shard_number: 0, nonce: old, date: '2025-01-01T00:00:00Z' }, data: [record('v-z', '2025-06-12', 2)] } });
    expect(late.body).toMatchObject({ status: 'superseded', receivedShards: 1, totalShards: 1 });
    expect(await status()).toMatchObject({ nonce: current.nonce, records: current.records, incomplete: [] });

    const abandoned = nonce();
    expect((await shard(abandoned, 0, 2, [record('v-y', '2025-06-12', 2)])).status).toBe(202);
    await sql`UPDATE rms_feed_shards SET received_at = received_at - interval '25 hours' WHERE nonce = ${abandoned}`.execute(w.app.db.kysely);
    const fresh = nonce();
    expect((await shard(fresh, 0, 2, [record('v-x', '2025-06-12', 2)])).status).toBe(202);
    expect((await status()).incomplete).toEqual([{ nonce: fresh, receivedShards: 1, totalShards: 2 }]);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rms_feed_staging WHERE nonce = ${abandoned}`.execute(w.app.db.kysely);
    expect(rows[0]!.n).toBe(0);
    await shard(fresh, 1, 2, [record('v-x', '2025-06-12', 4)]);
  });

  it('[BKG-20] a feed without metadata.date that began before the current snapshot\'s and completes late does not replace it', async () => {
    const dateless = (id: string, shardNumber: number, total: number, data: unknown[]) =>
      w.app.http.post('/v1/rms/availability-feed', { token: w.key, body: { metadata: { total_shards: total, shard_number: shardNumber, nonce: id }, data } });
    const older = nonce();
    expect((await dateless(older, 0, 2, [record('v-old', '2025-06-12', 2)])).body.status).toBe('received');
    // Its first shard came a minute ago (not waiting for real time: the row says when it arrived).
    await sql`UPDATE rms_feed_shards SET received_at = received_at - interval '1 minute' WHERE nonce = ${older}`.execute(w.app.db.kysely);
    const newer = nonce();
    expect((await dateless(newer, 0, 1, [record('v-new', '2025-06-12', 2)])).body.status).toBe('complete');
    // The older feed's last shard arrives after the newer feed became the snapshot.
    expect((await dateless(older, 1, 2, [record('v-old', '2025-06-12', 4)])).body).toMatchObject({ status: 'superseded', receivedShards: 2 });
    expect(await status()).toMatchObject({ nonce: newer, date: null, records: 1, venues: 1, incomplete: [] });
    // A dateless feed begun after the snapshot's replaces it.
    const next = nonce();
    expect((await dateless(next, 0, 1, [record('v-next', '2025-06-12', 2)])).body.status).toBe('complete');
    expect(await status()).toMatchObject({ nonce: next, records: 1 });
  });

  it('bad metadata and bodies → 400 with details; a feed shard may exceed 1 MiB (other routes may not)', async () => {
    const noMeta = await w.app.http.post('/v1/rms/availability-feed', { token: w.key, body: { data: [] } });
    expect(noMeta.status).toBe(400);
    expect(noMeta.body.error.details.metadata).toBeDefined();
    expect((await shard(nonce(), -1, 1, [])).status).toBe(400);
    const mixed = nonce();
    await shard(mixed, 0, 2, []);
    const mismatch = await shard(mixed, 1, 3, []);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details['metadata.total_shards']).toBeDefined();

    const big = Array.from({ length: 6000 }, (_, i) => record(`big-${i % 200}`, '2025-06-14', 1 + (i % 10)));
    const id = nonce();
    const size = JSON.stringify(big).length;
    expect(size).toBeGreaterThan(1024 * 1024);
    expect((await shard(id, 0, 1, big)).status).toBe(202);
    expect(await status()).toMatchObject({ nonce: id, records: 6000, venues: 200 });
    const tooBigNotice = await w.app.http.post('/v1/rms/notifications', { token: w.key, body: { entity: 'booking', entityId: 'x', action: 'update', data: big } });
    expect(tooBigNotice.status).toBe(413);
  });
});

describe('availability of a venue: live, else the snapshot', () => {
  let w: RmsWorld;
  beforeAll(async () => {
    w = await startRmsWorld();
    await w.sim.control.setClock({ set: '2025-06-10T09:00:00Z', frozen: true });
  });
  afterAll(async () => w?.close());

  it('[BKG-09] a lookup without an area answers the venue-wide record only, never an area\'s', async () => {
    const feed = w.app.service.app.services.feed;
    const areaOnly = { ...record('v-areas', '2025-06-15', 2), areaId: 'terrace' };
    const res = await w.app.http.post('/v1/rms/availability-feed', { token: w.key, body: { metadata: { total_shards: 1, shard_number: 0, nonce: `areas-${process.pid}` }, data: [areaOnly] } });
    expect(res.body.status).toBe('complete');
    expect(await feed.snapshotAvailability(w.partnerId, 'v-areas', '2025-06-15', 2, 'terrace')).toMatchObject({ source: 'snapshot', duration: 5400 });
    expect(await feed.snapshotAvailability(w.partnerId, 'v-areas', '2025-06-15', 2)).toBeNull();
    expect(await feed.snapshotAvailability(w.partnerId, 'v-areas', '2025-06-15', 2, 'garden')).toBeNull();
  });

  it('[BKG-09] an RMS that does not answer within 1 s is served from the latest complete snapshot, marked "snapshot"', async () => {
    const availability = w.app.service.app.services.availability;
    const live = await availability.forVenue(w.venueId, '2025-06-11', 2);
    expect(live.source).toBe('live');
    expect(live.slots.length).toBeGreaterThan(0);
    // No snapshot yet: the RMS's failure is the answer (typed, for the caller to map).
    await w.sim.control.setFailures({ mode: 'hang', operations: ['availability'], count: 1 });
    expect(await availability.forVenue(w.venueId, '2025-06-11', 2).catch((e) => e)).toMatchObject({ kind: 'timeout' });
    await w.sim.control.pushFeed({ days: 1, startDate: '2025-06-11', venueIds: ['rms-venue-1'], partySizes: [2] });
    await w.sim.control.setFailures({ mode: 'hang', operations: ['availability'], count: 1 });
    const fallback = await availability.forVenue(w.venueId, '2025-06-11', 2);
    expect(fallback).toMatchObject({ source: 'snapshot', rmsVenueId: 'rms-venue-1', date: '2025-06-11', partySize: 2 });
    expect(fallback.slots).toEqual(live.slots);
    await w.sim.control.setFailures({ mode: 'error5xx', operations: ['availability'], count: 1 });
    expect((await availability.forVenue(w.venueId, '2025-06-11', 2)).source).toBe('snapshot');
    // A date the snapshot does not hold: the failure again.
    await w.sim.control.setFailures({ mode: 'garbage', operations: ['availability'], count: 1 });
    expect(await availability.forVenue(w.venueId, '2025-06-20', 2).catch((e) => e)).toMatchObject({ kind: 'bad_answer' });
  });

  it("[BKG-09] the 1 s counts from the caller's request's arrival: an RMS answering within 1 s of the call but not of the request is not live", async () => {
    const availability = w.app.service.app.services.availability;
    await w.sim.control.pushFeed({ days: 1, startDate: '2025-06-11', venueIds: ['rms-venue-1'], partySizes: [2] });
    // The RMS answers 500 ms after it is asked: within 1 s of a request that has just arrived...
    await w.sim.control.setFailures({ slowMs: 500, operations: ['availability'], count: 1 });
    expect((await availability.forVenue(w.venueId, '2025-06-11', 2)).source).toBe('live');
    // ...not of one that arrived 700 ms before the RMS was asked (waiting in the process behind others).
    await w.sim.control.setFailures({ slowMs: 500, operations: ['availability'], count: 1 });
    expect((await availability.forVenue(w.venueId, '2025-06-11', 2, null, Date.now() - 700)).source).toBe('snapshot');
  });
});
