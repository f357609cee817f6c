import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';

// The venue an RMS names by its own id (DESIGN 8: `venueId` in 8.3 is the venue's externalId).

export interface RmsVenueRow {
  id: string;
  owner_partner_id: string;
}

/** The partner's venue with this externalId, or null. */
export async function findOwnVenue(ex: Executor, partnerId: string, externalId: string): Promise<RmsVenueRow | null> {
  const { rows } = await sql<RmsVenueRow>`
    SELECT id, owner_partner_id FROM venues WHERE owner_partner_id = ${partnerId} AND external_id = ${externalId}`.execute(ex);
  return rows[0] ?? null;
}

/** Whether another partner has a venue with this externalId (then the answer is 403, not 404). */
export async function othersHave(ex: Executor, partnerId: string, externalId: string): Promise<boolean> {
  const { rows } = await sql<{ found: number }>`
    SELECT 1 AS found FROM venues WHERE external_id = ${externalId} AND owner_partner_id <> ${partnerId} LIMIT 1`.execute(ex);
  return rows.length > 0;
}
