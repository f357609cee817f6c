import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { HttpClient } from '../helpers/http.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// Issue 28: a channel's availability lookup asks the RMS at the same time as it reads the venue with
// its link, for a venue this process has already answered for that channel (its RMS venue and time
// zone kept in memory). The read still decides: the RMS's answer is used only if the venue is linked
// to the channel now and names the same RMS venue and time zone; otherwise it is dropped and the
// request is refused, or asked again as before. So an unlink is refused by every process once it
// returns, and every fault of the RMS gives the answer the one-after-the-other path gave.

const date = '2025-06-11';
const slotTimes = (startSec: number) =>
  Array.from({ length: 3 }, (_, i) => ({ service_id: 'dining', start_sec: String(startSec + i * 900), duration_sec: '5400', resource_ids: { party_size: 2 } }));

describeEachStore('availability asked while the venue and its link are read', (kind) => {
  let w: ChannelWorld;
  let second: TestApp;
  let http2: HttpClient;
  beforeAll(async () => {
    w = await startChannelWorld({ app: { store: kind } });
    // A second instance of the service on the same database: its own memory, the same rows.
    second = await startTestApp({ db: w.app.db, env: { ALLOW_PRIVATE_TARGETS: '1' } });
    second.service.app.services.rmsClients.trust(w.sim.ca);
    http2 = second.http;
  });
  afterAll(async () => {
    await second?.close();
    await w?.close();
  });

  const bc = (http: HttpClient, ch: TestChannel, venueId = w.venueId, on = date) =>
    http.get(`/v1/bc/venues/${venueId}/availability`, { query: { date: on, partySize: '2' }, headers: { authorization: ch.auth } });
  const v3 = (http: HttpClient, ch: TestChannel, venueId = w.venueId) =>
    http.post('/v3/BatchAvailabilityLookup', { body: { merchant_id: venueId, slot_time: slotTimes(Date.parse(`${date}T18:00:00Z`) / 1000) }, headers: { authorization: ch.auth } });
  const asked = async () => (await w.sim.control.requests({ operation: 'availability' })).length;

  /** Holds the venue's link read (a lock on the links) until `release`; the RMS is asked meanwhile or not. */
  async function whileLinksLocked<T>(during: () => Promise<T>): Promise<T> {
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const held = w.app.db.kysely.transaction().execute(async (tx) => {
      await sql`LOCK TABLE venue_booking_channels IN ACCESS EXCLUSIVE MODE`.execute(tx);
      locked();
      await new Promise<void>((r) => (release = r));
    });
    await isLocked;
    try {
      return await during();
    } finally {
      release();
      await held;
    }
  }

  it('[CHN-04] [BKG-09] /v1/bc: the second lookup of a venue asks the RMS before the link read returns, and answers live once it says linked', async () => {
    const ch = await w.channel('tableside');
    expect((await bc(w.app.http, ch)).body.source).toBe('live');
    const before = await asked();
    const answer = await whileLinksLocked(async () => {
      const pending = bc(w.app.http, ch);
      await vi.waitFor(async () => expect(await asked()).toBe(before + 1), { timeout: 10_000, interval: 20 });
      return { pending }; // not the promise itself: awaiting it here would wait for the lock's release
    }).then((r) => r.pending);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ venueId: w.venueId, source: 'live' });
    expect(await asked()).toBe(before + 1);
  });

  it('[CHN-12] [BKG-09] /v3: the second BatchAvailabilityLookup asks the RMS before the link read returns, and answers from it once it says linked', async () => {
    const ch = await w.channel('google-v3');
    expect((await v3(w.app.http, ch)).status).toBe(200);
    const before = await asked();
    const answer = await whileLinksLocked(async () => {
      const pending = v3(w.app.http, ch);
      await vi.waitFor(async () => expect(await asked()).toBe(before + 1), { timeout: 10_000, interval: 20 });
      return { pending }; // not the promise itself: awaiting it here would wait for the lock's release
    }).then((r) => r.pending);
    expect(answer.status).toBe(200);
    expect(answer.body.slot_time_availability).toHaveLength(3);
    expect(await asked()).toBe(before + 1);
  });

  it('[CHN-02] a venue unlinked through one instance is refused by both once the unlink returns, though each had just answered it (their RMS answers are dropped)', async () => {
    const own = await w.channel('tableside');
    const google = await w.channel('google-v3');
    for (const http of [w.app.http, http2]) {
      for (let i = 0; i < 2; i++) {
        expect((await bc(http, own)).status).toBe(200);
        expect((await v3(http, google)).status).toBe(200);
      }
    }
    for (const ch of [own, google]) {
      const res = await w.app.http.put(`/v1/rms/booking-channels/${ch.id}/unlink-venues`, { token: w.key, body: { venues: [w.venueId] } });
      expect(res.status).toBe(200);
    }
    for (const http of [http2, w.app.http]) {
      for (let i = 0; i < 2; i++) {
        expect((await bc(http, own)).status).toBe(403);
        expect((await v3(http, google)).status).toBe(403);
      }
    }
  });

  it('[CHN-02] [CHN-04] a venue whose RMS venue changed is answered as the read says, not as remembered', async () => {
    const ch = await w.channel('tableside', { link: [w.venueId, w.otherVenueId] });
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const first = (await bc(w.app.http, ch, w.venueId, later)).body.slots;
    expect(first.length).toBeGreaterThan(0);
    const other = await bc(w.app.http, ch, w.otherVenueId, later);
    expect(other.body.source).toBe('live');
    expect(other.body.slots).not.toEqual(first);
    // The other venue now names rms-venue-1 at the RMS (an RMS venue id is the partner's to change).
    const rename = (a: string, b: string) => w.app.db.kysely.transaction().execute(async (tx) => {
      await sql`UPDATE venues SET external_id = 'renamed' WHERE id = ${w.venueId}`.execute(tx);
      await sql`UPDATE venues SET external_id = ${a} WHERE id = ${w.otherVenueId}`.execute(tx);
      await sql`UPDATE venues SET external_id = ${b} WHERE id = ${w.venueId}`.execute(tx);
    });
    await rename('rms-venue-1', 'rms-venue-2');
    try {
      const res = await bc(w.app.http, ch, w.otherVenueId, later);
      expect(res.status).toBe(200);
      expect(res.body.slots).toEqual(first);
    } finally {
      await rename('rms-venue-2', 'rms-venue-1');
    }
  });

  describe('faults of the RMS on the second lookup give what the first lookup gave (the path asked one after the other)', () => {
    const faults = [
      ['the RMS answers 429', { mode: 'status', status: 429 }],
      ['the RMS answers a 2xx body that is not the contract (garbage)', { mode: 'garbage' }],
      ['the RMS answers 503', { mode: 'error5xx' }],
    ] as const;
    for (const [name, knobs] of faults) {
      it(`[CHN-09] [BKG-09] ${name}: /v1/bc 402 rms_unavailable and /v3 all unavailable, the first and the second time alike`, async () => {
        const own = await w.channel('tableside');
        const google = await w.channel('google-v3');
        // Remembered while the RMS is well.
        expect((await bc(w.app.http, own)).status).toBe(200);
        expect((await v3(w.app.http, google)).status).toBe(200);
        await w.sim.control.setFailures({ ...knobs, operations: ['availability'] });
        try {
          const seen = [];
          for (const http of [http2, w.app.http]) {
            // http2 has not answered these channels yet (one after the other); w.app has (at once).
            const a = await bc(http, own);
            const b = await v3(http, google);
            seen.push({ status: a.status, code: a.body?.error?.details?.code, v3: b.status, available: b.body.slot_time_availability?.map((s: any) => s.available) });
          }
          expect(seen[1]).toEqual(seen[0]);
          expect(seen[0]).toEqual({ status: 402, code: 'rms_unavailable', v3: 200, available: [false, false, false] });
        } finally {
          await w.sim.control.setFailures({ mode: 'none', operations: null });
        }
      });
    }

    it('[BKG-09] the RMS times out after answering (act-then-hang): the same answer as the path asked one after the other', async () => {
      const own = await w.channel('tableside');
      expect((await bc(w.app.http, own)).status).toBe(200);
      await w.sim.control.setFailures({ mode: 'act-then-hang', operations: ['availability'] });
      try {
        const first = await bc(http2, own);
        const second = await bc(w.app.http, own);
        expect({ status: second.status, code: second.body?.error?.details?.code, source: second.body?.source })
          .toEqual({ status: first.status, code: first.body?.error?.details?.code, source: first.body?.source });
      } finally {
        await w.sim.control.setFailures({ mode: 'none', operations: null });
      }
    });
  });
});
