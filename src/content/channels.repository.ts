import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { likeContains, type Page } from '../lib/pagination.ts';

export interface ChannelRow {
  id: string;
  name: string;
  logo: string | null;
}

export async function insertChannel(ex: Executor, row: ChannelRow, now: Date): Promise<void> {
  await sql`INSERT INTO booking_channels (id, name, logo, created_at)
            VALUES (${row.id}, ${row.name}, ${row.logo}, ${now})`.execute(ex);
}

const matching = (criteria?: string) =>
  criteria ? sql`WHERE name ILIKE ${likeContains(criteria)}` : sql``;

export async function listChannels(ex: Executor, criteria: string | undefined, page: Page): Promise<ChannelRow[]> {
  const { rows } = await sql<ChannelRow>`
    SELECT id, name, logo FROM booking_channels ${matching(criteria)}
    ORDER BY lower(name), id OFFSET ${page.offset} LIMIT ${page.limit}`.execute(ex);
  return rows;
}

export async function countChannels(ex: Executor, criteria: string | undefined): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM booking_channels ${matching(criteria)}`.execute(ex);
  return rows[0].n;
}

export async function channelExists(ex: Executor, id: string): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM booking_channels WHERE id = ${id}`.execute(ex);
  return rows.length > 0;
}

/** Makes the venues bookable through the channel; already linked ones stay as they are. */
export async function linkVenues(ex: Executor, channelId: string, venueIds: string[], now: Date): Promise<void> {
  if (venueIds.length === 0) return;
  await sql`INSERT INTO venue_booking_channels (channel_id, venue_id, linked_at)
    SELECT ${channelId}, v, ${now} FROM unnest(${venueIds}::uuid[]) AS v
    ON CONFLICT (channel_id, venue_id) DO NOTHING`.execute(ex);
}

/** Which of these venues the channel is already linked to. */
export async function linkedVenueIds(ex: Executor, channelId: string, venueIds: string[]): Promise<string[]> {
  if (venueIds.length === 0) return [];
  const { rows } = await sql<{ venueId: string }>`SELECT venue_id AS "venueId" FROM venue_booking_channels
    WHERE channel_id = ${channelId} AND venue_id = ANY(${venueIds}::uuid[])`.execute(ex);
  return rows.map((r) => r.venueId);
}

export async function unlinkVenues(ex: Executor, channelId: string, venueIds: string[]): Promise<void> {
  if (venueIds.length === 0) return;
  await sql`DELETE FROM venue_booking_channels WHERE channel_id = ${channelId} AND venue_id = ANY(${venueIds}::uuid[])`.execute(ex);
}
