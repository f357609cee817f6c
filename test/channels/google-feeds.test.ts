import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { jsonOf, runCli } from '../helpers/cli.ts';
import { describeEachStore } from '../helpers/db.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// Google's feeds of a google-v3 channel (DESIGN 8.4c), built from the RMS snapshot the reference RMS
// pushed over HTTPS: exported as files, checked by `tableside feeds validate`, served over HTTPS.

const NOW = '2025-06-10T09:00:00Z';

describeEachStore('channel feeds', (store) => {
  let w: ChannelWorld;
  let g: TestChannel;
  beforeAll(async () => {
    w = await startChannelWorld({ app: { store, clock: new ManualClock(NOW) } });
    await w.sim.control.setClock({ set: NOW, frozen: true });
    g = await w.channel('google-v3', { name: 'Reserve with Google' });
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
});
