import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';

export interface AnalyticsVenueRow {
  id: string;
  name: string;
  country: string | null;
  timezone: string | null;
}

/** Venues in scope that analytics can serve now: those with an active POS connection (DESIGN 9). */
export async function listAnalyticsVenues(ex: Executor, partnerId: string, max: number): Promise<AnalyticsVenueRow[]> {
  const { rows } = await sql<AnalyticsVenueRow>`
    SELECT v.id, v.name, v.country_code AS country, v.timezone
    FROM partner_venues pv
    JOIN venues v ON v.id = pv.venue_id
    JOIN pos_connections c ON c.venue_id = v.id AND c.status = 'active'
    WHERE pv.partner_id = ${partnerId}
    ORDER BY lower(v.name), v.id
    LIMIT ${max}`.execute(ex);
  return rows;
}
