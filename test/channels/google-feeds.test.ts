import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordTexts } from '../../src/channels/google-feeds.fns.ts';
import { createFeedsService } from '../../src/channels/google-feeds.service.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { newVenue } from '../content/builders.ts';
import { jsonOf, runCli } from '../helpers/cli.ts';
import { describeEachStore } from '../helpers/db.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// Google's feeds of a google-v3 channel (DESIGN 8.4c), built from the RMS snapshot the reference RMS
// pushed over HTTPS: exported as files, checked by `tableside feeds validate`, served over HTTPS.

const NOW = '2025-06-10T09:00:00Z';

describeEachStore('channel feeds', (store) => {
  let w: ChannelWorld;
  let g: TestChannel;
  let third: string;
  beforeAll(async () => {
    w = await startChannelWorld({ app: { store, clock: new ManualClock(NOW) } });
    await w.sim.control.setClock({ set: NOW, frozen: true });
    g = await w.channel('google-v3', { name: 'Reserve with Google' });
    third = (await newVenue(w.app, w.key, { externalId: 'rms-venue-3', name: 'Quay Kitchen', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London', company: w.companyId })).id;
    const pushed = await w.sim.control.pushFeed({ days: 31, startDate: '2025-06-10', shardSize: 2000 });
    expect(pushed.shards.every((s) => s.status === 202)).toBe(true);
  });
  afterAll(async () => w?.close());

  it('[CHN-17] [CHN-18] [DES-111] [CHN-21] [CHN-19] export writes the three feeds, sharded under one nonce, linked venues only, 30 days; feeds validate accepts them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tableside-feeds-'));
    const result = await w.app.service.app.services.channelFeeds.export(g.id, dir, 500);
    expect(result.records).toBeGreaterThan(500);
    const names = (await readdir(dir)).sort();
    expect(names).toEqual(result.files.slice().sort());
    const docs = await Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8'))));
    const nonces = new Set(docs.map((d) => d.metadata.nonce));
    expect(nonces).toEqual(new Set([result.nonce]));
    expect(docs.every((d) => d.metadata.processing_instruction === 'PROCESS_AS_COMPLETE' && Number.isInteger(d.metadata.generation_timestamp))).toBe(true);
    const shards = docs.filter((d) => d.service_availability);
    expect(shards.length).toBeGreaterThan(1);
    expect(shards.every((d) => d.metadata.total_shards === shards.length && d.service_availability[0].availability.length <= 500)).toBe(true);
    const records = shards.flatMap((d) => d.service_availability[0].availability);
    expect(new Set(records.map((r: any) => r.merchant_id))).toEqual(new Set([w.venueId]));
    const t0 = Date.parse(NOW) / 1000;
    expect(records.every((r: any) => r.start_sec >= t0 && r.start_sec < t0 + 30 * 86_400 && r.spots_open >= 0 && r.spots_open <= r.spots_total && r.service_id === 'dining')).toBe(true);
    expect(Math.max(...records.map((r: any) => r.start_sec))).toBeGreaterThan(t0 + 28 * 86_400);
    expect(new Set(records.map((r: any) => `${r.start_sec}|${r.resources.party_size}`)).size).toBe(records.length);
    expect(docs.find((d) => d.merchant)!.merchant).toEqual([expect.objectContaining({ merchant_id: w.venueId, name: 'The Anchor' })]);

    const ok = await runCli(['feeds', 'validate', dir, '--json']);
    expect(ok.code).toBe(0);
    expect(jsonOf(ok).ok).toBe(true);
    const shard1 = names.find((n) => n.startsWith('availability-00001'))!;
    const { rm } = await import('node:fs/promises');
    await rm(join(dir, shard1));
    const bad = await runCli(['feeds', 'validate', dir, '--json']);
    expect(bad.code).not.toBe(0);
    expect(jsonOf(bad).rules.find((r: any) => r.id === 'FEED-SHARDS')).toMatchObject({ status: 'fail', detail: expect.stringContaining('missing shard 1') });
  });

  it("[CHN-20] GET /v1/feeds/{channelId}/availability serves the latest feed with the channel's Basic credentials; another channel's → 403", async () => {
    const res = await w.app.http.get(`/v1/feeds/${g.id}/availability`, { headers: { authorization: g.auth } });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toMatchObject({ processing_instruction: 'PROCESS_AS_COMPLETE', shard_number: 0, total_shards: 1 });
    expect(res.body.service_availability[0].availability.length).toBeGreaterThan(0);
    expect((await w.app.http.get(`/v1/feeds/${g.id}/merchants`, { headers: { authorization: g.auth } })).body.merchant[0].merchant_id).toBe(w.venueId);
    const other = await w.channel('google-v3');
    expect((await w.app.http.get(`/v1/feeds/${g.id}/availability`, { headers: { authorization: other.auth } })).status).toBe(403);
    const unauth = await w.app.http.get(`/v1/feeds/${g.id}/availability`);
    expect(unauth.status).toBe(401);
    expect(unauth.headers['www-authenticate']).toMatch(/^Basic/);
    expect((await w.app.http.get(`/v1/feeds/${g.id}/bookings`, { headers: { authorization: g.auth } })).status).toBe(400);
  });

  it('[BKG-45] [CHN-20] GET /v1/feeds/{channelId}/availability is streamed (chunked, no Content-Length), byte for byte the feed the export writes (its nonce aside)', async () => {
    const feeds = w.app.service.app.services.channelFeeds;
    const three = await w.channel('google-v3', { link: [w.venueId, w.otherVenueId, third] });
    const res = await w.app.http.get(`/v1/feeds/${three.id}/availability`, { headers: { authorization: three.auth } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const dir = mkdtempSync(join(tmpdir(), 'tableside-feeds-'));
    const exported = await feeds.export(three.id, dir, 1_000_000);
    const file = await readFile(join(dir, 'availability-00000-of-00001.json'), 'utf8');
    expect(res.body.service_availability[0].availability.length).toBe(exported.records);
    expect(new Set(res.body.service_availability[0].availability.map((r: any) => r.merchant_id))).toEqual(new Set([w.venueId, w.otherVenueId, third]));
    expect(res.text).toBe(file.replace(exported.nonce, res.body.metadata.nonce));
    // The catalogue feeds keep their bytes too.
    for (const kind of ['merchants', 'services']) {
      const served = await w.app.http.get(`/v1/feeds/${three.id}/${kind}`, { headers: { authorization: three.auth } });
      const written = await readFile(join(dir, `${kind}-00000-of-00001.json`), 'utf8');
      expect(served.text, kind).toBe(written.replace(exported.nonce, served.body.metadata.nonce));
    }
  });

  it('[CHN-18] [CHN-19] the export\'s shard count is the records it writes: a slot twice, an area, a party size over 10, slots outside 30 days', async () => {
    const venue = (await newVenue(w.app, w.key, { externalId: 'rms-venue-count', name: 'Counted', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London', company: w.companyId })).id;
    const t0 = Date.parse(NOW) / 1000;
    const slot = (startSec: number) => ({ startSec, totalSpots: 4, openSpots: 2, deposit: false, depositAmount: 0, requiresCc: false });
    const rows: Array<[string, number, string | null, number[]]> = [
      ['2025-06-11', 2, null, [t0 + 86_400, t0 + 86_400 + 900]],
      ['2025-06-12', 2, null, [t0 + 86_400, t0 + 2 * 86_400]], // t0 + 1 day at party size 2 again: kept once
      ['2025-06-11', 2, 'terrace', [t0 + 86_400 + 1800]], // an area's record: not in the feed
      ['2025-06-11', 12, null, [t0 + 86_400]], // over the 10 party sizes
      ['2025-06-10', 3, null, [t0 - 3600, t0, t0 + 30 * 86_400 - 1, t0 + 30 * 86_400]], // before now, now, the last second, past 30 days
    ];
    for (const [date, size, area, starts] of rows) {
      await sql`INSERT INTO rms_availability (partner_id, rms_venue_id, date, party_size, area_id, duration, slots)
        VALUES (${w.partnerId}, 'rms-venue-count', ${date}::date, ${size}, ${area}, 5400, ${JSON.stringify(starts.map(slot))}::jsonb)`.execute(w.app.db.kysely);
    }
    const counted = await w.channel('google-v3', { link: [venue] });
    const dir = mkdtempSync(join(tmpdir(), 'tableside-feeds-'));
    const result = await w.app.service.app.services.channelFeeds.export(counted.id, dir, 2);
    const shards = await Promise.all(result.files.filter((n) => n.startsWith('availability')).map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8'))));
    const written = shards.flatMap((d) => d.service_availability[0].availability);
    expect(written.map((r: any) => `${r.start_sec}|${r.resources.party_size}`).sort()).toEqual(
      [`${t0 + 86_400}|2`, `${t0 + 86_400 + 900}|2`, `${t0 + 2 * 86_400}|2`, `${t0}|3`, `${t0 + 30 * 86_400 - 1}|3`].sort(),
    );
    expect(result.records).toBe(5);
    expect(shards.every((d) => d.metadata.total_shards === 3)).toBe(true);
    const served = await w.app.http.get(`/v1/feeds/${counted.id}/availability`, { headers: { authorization: counted.auth } });
    expect(served.body.service_availability[0].availability).toHaveLength(5);
  });

  it('[CHN-18] [BKG-45] a venue read a batch of rows at a time: no record skipped nor repeated, two records of one date and party size across a batch boundary included', async () => {
    const venue = (await newVenue(w.app, w.key, { externalId: 'rms-venue-batches', name: 'Batched', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London', company: w.companyId })).id;
    const t0 = Date.parse(NOW) / 1000;
    // 99 records (9 dates x 10 party sizes, then party sizes 1-9 of a tenth date), then two of the tenth
    // date at party size 10: the 100th and 101st in the read order, one on each side of a batch of 100.
    const rows: Array<[number, number, number]> = [];
    for (let d = 1; d <= 10; d++) for (let p = 1; p <= 10; p++) rows.push([d, p, t0 + d * 86_400 + p * 60]);
    rows.push([10, 10, t0 + 10 * 86_400 + 3600]);
    for (const [d, p, start] of rows) {
      const date = new Date((t0 + d * 86_400) * 1000).toISOString().slice(0, 10);
      await sql`INSERT INTO rms_availability (partner_id, rms_venue_id, date, party_size, area_id, duration, slots)
        VALUES (${w.partnerId}, 'rms-venue-batches', ${date}::date, ${p}, NULL, 5400,
          ${JSON.stringify([{ startSec: start, totalSpots: 4, openSpots: 1, deposit: false, depositAmount: 0, requiresCc: false }])}::jsonb)`.execute(w.app.db.kysely);
    }
    const batched = await w.channel('google-v3', { link: [venue] });
    const dir = mkdtempSync(join(tmpdir(), 'tableside-feeds-'));
    const result = await w.app.service.app.services.channelFeeds.export(batched.id, dir, 30);
    const shards = await Promise.all(result.files.filter((n) => n.startsWith('availability')).map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8'))));
    const written = shards.flatMap((d) => d.service_availability[0].availability);
    expect(written.map((r: any) => `${r.start_sec}|${r.resources.party_size}`).sort()).toEqual(rows.map(([, p, start]) => `${start}|${p}`).sort());
    expect(result.records).toBe(101);
    expect(shards.map((d) => d.metadata.total_shards)).toEqual([4, 4, 4, 4]);
    expect((await readdir(dir)).filter((n) => !n.endsWith('.json')), 'no part file left').toEqual([]);
  });

  it('[CHN-18] [BKG-45] the records the export and GET write from the snapshot are recordTexts\' text byte for byte: a slot twice, slots out of order, spots below 0 and open over total, no duration, party sizes 0 and 11, slots outside 30 days, no slot', async () => {
    const venue = (await newVenue(w.app, w.key, { externalId: 'rms-venue-bytes', name: 'Bytes', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London', company: w.companyId })).id;
    const t0 = Date.parse(NOW) / 1000;
    const slot = (startSec: number, totalSpots: number, openSpots: number) => ({ startSec, totalSpots, openSpots, deposit: false, depositAmount: 0, requiresCc: false });
    const day = (d: number) => new Date((t0 + d * 86_400) * 1000).toISOString().slice(0, 10);
    // In the read order (date, party size, then as inserted).
    const rows: Array<{ date: string; partySize: number; duration: number | null; slots: ReturnType<typeof slot>[] }> = [
      { date: day(0), partySize: 0, duration: 5400, slots: [slot(t0 + 60, 4, 2)] },
      { date: day(0), partySize: 2, duration: null, slots: [slot(t0 + 7200, 4, 2), slot(t0 + 3600, -3, 1), slot(t0 - 60, 4, 4), slot(t0 + 5400, 2, 9), slot(t0 + 9000, 5, -2)] },
      { date: day(0), partySize: 2, duration: 0, slots: [slot(t0 + 3600, 9, 9), slot(t0 + 10_800, 2.5, 1)] },
      { date: day(0), partySize: 11, duration: 5400, slots: [slot(t0 + 60, 4, 2)] },
      { date: day(1), partySize: 2, duration: 5400, slots: [] },
      { date: day(1), partySize: 2, duration: 5400, slots: [slot(t0 + 86_400, 6, 6), slot(t0 + 7200, 1, 1), slot(t0 + 30 * 86_400 - 1, 1, 0), slot(t0 + 30 * 86_400, 1, 0)] },
      { date: day(1), partySize: 10, duration: 7200, slots: [slot(t0 + 86_400, 10, 3)] },
    ];
    for (const r of rows) {
      await sql`INSERT INTO rms_availability (partner_id, rms_venue_id, date, party_size, area_id, duration, slots)
        VALUES (${w.partnerId}, 'rms-venue-bytes', ${r.date}::date, ${r.partySize}, NULL, ${r.duration}, ${JSON.stringify(r.slots)}::jsonb)`.execute(w.app.db.kysely);
    }
    const linked = await w.channel('google-v3', { link: [venue] });
    const write = recordTexts({ id: venue, name: 'Bytes', city: null, countryCode: null, latitude: null, longitude: null, url: null, maxCovers: null }, t0, t0 + 30 * 86_400);
    const expected: string[] = [];
    for (const r of rows) write({ ...r, slots: r.slots.map((s) => ({ startSec: s.startSec, totalSpots: s.totalSpots, openSpots: s.openSpots })) }, expected);
    expect(expected).toHaveLength(8);

    const dir = mkdtempSync(join(tmpdir(), 'tableside-feeds-'));
    const result = await w.app.service.app.services.channelFeeds.export(linked.id, dir, 1000);
    const text = await readFile(join(dir, result.files.find((n) => n.startsWith('availability'))!), 'utf8');
    const body = (t: string) => t.slice(t.indexOf('"availability":[') + '"availability":['.length, t.length - ']}]}'.length);
    expect(body(text)).toBe(expected.join(','));
    const served = await w.app.http.get(`/v1/feeds/${linked.id}/availability`, { headers: { authorization: linked.auth } });
    expect(body(served.text)).toBe(expected.join(','));
  });

  it('[CHN-19] an RMS snapshot replaced while the export reads it: 409, no part file left (never a feed set of two snapshots)', async () => {
    const s = w.app.service.app.services;
    let batches = 0;
    const feeds = createFeedsService({
      db: w.app.db, clock: w.app.clock,
      feed: {
        // The real reader, except that from its second batch on it answers as a newer snapshot would.
        async *snapshotVenueBatches(partnerId, rmsVenueId, from, to, rows) {
          for await (const batch of s.feed.snapshotVenueBatches(partnerId, rmsVenueId, from, to, rows)) yield { ...batch, nonce: ++batches > 1 ? 'newer' : batch.nonce };
        },
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'tableside-feeds-'));
    await expect(feeds.export(g.id, dir, 100)).rejects.toMatchObject({ status: 409 });
    expect(batches).toBeGreaterThan(1);
    expect((await readdir(dir)).filter((n) => !n.endsWith('.json'))).toEqual([]);
  });

  it('[BKG-45] the availability feed is built as it is read: one venue\'s snapshot at a time, the later venues only once the reader has taken the first bytes', async () => {
    const s = w.app.service.app.services;
    const reads: string[] = [];
    // The real snapshot reader, with a note of each venue it is asked for.
    const feeds = createFeedsService({
      db: w.app.db, clock: w.app.clock,
      feed: {
        snapshotVenueBatches: (partnerId, rmsVenueId, from, to, rows) => { reads.push(rmsVenueId); return s.feed.snapshotVenueBatches(partnerId, rmsVenueId, from, to, rows); },
      },
    });
    const three = await w.channel('google-v3', { link: [w.venueId, w.otherVenueId, third] });
    const identity = { id: three.id, name: three.name, protocol: 'google-v3' as const };
    const stream = (await feeds.latest(identity, three.id, 'availability')) as unknown as Readable;
    expect(reads.length).toBeLessThan(3);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) {
      chunks.push(Buffer.from(chunk));
      if (chunks.length === 1) expect(reads.length, 'venues read when the first bytes were taken').toBeLessThan(3);
    }
    expect(reads.sort()).toEqual(['rms-venue-1', 'rms-venue-2', 'rms-venue-3']);
    const doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    expect(doc.service_availability[0].availability.length).toBeGreaterThan(1000);
  });
});
