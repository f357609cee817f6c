import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { rmsPartner } from '../content/builders.ts';

// The availability feed's shard body is read as it arrives, record by record, never parsed whole
// (issue 28): bad input is still a 4xx in the envelope that changes nothing, wherever it sits in the
// body, and a body is refused the moment it is known to be too large or not JSON.

const record = (venueId: string, partySize: number, i = 0) => ({
  venueId, date: '2025-06-12', partySize, duration: 5400,
  slotData: [{ startSec: 1_749_661_200 + i, totalSpots: 4, openSpots: 3, deposit: false, depositAmount: 0, requiresCc: false }],
});
const records = (n: number) => Array.from({ length: n }, (_, i) => record(`v-${i % 50}`, 1 + (i % 10), i));

describeEachStore('POST /v1/rms/availability-feed: the body read as a stream', (store) => {
  let app: TestApp;
  let key: string;
  let partnerId: string;
  let n = 0;
  const nonce = () => `stream-${process.pid}-${++n}`;
  const post = (body: unknown, headers: Record<string, string> = {}) => app.http.post('/v1/rms/availability-feed', { token: key, body, headers });
  const meta = (id: string, shard: number, total: number) => ({ total_shards: total, shard_number: shard, nonce: id });
  const status = async () => (await app.http.get('/v1/rms/availability-feed', { token: key })).body;
  const staged = async (id: string) =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM rms_feed_staging WHERE nonce = ${id}`.execute(app.db.kysely)).rows[0]!.n;

  beforeAll(async () => {
    app = await startTestApp({ store });
    ({ apiKey: key, partnerId } = await rmsPartner(app));
    // A snapshot to stay unchanged.
    expect((await post({ metadata: meta('first', 0, 1), data: records(3) })).body.status).toBe('complete');
  });
  afterAll(async () => app?.close());

  it('[BKG-21] an invalid record late in a large shard (5,990 of 6,000) → 400 naming it; nothing of the nonce is kept, the snapshot unchanged', async () => {
    const before = await status();
    const id = nonce();
    expect((await post({ metadata: meta(id, 0, 2), data: records(2) })).status).toBe(202);
    const data: unknown[] = records(6000);
    data[5990] = { ...record('v-late', 3), date: '2025-13-01' };
    data[5999] = { ...record('v-late', 3), slotData: 'none' };
    const bad = await post({ metadata: meta(id, 1, 2), data });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual({ 'data[5990].date': [expect.any(String)], 'data[5999].slotData': [expect.any(String)] });
    expect(bad.body.error.message).toContain(id);
    expect(await staged(id)).toBe(0);
    expect(await status()).toMatchObject({ nonce: before.nonce, records: before.records, incomplete: [] });
  });

  it('[BKG-20] metadata after data, whitespace and a byte order mark: the shard is taken as JSON.parse reads it', async () => {
    const id = nonce();
    const text = `\uFEFF \n{ "data" : [ ${records(3).map((r) => JSON.stringify(r, null, 1)).join(' ,\n')} ] ,\t"extra": {"a": [1, "]}"]}, "metadata": ${JSON.stringify(meta(id, 0, 1))} }\n`;
    const res = await post(text);
    expect(res.body).toEqual({ nonce: id, status: 'complete', receivedShards: 1, totalShards: 1 });
    expect(await status()).toMatchObject({ nonce: id, records: 3, venues: 3 });
    // metadata twice, around data: the last one counts, as JSON.parse has it.
    const first = nonce();
    const last = nonce();
    const twice = `{"metadata":${JSON.stringify(meta(first, 0, 1))},"data":${JSON.stringify(records(700))},"metadata":${JSON.stringify(meta(last, 0, 1))}}`;
    expect((await post(twice)).body).toEqual({ nonce: last, status: 'complete', receivedShards: 1, totalShards: 1 });
    expect(await status()).toMatchObject({ nonce: last, records: 700, venues: 50 });
    expect(await app.service.app.services.feed.snapshotAvailability(partnerId, 'v-7', '2025-06-12', 8)).toMatchObject({ nonce: last });
  });

  it('a shard whose COPY text fills more than one of its chunks (6,000 records) is stored record for record, as the same records in small shards are', async () => {
    // The records' COPY text is kept in chunks of the shard (a first one of 256 KiB, then large ones):
    // ~1.1 MiB here, so batches sit in two chunks and one may end where the next begins.
    const rows = async () =>
      (await sql<{ row: string }>`SELECT concat_ws('|', rms_venue_id, date::text, party_size, area_id, duration, slots::text) AS row
        FROM rms_availability WHERE partner_id = ${partnerId} ORDER BY rms_venue_id, party_size, slots::text`.execute(app.db.kysely)).rows.map((r) => r.row);
    const data = records(6000);
    const small = nonce();
    for (let s = 0; s < 20; s++) expect((await post({ metadata: meta(small, s, 20), data: data.slice(s * 300, (s + 1) * 300) })).status).toBe(202);
    const expected = await rows();
    expect(expected).toHaveLength(6000);
    // metadata first (the lines made whole), then after data (each line's prefix replaced).
    for (const body of [(id: string) => ({ metadata: meta(id, 0, 1), data }), (id: string) => `{"data":${JSON.stringify(data)},"metadata":${JSON.stringify(meta(id, 0, 1))}}`]) {
      const id = nonce();
      expect((await post(body(id))).body).toEqual({ nonce: id, status: 'complete', receivedShards: 1, totalShards: 1 });
      expect(await rows()).toEqual(expected);
    }
  });

  it('a truncated body → 400 "not valid JSON" in the envelope; an earlier shard of its nonce stays, nothing of this one is staged', async () => {
    const id = nonce();
    expect((await post({ metadata: meta(id, 0, 2), data: records(2) })).status).toBe(202);
    const whole = JSON.stringify({ metadata: meta(id, 1, 2), data: records(3000) });
    for (const cut of [whole.length - 1, Math.floor(whole.length / 2), 5]) {
      const res = await post(whole.slice(0, cut));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 400, message: 'The request body is not valid JSON.', details: null } });
    }
    const trailing = await post(`${whole} x`);
    expect(trailing.status).toBe(400);
    expect(await staged(id)).toBe(2);
    expect((await status()).incomplete).toEqual([{ nonce: id, receivedShards: 1, totalShards: 2 }]);
    const empty = await post('');
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/empty/);
    expect((await post('  ')).body.error.message).toBe('The request body is not valid JSON.');
  });

  it('a body of another content type → 415 in the envelope (a form is not a feed shard); nothing kept', async () => {
    const id = nonce();
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/xml']) {
      const res = await post(`metadata=${id}`, { 'content-type': type });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: { code: 415, message: expect.any(String), details: null } });
    }
    const json = await post({ metadata: meta(id, 0, 1), data: [] }, { 'content-type': 'application/json; charset=utf-8' });
    expect(json.body.status).toBe('complete');
  });

  it('a body over the 32 MiB limit → 413 in the envelope, whether its length is declared or it comes chunked; nothing kept', async () => {
    const before = await status();
    const id = nonce();
    const big = JSON.stringify({ metadata: meta(id, 0, 1), data: records(190_000) });
    expect(big.length).toBeGreaterThan(32 * 1024 * 1024);
    const declared = await post(big);
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ error: { code: 413, message: expect.stringMatching(/32 MiB/), details: null } });
    // No Content-Length: refused once 32 MiB have arrived.
    const chunks = Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) => big.slice(i * 65536, (i + 1) * 65536));
    const chunked = await request(`${app.url}/v1/rms/availability-feed`, {
      method: 'POST', dispatcher: app.http.dispatcher, body: Readable.from(chunks),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    expect(chunked.statusCode).toBe(413);
    expect(await chunked.body.json()).toEqual({ error: { code: 413, message: expect.stringMatching(/32 MiB/), details: null } });
    expect(await staged(id)).toBe(0);
    expect(await status()).toEqual(before);
  });

  it('[ERR-06] a NUL in a late record or in an ignored field → 400 naming the field; __proto__ → 400; nothing kept', async () => {
    const id = nonce();
    const data: unknown[] = records(2000);
    data[1999] = { ...record('v\u0000x', 2), note: 'a\u0000' };
    const res = await post({ metadata: meta(id, 0, 1), data, other: { 'k\u0000': 1 }, 't\u0000': 2 });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      'data[1999].venueId': ['must not contain a NUL character (U+0000)'],
      'data[1999].note': ['must not contain a NUL character (U+0000)'],
      'other.k\u0000': ['must not contain a NUL character (U+0000)'],
      't\u0000': ['must not contain a NUL character (U+0000)'],
    });
    const proto = await post(`{"metadata":${JSON.stringify(meta(id, 0, 1))},"data":[{"venueId":"a","__proto__":{"x":1}}]}`);
    expect(proto.status).toBe(400);
    expect(await staged(id)).toBe(0);
  });

  it('the body\'s schema as before: data not an array, too many records, bad metadata → 400 naming the field', async () => {
    const id = nonce();
    const notArray = await post({ metadata: meta(id, 0, 1), data: { venueId: 'x' } });
    expect(notArray.status).toBe(400);
    expect(notArray.body.error.details).toEqual({ data: ['must be an array'] });
    const tooMany = await post(`{"metadata":${JSON.stringify(meta(id, 0, 1))},"data":[${Array(200_001).fill('0').join(',')}]}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details).toEqual({ data: ['must have at most 200000 items'] });
    const noBody = await post([1]);
    expect(noBody.status).toBe(400);
    expect(noBody.body.error.details).toEqual({ body: ['must be an object'] });
    const badMeta = await post({ metadata: { ...meta(id, 0, 1), total_shards: 'one' }, data: records(1) });
    expect(badMeta.body.error.details).toEqual({ 'metadata.total_shards': ['must be an integer'] });
  });
});
