import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import type { Page } from '../lib/pagination.ts';

// SQL of the channel API (DESIGN 8.4a): the venues linked to a channel (spec 4.2) with what a
// channel booking needs of their company (spec 2.2), and the channel's bookings.

export interface LinkedVenue {
  id: string;
  name: string;
  city: string | null;
  countryCode: string | null;
  timezone: string | null;
  currency: string | null;
  latitude: number | null;
  longitude: number | null;
  url: string | null;
  minCovers: number;
  maxCovers: number | null;
}

const VENUE = sql`v.id, v.name, v.city, v.country_code AS "countryCode", v.timezone, v.currency, v.latitude, v.longitude,
  v.url, v.min_covers AS "minCovers", v.max_covers AS "maxCovers"`;

export async function listLinkedVenues(ex: Executor, channelId: string, page: Page): Promise<LinkedVenue[]> {
  const { rows } = await sql<LinkedVenue>`SELECT ${VENUE} FROM venue_booking_channels l JOIN venues v ON v.id = l.venue_id
    WHERE l.channel_id = ${channelId} ORDER BY lower(v.name), v.id OFFSET ${page.offset} LIMIT ${page.limit}`.execute(ex);
  return rows;
}

export async function countLinkedVenues(ex: Executor, channelId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM venue_booking_channels WHERE channel_id = ${channelId}`.execute(ex);
  return rows[0]?.n ?? 0;
}

/**
 * What a channel request needs of a venue: its link to the channel, what its RMS knows it by, and
 * its company's booking settings. Kept per process under the credential cache's epoch (issue 28), so
 * it holds only columns whose every change bumps the epoch (migration 027): add one there too.
 */
export interface BookableVenue {
  id: string;
  timezone: string | null;
  currency: string | null;
  linked: boolean;
  ownerPartnerId: string | null;
  externalId: string | null;
  minAdvanceBooking: number;
  minAdvanceBookingCancelling: number;
  includeSourceInNotes: boolean;
}

/** A venue with its link to the channel and its company's booking settings, and the credential epoch read with them; null when it does not exist. */
export async function bookableVenue(ex: Executor, channelId: string, venueId: string): Promise<(BookableVenue & { auth_epoch: string }) | null> {
  const { rows } = await sql<BookableVenue & { auth_epoch: string }>`SELECT v.id, v.timezone, v.currency,
      EXISTS (SELECT 1 FROM venue_booking_channels l WHERE l.channel_id = ${channelId} AND l.venue_id = v.id) AS linked,
      v.owner_partner_id AS "ownerPartnerId", v.external_id AS "externalId",
      coalesce(c.min_advance_booking, 0) AS "minAdvanceBooking",
      coalesce(c.min_advance_booking_cancelling, 0) AS "minAdvanceBookingCancelling",
      coalesce(c.include_source_in_notes, false) AS "includeSourceInNotes",
      (SELECT epoch FROM auth_epoch) AS auth_epoch
    FROM venues v LEFT JOIN companies c ON c.id = v.company_id WHERE v.id = ${venueId}`.execute(ex);
  return rows[0] ?? null;
}

/** The channel's bookings, newest first (Tableside ids; the bookings service reads each). */
export async function channelBookingIds(ex: Executor, channelId: string, opts: { venueId?: string; limit: number }): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM bookings WHERE channel_id = ${channelId} AND sync = 'created'
    ${opts.venueId ? sql`AND venue_id = ${opts.venueId}` : sql``} ORDER BY created_at DESC, id DESC LIMIT ${opts.limit}`.execute(ex);
  return rows.map((r) => r.id);
}

/** The idempotency key of each of the channel's bookings (v3 keeps Google's user id in it). */
export async function bookingKey(ex: Executor, channelId: string, bookingId: string): Promise<string | null> {
  const { rows } = await sql<{ idempotency_key: string }>`SELECT idempotency_key FROM bookings
    WHERE id = ${bookingId} AND channel_id = ${channelId}`.execute(ex);
  return rows[0]?.idempotency_key ?? null;
}

/** The channel's created bookings whose idempotency key starts with `prefix`, newest first. */
export async function bookingIdsByKeyPrefix(ex: Executor, channelId: string, prefix: string, limit: number): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM bookings WHERE channel_id = ${channelId} AND sync = 'created'
    AND starts_with(idempotency_key, ${prefix}) ORDER BY created_at DESC, id DESC LIMIT ${limit}`.execute(ex);
  return rows.map((r) => r.id);
}

export interface FeedVenueRow extends LinkedVenue { ownerPartnerId: string | null; externalId: string | null }

/** Every venue linked to the channel, with what its feeds need. */
export async function allLinkedVenues(ex: Executor, channelId: string): Promise<FeedVenueRow[]> {
  const { rows } = await sql<FeedVenueRow>`SELECT ${VENUE}, v.owner_partner_id AS "ownerPartnerId", v.external_id AS "externalId"
    FROM venue_booking_channels l JOIN venues v ON v.id = l.venue_id WHERE l.channel_id = ${channelId} ORDER BY v.id`.execute(ex);
  return rows;
}
