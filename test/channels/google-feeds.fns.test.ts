import { describe, expect, it } from 'vitest';
import {
  availabilityDocument, availabilityFrame, availabilityOf, buildFeedSet, feedMetadata, recordTexts, validateFeedSet, type VenueRecords,
} from '../../src/channels/google-feeds.fns.ts';

// Building and checking Google feed sets (DESIGN 8.4c) without a database.

const NOW = new Date('2025-06-10T09:00:00Z');
const T0 = NOW.getTime() / 1000;
const venue = (id: string, maxCovers: number | null = null): VenueRecords['venue'] => ({ id, name: id, city: 'London', countryCode: 'GB', latitude: null, longitude: null, url: null, maxCovers });
const slots = (day: number, n: number) => Array.from({ length: n }, (_, i) => ({ startSec: T0 + day * 86_400 + i * 900, totalSpots: 4, openSpots: i % 5 }));
const input: VenueRecords[] = [
  { venue: venue('v1'), records: [1, 2, 12].flatMap((p) => [0, 1, 29, 30, 31].map((d) => ({ date: `d${d}`, partySize: p, duration: 5400, slots: slots(d, 3) }))) },
  { venue: venue('v2', 4), records: [2, 6].map((p) => ({ date: 'd2', partySize: p, duration: null, slots: slots(2, 2) })) },
];
const set = () => buildFeedSet(input, { nonce: 'n-1', now: NOW, shardSize: 5 }).map((f) => ({ name: f.name, document: JSON.parse(JSON.stringify(f.document)) }));
const availability = (s: ReturnType<typeof set>) => s.filter((f) => f.name.startsWith('availability')).flatMap((f) => f.document.service_availability[0].availability);

describe('feed sets', () => {
  it('[DES-111] [CHN-17] [CHN-18] every file is PROCESS_AS_COMPLETE under one nonce; one record per start x party size, 30 days ahead, party sizes capped by maxCovers', () => {
    const s = set();
    for (const f of s) {
      expect(f.document.metadata).toEqual({ processing_instruction: 'PROCESS_AS_COMPLETE', shard_number: expect.any(Number), total_shards: expect.any(Number), nonce: 'n-1', generation_timestamp: T0 });
    }
    const records = availability(s);
    // v1: party sizes 1 and 2 (12 is over the default 10), days 0, 1 and 29 (30 and 31 are past the horizon); v2: party size 2 only (maxCovers 4)
    expect(records).toHaveLength(2 * 3 * 3 + 2);
    expect(records.every((r) => r.start_sec >= T0 && r.start_sec < T0 + 30 * 86_400 && r.service_id === 'dining')).toBe(true);
    expect(new Set(records.map((r) => `${r.merchant_id}|${r.start_sec}|${r.resources.party_size}`)).size).toBe(records.length);
    expect(records.find((r) => r.merchant_id === 'v2')).toMatchObject({ duration_sec: 7200, spots_total: 4 });
    const shards = s.filter((f) => f.name.startsWith('availability'));
    expect(shards).toHaveLength(4);
    expect(shards.map((f) => f.document.metadata.shard_number)).toEqual([0, 1, 2, 3]);
    expect(validateFeedSet(s)).toMatchObject({ ok: true });
  });

  it('[CHN-19] validate names each fault: a missing shard, mixed nonces, spots_open > spots_total, a duplicate record', () => {
    const failing = (mutate: (s: ReturnType<typeof set>) => ReturnType<typeof set>) => validateFeedSet(mutate(set())).rules.filter((r) => r.status === 'fail');
    const missing = failing((s) => s.filter((f) => f.name !== 'availability-00002-of-00004.json'));
    expect(missing.map((r) => r.id)).toEqual(['FEED-SHARDS']);
    expect(missing[0]!.detail).toContain('missing shard 2 of 4');
    const mixed = failing((s) => { s[3]!.document.metadata.nonce = 'n-2'; return s; });
    expect(mixed.map((r) => r.id)).toEqual(['FEED-NONCE']);
    const spots = failing((s) => { s[2]!.document.service_availability[0].availability[1].spots_open = 9; return s; });
    expect(spots.map((r) => r.id)).toEqual(['FEED-SPOTS']);
    expect(spots[0]!.detail).toContain('record 1');
    const dup = failing((s) => { const a = s[2]!.document.service_availability[0].availability; a.push({ ...a[0] }); return s; });
    expect(dup.map((r) => r.id)).toEqual(['FEED-DUPLICATES']);
    const meta = failing((s) => { delete s[0]!.document.metadata.processing_instruction; return s; });
    expect(meta.map((r) => r.id)).toContain('FEED-METADATA');
    const far = failing((s) => { s[2]!.document.service_availability[0].availability[0].start_sec = T0 + 60 * 86_400; return s; });
    expect(far.map((r) => r.id)).toEqual(['FEED-HORIZON']);
  });
});

describe('[BKG-45] the availability feed written in pieces', () => {
  // Besides `input`: a slot time twice for one party size (on two dates and within one record, and
  // one earlier than the times before it), the same time at another size, spots below 0 and open over total, a venue id JSON must escape.
  const tricky: VenueRecords = {
    venue: venue('v"3\\', 3),
    records: [
      { date: 'd1', partySize: 2, duration: 0, slots: [...slots(1, 2), { startSec: T0 + 86_400, totalSpots: 9, openSpots: 1 }] },
      { date: 'd2', partySize: 2, duration: 5400, slots: [{ startSec: T0 + 86_400 + 900, totalSpots: -1, openSpots: 3 }, ...slots(2, 1), { startSec: T0 + 86_400 + 450, totalSpots: 3, openSpots: 3 }] },
      { date: 'd3', partySize: 2, duration: 5400, slots: [{ startSec: T0 + 86_400 + 450, totalSpots: 1, openSpots: 1 }, { startSec: T0, totalSpots: 1, openSpots: 1 }] },
      { date: 'd2', partySize: 3, duration: 5400, slots: [{ startSec: T0 + 86_400, totalSpots: 2, openSpots: 7 }, { startSec: T0 - 1, totalSpots: 2, openSpots: 1 }] },
      { date: 'd2', partySize: 0, duration: 5400, slots: slots(2, 1) },
    ],
  };
  const venues = [...input, tricky];
  const texts = (v: VenueRecords) => {
    const write = recordTexts(v.venue, T0, T0 + 30 * 86_400);
    const out: string[] = [];
    for (const r of v.records) write(r, out);
    return out;
  };

  it("recordTexts writes availabilityOf's records, each exactly its JSON.stringify, a snapshot record at a time", () => {
    for (const v of venues) expect(texts(v), v.venue.id).toEqual(availabilityOf(v, T0, T0 + 30 * 86_400).map((r) => JSON.stringify(r)));
    expect(texts(tricky)).toHaveLength(6);
  });

  it('head, the records\' texts separated by commas and tail are exactly JSON.stringify of the whole document', () => {
    const metadata = feedMetadata('n-1', T0, 0, 1);
    const records = venues.flatMap((v) => availabilityOf(v, T0, T0 + 30 * 86_400));
    const { head, tail } = availabilityFrame(metadata);
    expect(head + venues.flatMap(texts).join(',') + tail).toBe(JSON.stringify(availabilityDocument(metadata, records)));
    expect(head + tail).toBe(JSON.stringify(availabilityDocument(metadata, [])));
  });
});
