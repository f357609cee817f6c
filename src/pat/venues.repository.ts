import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { likeContains, type Page } from '../lib/pagination.ts';

export interface VenueFilters {
  name?: string;
  city?: string;
  countryCode?: string;
}

export interface PatVenueRow {
  id: string;
  name: string;
  country: string | null;
  city: string | null;
  timezone: string | null;
  pos_code: string | null;
}

const scoped = (partnerId: string, f: VenueFilters) => sql`
  FROM partner_venues pv
  JOIN venues v ON v.id = pv.venue_id
  WHERE pv.partner_id = ${partnerId}
    ${f.name ? sql`AND v.name ILIKE ${likeContains(f.name)}` : sql``}
    ${f.city ? sql`AND v.city ILIKE ${likeContains(f.city)}` : sql``}
    ${f.countryCode ? sql`AND v.country_code = ${f.countryCode}` : sql``}`;

/** One page of the venues in a partner's scope, ordered by name then id (stable across pages). */
export async function listScopedVenues(ex: Executor, partnerId: string, filters: VenueFilters, page: Page) {
  const { rows } = await sql<PatVenueRow>`
    SELECT v.id, v.name, v.country_code AS country, v.city, v.timezone,
           (SELECT c.pos_type FROM pos_connections c WHERE c.venue_id = v.id AND c.status = 'active') AS pos_code
    ${scoped(partnerId, filters)}
    ORDER BY lower(v.name), v.id
    OFFSET ${page.offset} LIMIT ${page.limit}`.execute(ex);
  return rows;
}

export async function countScopedVenues(ex: Executor, partnerId: string, filters: VenueFilters): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n ${scoped(partnerId, filters)}`.execute(ex);
  return rows[0].n;
}

export interface NewPatVenue {
  id: string;
  name: string;
  address: string;
  city: string;
  postalCode: string;
  countryCode: string;
  timezone: string;
  currency: string;
  posType: string;
  phoneNumber: string | null;
  email: string | null;
}

export async function insertVenue(ex: Executor, v: NewPatVenue, now: Date): Promise<void> {
  await sql`
    INSERT INTO venues (id, name, address, city, postal_code, country_code, timezone, currency, pos_type, phone_number,
                        email, created_at, updated_at)
    VALUES (${v.id}, ${v.name}, ${v.address}, ${v.city}, ${v.postalCode}, ${v.countryCode}, ${v.timezone}, ${v.currency},
            ${v.posType}, ${v.phoneNumber}, ${v.email}, ${now}, ${now})`.execute(ex);
}
