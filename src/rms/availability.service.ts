import type { Db } from '../db/db.ts';
import type { BookingServicesService } from './booking-services.service.ts';
import type { FeedService } from './availability-feed.service.ts';
import { RmsError } from './rms-client.ts';
import type { Slot } from './rms-client.fns.ts';
import { findRmsVenue, notAnRmsVenue, rmsOf, type RmsOfVenue } from './venues.service.ts';

// Availability of a Tableside venue (DESIGN 8.2, BKG-09): asked live from its RMS with the 1 s
// limit; when the RMS fails or is slower, the latest complete feed snapshot (8.3b) answers, marked
// source "snapshot". With neither, the RMS's error is thrown (the caller maps it; never a 5xx).

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

  async function ask(venueId: string, rms: RmsOfVenue, date: string, partySize: number, areaId: string | null): Promise<VenueAvailability> {
    const { partnerId, rmsVenueId } = rms;
    const base = { venueId, rmsVenueId, date, partySize };
    const client = await bookingServices.client(partnerId);
    if (!client) throw new RmsError('not_connected', 'The RMS partner has not connected its booking services.');
    try {
      const live = await client.availability({ venueId: rmsVenueId, date, partySize, areaId });
      return { source: 'live', ...base, duration: live.duration, slots: live.slots };
    } catch (err) {
      // A refusal is an answer, not an outage: only failures fall back to the snapshot.
      if (!(err instanceof RmsError) || err.kind === 'refused') throw err;
      const snap = await feed.snapshotAvailability(partnerId, rmsVenueId, date, partySize, areaId);
      if (!snap) throw err;
      return { source: 'snapshot', ...base, duration: snap.duration, slots: snap.slots };
    }
  }

  return {
    async forVenue(venueId: string, date: string, partySize: number, areaId: string | null = null): Promise<VenueAvailability> {
      return ask(venueId, await findRmsVenue(db.kysely, venueId), date, partySize, areaId);
    },

    /**
     * The same for a venue its caller has just read (its owner partner and externalId): no second
     * read of the venue before the RMS is asked (issue 28: a channel's lookup reads it with its link).
     */
    async forRmsVenue(venue: { id: string; ownerPartnerId: string | null; externalId: string | null }, date: string, partySize: number, areaId: string | null = null) {
      const rms = rmsOf(venue);
      if (!rms) throw notAnRmsVenue();
      return ask(venue.id, rms, date, partySize, areaId);
    },
  };
}

export type AvailabilityService = ReturnType<typeof createAvailabilityService>;
