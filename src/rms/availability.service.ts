import type { Db } from '../db/db.ts';
import type { BookingServicesService } from './booking-services.service.ts';
import type { FeedService, SnapshotAvailability } from './availability-feed.service.ts';
import { RmsError } from './rms-client.ts';
import type { Slot } from './rms-client.fns.ts';
import { findRmsVenue, notAnRmsVenue, rmsOf, type RmsOfVenue } from './venues.service.ts';

// Availability of a Tableside venue (DESIGN 8.2, BKG-09): asked live from its RMS with the 1 s
// limit; when the RMS fails or is slower, the latest complete feed snapshot (8.3b) answers, marked
// source "snapshot". With neither, the RMS's error is thrown (the caller maps it; never a 5xx).

/** The share of the live call's limit after which the snapshot is read, in case the live call fails. */
export const HEDGE_AT = 0.75;

/**
 * The least a live call is given when its caller's request waited so long in the process that less
 * is left of the 1 s: a healthy RMS still gets to answer live on a stalled process.
 */
export const MIN_LIVE_MS = 250;

export interface VenueAvailability {
  source: 'live' | 'snapshot';
  venueId: string;
  rmsVenueId: string;
  date: string;
  partySize: number;
  duration: number | null;
  slots: Slot[];
}

export function createAvailabilityService(deps: { db: Db; bookingServices: BookingServicesService; feed: FeedService }) {
  const { db, bookingServices, feed } = deps;
  const reads = sharedReads();

  async function ask(venueId: string, rms: RmsOfVenue, date: string, partySize: number, areaId: string | null, arrivedAt: number): Promise<VenueAvailability> {
    const { partnerId, rmsVenueId } = rms;
    const base = { venueId, rmsVenueId, date, partySize };
    const client = await bookingServices.client(partnerId);
    if (!client) throw new RmsError('not_connected', 'The RMS partner has not connected its booking services.');
    // The 1 s counts from the caller's request's arrival, not from here (issue 28): a lookup that
    // waited in the process behind others (a wave of them arriving together) would otherwise
    // answer its caller that much later than the limit.
    const full = client.availabilityTimeoutMs;
    const limitMs = Math.max(Math.min(MIN_LIVE_MS, full), Math.round(full - (Date.now() - arrivedAt)));
    // A hedged read: the snapshot is read while the live call still has a quarter of its limit, so
    // it is at hand when the limit fires instead of read after it (issue 28: 32 lookups whose RMS hung
    // all read it at the same moment, in turn, on a busy machine). It is only used if the live call
    // fails: a live answer, even one arriving after the read, is the answer. The record read up to
    // a quarter of a second earlier is the same complete snapshot (swapped whole, in one transaction).
    const since = performance.now();
    let read: Promise<SnapshotAvailability | null> | undefined;
    const snapshot = () => (read ??= reads.since(since, [partnerId, rmsVenueId, date, partySize, areaId], full, () =>
      feed.snapshotAvailability(partnerId, rmsVenueId, date, partySize, areaId)));
    // A read that fails while the live call goes on is dropped here, and thrown below if it is needed.
    const hedge = setTimeout(() => void snapshot().catch(() => undefined), limitMs * HEDGE_AT);
    try {
      const live = await client.availability({ venueId: rmsVenueId, date, partySize, areaId }, limitMs);
      return { source: 'live', ...base, duration: live.duration, slots: live.slots };
    } catch (err) {
      // A refusal is an answer, not an outage: only failures fall back to the snapshot.
      if (!(err instanceof RmsError) || err.kind === 'refused') throw err;
      const snap = await snapshot();
      if (!snap) throw err;
      return { source: 'snapshot', ...base, duration: snap.duration, slots: snap.slots };
    } finally {
      clearTimeout(hedge);
    }
  }

  return {
    /** `arrivedAt`: when the caller's request arrived (ms since the epoch); the live call's 1 s counts from there. */
    async forVenue(venueId: string, date: string, partySize: number, areaId: string | null = null, arrivedAt = Date.now()): Promise<VenueAvailability> {
      return ask(venueId, await findRmsVenue(db.kysely, venueId), date, partySize, areaId, arrivedAt);
    },

    /**
     * The same for a venue its caller has just read (its owner partner and externalId): no second
     * read of the venue before the RMS is asked (issue 28: a channel's lookup reads it with its link).
     */
    async forRmsVenue(venue: { id: string; ownerPartnerId: string | null; externalId: string | null }, date: string, partySize: number, areaId: string | null = null, arrivedAt = Date.now()) {
      const rms = rmsOf(venue);
      if (!rms) throw notAnRmsVenue();
      return ask(venue.id, rms, date, partySize, areaId, arrivedAt);
    },
  };
}

export type AvailabilityService = ReturnType<typeof createAvailabilityService>;

/**
 * The latest snapshot read of each record, handed to the lookups that began before that read did
 * (issue 28: a wave of 32 lookups to a hanging RMS sent 32 statements for the same record, each one
 * CPU of the serve and of PostgreSQL on the same two cores). A read begun after a lookup began is as
 * fresh for it as a read of its own would be (the snapshot is swapped whole); one begun before it is
 * never used by it. A failed read is handed to no later lookup. An entry is forgotten once the
 * lookups that could use it have given up on the RMS (a limit after it began). Callers read the
 * record and never change it: the lookups of a wave share one object.
 */
function sharedReads() {
  const latest = new Map<string, { at: number; read: Promise<SnapshotAvailability | null> }>();
  return {
    /** `since`: when the lookup began (performance.now()); `keepMs`: how long the read may serve others. */
    since(since: number, record: unknown[], keepMs: number, readNow: () => Promise<SnapshotAvailability | null>) {
      const key = JSON.stringify(record);
      const last = latest.get(key);
      if (last && last.at >= since) return last.read;
      const entry = { at: performance.now(), read: readNow() };
      latest.set(key, entry);
      const forget = () => {
        if (latest.get(key) === entry) latest.delete(key);
      };
      entry.read.catch(forget);
      setTimeout(forget, keepMs).unref();
      return entry.read;
    },
  };
}
