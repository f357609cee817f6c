import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';

// SQL of the venues the RMS side books (DESIGN 8): who owns a content venue and its externalId.

export interface VenueOwnership { id: string; ownerPartnerId: string | null; externalId: string | null }

export async function findVenue(ex: Executor, venueId: string): Promise<VenueOwnership | null> {
  const { rows } = await sql<{ id: string; owner_partner_id: string | null; external_id: string | null }>`
    SELECT id, owner_partner_id, external_id FROM venues WHERE id = ${venueId}`.execute(ex);
  const r = rows[0];
  return r ? { id: r.id, ownerPartnerId: r.owner_partner_id, externalId: r.external_id } : null;
}
