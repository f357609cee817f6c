import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/db.ts';
import type { FeedService, SnapshotAvailability } from '../../src/rms/availability-feed.service.ts';
import { createAvailabilityService, MIN_LIVE_MS } from '../../src/rms/availability.service.ts';
import type { BookingServicesService } from '../../src/rms/booking-services.service.ts';
import type { Availability } from '../../src/rms/rms-client.fns.ts';
import { RmsError } from '../../src/rms/rms-client.ts';

// The live call and the snapshot's read of availability.service (DESIGN 8.2, BKG-09), over a fake
// RMS client whose answer the test releases and a fake feed that counts its reads: no server, no
// store, so the order of events is the test's, not the machine's. The path through a real RMS and
// both stores is test/rms/availability-feed.test.ts.

const start = new Date('2025-06-11T18:00:00Z');
const slot = (openSpots: number) => ({ start, totalSpots: 4, openSpots, deposit: false, depositAmount: 0, requiresCc: false });
const venue = { id: 'venue-1', ownerPartnerId: 'partner-1', externalId: 'rms-venue-1' };

function world(snapshotRead: () => Promise<SnapshotAvailability | null> = async () => ({ source: 'snapshot', nonce: 'n', completedAt: start, duration: 5400, slots: [slot(1)] }), limitMs = 40) {
  const settles: { resolve: (a: Availability) => void; reject: (e: unknown) => void }[] = [];
  let pending = false;
  const limits: number[] = [];
  const client = {
    // A short limit: the hedge fires at HEDGE_AT of it; the test, not the limit, ends the live call.
    availabilityTimeoutMs: limitMs,
    availability: (_q: unknown, limitMs: number) => {
      limits.push(limitMs);
      pending = true;
      return new Promise<Availability>((resolve, reject) => {
        settles.push({
          resolve: (a) => { pending = false; resolve(a); },
          reject: (e) => { pending = false; reject(e); },
        });
      });
    },
  };
  const reads: { whileLivePending: boolean }[] = [];
  const feed = {
    snapshotAvailability: () => {
      reads.push({ whileLivePending: pending });
      return snapshotRead();
    },
  } as unknown as FeedService;
  const bookingServices = { client: async () => client } as unknown as BookingServicesService;
  const service = createAvailabilityService({ db: {} as Db, bookingServices, feed });
  return { service, reads, limits, live: () => settles[settles.length - 1]!, lives: settles };
}

const liveAnswer: Availability = { venueId: 'rms-venue-1', date: '2025-06-11', partySize: 2, duration: 5400, slots: [slot(3)] };

describe("availability: the live call's limit counts from the request's arrival", () => {
  /** The limit the live call was given, for a request that arrived `agoMs` before the lookup. */
  async function limitGiven(agoMs: number): Promise<number | undefined> {
    const w = world(undefined, 1000);
    const answer = w.service.forRmsVenue(venue, '2025-06-11', 2, null, Date.now() - agoMs);
    await vi.waitFor(() => expect(w.limits).toHaveLength(1));
    w.live().resolve(liveAnswer);
    expect((await answer).source).toBe('live');
    return w.limits[0];
  }

  it('[BKG-09] the live call is given what is left of 1 s since the request arrived, and at least MIN_LIVE_MS', async () => {
    expect(await limitGiven(0)).toBeGreaterThan(600);
    expect(await limitGiven(600)).toBeLessThanOrEqual(400);
    expect(await limitGiven(600)).toBeGreaterThanOrEqual(MIN_LIVE_MS);
    expect(await limitGiven(5000)).toBe(MIN_LIVE_MS);
  });
});

describe('availability: the snapshot read while the live call runs (hedged)', () => {
  it('[BKG-09] the snapshot is read before the live call gives up, once, and answers when it does', async () => {
    const w = world();
    const answer = w.service.forRmsVenue(venue, '2025-06-11', 2);
    await vi.waitFor(() => expect(w.reads).toHaveLength(1));
    expect(w.reads[0]!.whileLivePending).toBe(true);
    w.live().reject(new RmsError('timeout', 'GET /availability: the RMS did not answer within 40 ms'));
    expect(await answer).toMatchObject({ source: 'snapshot', venueId: 'venue-1', rmsVenueId: 'rms-venue-1', slots: [slot(1)] });
    expect(w.reads).toHaveLength(1); // read once, not again after the failure
  });

  it('[BKG-09] a live answer arriving after the snapshot was read is the answer (a live answer is live)', async () => {
    const w = world();
    const answer = w.service.forRmsVenue(venue, '2025-06-11', 2);
    await vi.waitFor(() => expect(w.reads).toHaveLength(1));
    w.live().resolve(liveAnswer);
    expect(await answer).toMatchObject({ source: 'live', slots: [slot(3)] });
  });

  it('[BKG-09] a refusal arriving after the snapshot was read is the answer, not the snapshot', async () => {
    const w = world();
    const answer = w.service.forRmsVenue(venue, '2025-06-11', 2).catch((e) => e);
    await vi.waitFor(() => expect(w.reads).toHaveLength(1));
    w.live().reject(new RmsError('refused', 'GET /availability: the RMS refused: party_size_out_of_range', 402, 'party_size_out_of_range'));
    expect(await answer).toMatchObject({ kind: 'refused', code: 'party_size_out_of_range' });
  });

  it('[BKG-09] a snapshot read that failed is not seen while the live call answers; it is the error when the live call fails', async () => {
    const broken = new Error('the store is down');
    const ok = world(() => Promise.reject(broken));
    const answer = ok.service.forRmsVenue(venue, '2025-06-11', 2);
    await vi.waitFor(() => expect(ok.reads).toHaveLength(1));
    await new Promise((r) => setImmediate(r)); // the failed read settles first (no unhandled rejection)
    ok.live().resolve(liveAnswer);
    expect((await answer).source).toBe('live');

    const failed = world(() => Promise.reject(broken));
    const lost = failed.service.forRmsVenue(venue, '2025-06-11', 2).catch((e) => e);
    await vi.waitFor(() => expect(failed.reads).toHaveLength(1));
    await new Promise((r) => setImmediate(r));
    failed.live().reject(new RmsError('timeout', 'GET /availability: the RMS did not answer within 40 ms'));
    expect(await lost).toBe(broken);
  });
});

describe('availability: one snapshot read for the lookups that began before it', () => {
  const timeout = () => new RmsError('timeout', 'GET /availability: the RMS did not answer within 40 ms');

  it('[BKG-09] lookups of the same record that began together send one read and all answer from it', async () => {
    const w = world();
    const answers = [1, 2, 3].map(() => w.service.forRmsVenue(venue, '2025-06-11', 2));
    await vi.waitFor(() => expect(w.lives).toHaveLength(3));
    await new Promise((r) => setTimeout(r, 80)); // every hedge has fired
    expect(w.reads).toHaveLength(1);
    for (const l of w.lives) l.reject(timeout());
    for (const a of answers) expect(await a).toMatchObject({ source: 'snapshot', slots: [slot(1)] });
    expect(w.reads).toHaveLength(1);
  });

  it('[BKG-09] a lookup that began after a read began reads again; another record is read for itself', async () => {
    const w = world();
    const first = w.service.forRmsVenue(venue, '2025-06-11', 2);
    await vi.waitFor(() => expect(w.reads).toHaveLength(1));
    const later = w.service.forRmsVenue(venue, '2025-06-11', 2);
    const otherSize = w.service.forRmsVenue(venue, '2025-06-11', 4);
    await vi.waitFor(() => expect(w.reads).toHaveLength(3));
    for (const l of w.lives) l.reject(timeout());
    for (const a of [first, later, otherSize]) expect((await a).source).toBe('snapshot');
  });

  it('[BKG-09] a failed read is not handed to a lookup that began before it but needs the snapshot after it failed', async () => {
    let n = 0;
    const w = world(async () => {
      if (++n === 1) throw new Error('the store is down');
      return { source: 'snapshot', nonce: 'n', completedAt: start, duration: 5400, slots: [slot(2)] };
    });
    const failed = w.service.forRmsVenue(venue, '2025-06-11', 2).catch((e) => e);
    await new Promise((r) => setTimeout(r, 5));
    const next = w.service.forRmsVenue(venue, '2025-06-11', 2); // began before the first read (its hedge fires later)
    await vi.waitFor(() => expect(w.reads).toHaveLength(2));
    for (const l of w.lives) l.reject(timeout());
    expect(await failed).toMatchObject({ message: 'the store is down' });
    expect(await next).toMatchObject({ source: 'snapshot', slots: [slot(2)] });
  });
});
