import type { Executor } from '../db/db.ts';
import { AppError, notFound } from '../lib/errors.ts';
import { findVenue } from './venues.repository.ts';

// Where a Tableside venue is booked (DESIGN 8): through its owner partner's booking services, as
// the RMS venue its externalId names. A venue without both is no RMS's: it has no availability and
// takes no bookings.

export interface RmsOfVenue { partnerId: string; rmsVenueId: string }

/** The RMS partner and RMS venue id of a venue; null when no RMS holds it. */
export function rmsOf(venue: { ownerPartnerId: string | null; externalId: string | null }): RmsOfVenue | null {
  return venue.ownerPartnerId && venue.externalId ? { partnerId: venue.ownerPartnerId, rmsVenueId: venue.externalId } : null;
}

export const notAnRmsVenue = () =>
  new AppError('unprocessable', 'This venue is not an RMS venue (no RMS partner or externalId): it has no availability and takes no bookings.');

/** The venue with its RMS: 404 when it does not exist, 422 when no RMS holds it. */
export async function findRmsVenue(ex: Executor, venueId: string): Promise<{ id: string } & RmsOfVenue> {
  const venue = await findVenue(ex, venueId);
  if (!venue) throw notFound(`Venue ${venueId} not found.`);
  const rms = rmsOf(venue);
  if (!rms) throw notAnRmsVenue();
  return { id: venue.id, ...rms };
}
