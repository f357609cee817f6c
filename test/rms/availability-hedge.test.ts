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
  let settle!: { resolve: (a: Availability) => void; reject: (e: unknown) => void };
  let pending = false;
  const limits: number[] = [];
  const client = {
    // A short limit: the hedge fires at HEDGE_AT of it; the test, not the limit, ends the live call.
    availabilityTimeoutMs: limitMs,
    availability: (_q: unknown, limitMs: number) => {
      limits.push(limitMs);
      pending = true;
      return new Promise<Availability>((resolve, reject) => {
        settle = {
          resolve: (a) => { pending = false; resolve(a); },
          reject: (e) => { pending = false; reject(e); },
        };
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
  return { service, reads, limits, live: () => settle };
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
