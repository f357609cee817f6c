import { sql, type RawBuilder } from 'kysely';
import type { Db, Executor } from '../db/db.ts';
import { likeContains, type Page } from '../lib/pagination.ts';
import type { Translations } from './translations.fns.ts';

// Content venues: rows of the shared `venues` table that have an owner (DESIGN 5). A venue of a
// pay-at-table partner has none and is never matched here.

export interface VenueRow {
  id: string;
  owner_partner_id: string;
  external_id: string;
  company_id: string;
  brand_id: string | null;
  name: string;
  country_code: string;
  address: string | null;
  city: string;
  postal_code: string | null;
  phone_number: string | null;
  email: string | null;
  timezone: string | null;
  description: string | null;
  latitude: number | null;
  longitude: number | null;
  capacity: number | null;
  url: string | null;
  min_advance_booking: number;
  min_advance_online_cancelling: number;
  min_covers: number;
  max_covers: number | null;
  currency: string;
  require_credit_card: boolean;
  deposit_type: string;
  deposit_amount_minor: number;
  no_show_fee_type: string;
  no_show_fee_amount_minor: number;
  payment_gateway: string | null;
  gateway_sdk_version: string | null;
  gateway_publish_key: string | null;
  gateway_merchant_id: string | null;
  fb_installed: boolean;
  ig_installed: boolean;
  bookable_areas: boolean;
  booking_message: string | null;
  payment_policy: string | null;
  confirmation_message: string | null;
  translations: Translations;
}

/** A venue with the names of its company and brand, as the API shows it. */
export interface VenueView extends VenueRow {
  company_name: string;
  brand_name: string | null;
}

const COLUMNS = [
  'id', 'owner_partner_id', 'external_id', 'company_id', 'brand_id', 'name', 'country_code', 'address', 'city',
  'postal_code', 'phone_number', 'email', 'timezone', 'description', 'latitude', 'longitude', 'capacity', 'url',
  'min_advance_booking', 'min_advance_online_cancelling', 'min_covers', 'max_covers', 'currency',
  'require_credit_card', 'deposit_type', 'deposit_amount_minor', 'no_show_fee_type', 'no_show_fee_amount_minor',
  'payment_gateway', 'gateway_sdk_version', 'gateway_publish_key', 'gateway_merchant_id', 'fb_installed',
  'ig_installed', 'bookable_areas', 'booking_message', 'payment_policy', 'confirmation_message', 'translations',
] as const satisfies ReadonlyArray<keyof VenueRow>;

const V_COLUMNS = sql.raw(COLUMNS.map((c) => `v.${c}`).join(', '));

const SELECT_VIEW = sql`SELECT ${V_COLUMNS}, c.name AS company_name, b.name AS brand_name
  FROM venues v
  JOIN companies c ON c.id = v.company_id
  LEFT JOIN brands b ON b.id = v.brand_id`;

function values(row: VenueRow): RawBuilder<unknown>[] {
  return COLUMNS.map((c) => (c === 'translations' ? sql`${JSON.stringify(row.translations)}::jsonb` : sql`${row[c]}`));
}

export async function insertVenue(ex: Executor, row: VenueRow, now: Date): Promise<void> {
  await sql`INSERT INTO venues (${sql.raw(COLUMNS.join(', '))}, created_at, updated_at)
    VALUES (${sql.join(values(row))}, ${now}, ${now})`.execute(ex);
}

export async function updateVenue(ex: Executor, row: VenueRow, now: Date): Promise<void> {
  const vals = values(row);
  const sets = COLUMNS.map((c, i) => ({ c, v: vals[i] }))
    .filter(({ c }) => c !== 'id' && c !== 'owner_partner_id')
    .map(({ c, v }) => sql`${sql.raw(c)} = ${v}`);
  await sql`UPDATE venues SET ${sql.join(sets)}, updated_at = ${now} WHERE id = ${row.id}`.execute(ex);
}

/** The partner's venue with its company and brand names; undefined when it is not the partner's. */
export async function findVenue(ex: Executor, partnerId: string, id: string, forUpdate = false): Promise<VenueView | undefined> {
  const { rows } = await sql<VenueView>`${SELECT_VIEW}
    WHERE v.id = ${id} AND v.owner_partner_id = ${partnerId} ${forUpdate ? sql`FOR NO KEY UPDATE OF v` : sql``}`.execute(ex);
  return rows[0];
}

export async function findVenueByExternalId(ex: Executor, partnerId: string, externalId: string, forUpdate = false): Promise<VenueView | undefined> {
  const { rows } = await sql<VenueView>`${SELECT_VIEW}
    WHERE v.owner_partner_id = ${partnerId} AND v.external_id = ${externalId} ${forUpdate ? sql`FOR NO KEY UPDATE OF v` : sql``}`.execute(ex);
  return rows[0];
}

/** Which of `ids` (UUIDs) are the partner's venues; with `lock`, those rows are locked. */
export async function ownedVenueIds(ex: Executor, partnerId: string, ids: string[], lock = false): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await sql<{ id: string }>`SELECT id FROM venues
    WHERE owner_partner_id = ${partnerId} AND id = ANY(${ids}::uuid[])
    ORDER BY id ${lock ? sql`FOR NO KEY UPDATE` : sql``}`.execute(ex);
  return new Set(rows.map((r) => r.id));
}

/** Puts venues under a brand and its company (a brand groups venues within one company). */
export async function setBrand(ex: Executor, ids: string[], brandId: string, companyId: string, now: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`UPDATE venues SET brand_id = ${brandId}, company_id = ${companyId}, updated_at = ${now}
    WHERE id = ANY(${ids}::uuid[])`.execute(ex);
}

export async function clearBrand(ex: Executor, ids: string[], brandId: string, now: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`UPDATE venues SET brand_id = NULL, updated_at = ${now}
    WHERE id = ANY(${ids}::uuid[]) AND brand_id = ${brandId}`.execute(ex);
}

export interface VenueFilters {
  criteria?: string;
  city?: string;
  countryCode?: string;
  bookingChannel?: string;
  notBookingChannel?: string;
  fbInstalled?: boolean;
  igInstalled?: boolean;
}

// Case-insensitive "contains" is written lower(col) LIKE lower(pattern) rather than ILIKE: the same
// match, but on lower(name), which the list index holds, so it can be checked without the table.
const matching = (partnerId: string, f: VenueFilters) => sql`v.owner_partner_id = ${partnerId}
  ${f.criteria ? sql`AND lower(v.name) LIKE lower(${likeContains(f.criteria)})` : sql``}
  ${f.city ? sql`AND lower(v.city) LIKE lower(${likeContains(f.city)})` : sql``}
  ${f.countryCode ? sql`AND v.country_code = ${f.countryCode}` : sql``}
  ${f.bookingChannel ? sql`AND EXISTS (SELECT 1 FROM venue_booking_channels l WHERE l.venue_id = v.id AND l.channel_id = ${f.bookingChannel})` : sql``}
  ${f.notBookingChannel ? sql`AND NOT EXISTS (SELECT 1 FROM venue_booking_channels l WHERE l.venue_id = v.id AND l.channel_id = ${f.notBookingChannel})` : sql``}
  ${f.fbInstalled !== undefined ? sql`AND v.fb_installed = ${f.fbInstalled}` : sql``}
  ${f.igInstalled !== undefined ? sql`AND v.ig_installed = ${f.igInstalled}` : sql``}`;

/** A page's venue ids as computed at a list version (the page cache of venues.service.ts). */
export interface KnownPage {
  version: number;
  ids: string[];
}

/**
 * One page of the partner's venues matching `f`, by case-insensitive name then id (stable across
 * pages). The page's ids are chosen first, on the venues table alone (an index-only scan of
 * venues_owner_name or venues_owner_country_name), then joined for the names. Each row also
 * carries the partner's list version, read in the same snapshot as the page.
 */
export function venuePageQuery(partnerId: string, f: VenueFilters, page: Page) {
  return pageOf(
    partnerId,
    sql`SELECT v.id, lower(v.name) AS sort_name FROM venues v WHERE ${matching(partnerId, f)}
        ORDER BY lower(v.name), v.id OFFSET ${page.offset} LIMIT ${page.limit}`,
  );
}

/**
 * The same page from the ids it had at a list version (the page cache of venues.service.ts), only
 * while the partner's list version is still that one: a primary-key lookup where the scan of a
 * "contains" filter took tens of ms (issue 14). No rows when the version moved on. Its text is the
 * same whatever the filters, so it is one named statement, planned once per connection.
 */
export function knownPageQuery(partnerId: string, known: KnownPage) {
  return pageOf(
    partnerId,
    sql`SELECT v.id, lower(v.name) AS sort_name FROM venues v
        WHERE v.id = ANY(${known.ids}::uuid[]) AND v.owner_partner_id = ${partnerId}
          AND coalesce((SELECT version FROM content_list_versions WHERE partner_id = ${partnerId}), 0) = ${known.version}`,
  );
}

const pageOf = (partnerId: string, ids: RawBuilder<unknown>) => sql<VenueView & { list_version: number | null }>`WITH page AS (${ids})
    SELECT x.*, (SELECT version FROM content_list_versions WHERE partner_id = ${partnerId}) AS list_version
    FROM (${SELECT_VIEW} JOIN page p ON p.id = v.id) x
    ORDER BY lower(x.name), x.id`;

export function venueCountQuery(partnerId: string, f: VenueFilters) {
  return sql<{ n: number }>`SELECT count(*) AS n FROM venues v WHERE ${matching(partnerId, f)}`;
}

type PageRow = VenueView & { list_version: number | null };

/**
 * A page of venues. One asked before (`known`) is read from its ids while the list version
 * stands; if it has moved on, the page is computed again (two statements, once per change).
 */
export async function listVenues(db: Pick<Db, 'kysely'>, partnerId: string, f: VenueFilters, page: Page, known?: KnownPage): Promise<PageRow[]> {
  if (known) {
    const rows = (await db.kysely.executeQuery<PageRow>(knownPageQuery(partnerId, known).compile(db.kysely))).rows;
    if (rows.length > 0) return rows;
  }
  return (await venuePageQuery(partnerId, f, page).execute(db.kysely)).rows;
}

export async function countVenues(ex: Executor, partnerId: string, f: VenueFilters): Promise<number> {
  return (await venueCountQuery(partnerId, f).execute(ex)).rows[0].n;
}

/** Bumps the partner's list version (see content_list_versions); call last in the transaction. */
export async function bumpListVersion(ex: Executor, partnerId: string): Promise<void> {
  await sql`INSERT INTO content_list_versions (partner_id, version) VALUES (${partnerId}, 1)
    ON CONFLICT (partner_id) DO UPDATE SET version = content_list_versions.version + 1`.execute(ex);
}

export async function listVersion(ex: Executor, partnerId: string): Promise<number> {
  const { rows } = await sql<{ version: number }>`SELECT version FROM content_list_versions WHERE partner_id = ${partnerId}`.execute(ex);
  return rows[0]?.version ?? 0;
}
