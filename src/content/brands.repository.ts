import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import type { Page } from '../lib/pagination.ts';
import type { Translations } from './translations.fns.ts';

export interface BrandRow {
  id: string;
  owner_partner_id: string;
  company_id: string;
  name: string;
  logo: string | null;
  fb_installed: boolean | null;
  ig_installed: boolean | null;
  widget_legal_text: string | null;
  booking_approach: string | null;
  translations: Translations;
}

export interface BrandView extends BrandRow {
  company_name: string;
}

const SELECT_VIEW = sql`SELECT b.id, b.owner_partner_id, b.company_id, b.name, b.logo, b.fb_installed, b.ig_installed,
    b.widget_legal_text, b.booking_approach, b.translations, c.name AS company_name
  FROM brands b JOIN companies c ON c.id = b.company_id`;

export async function insertBrand(ex: Executor, row: BrandRow, now: Date): Promise<void> {
  await sql`INSERT INTO brands (id, owner_partner_id, company_id, name, logo, fb_installed, ig_installed,
      widget_legal_text, booking_approach, translations, created_at, updated_at)
    VALUES (${row.id}, ${row.owner_partner_id}, ${row.company_id}, ${row.name}, ${row.logo}, ${row.fb_installed},
      ${row.ig_installed}, ${row.widget_legal_text}, ${row.booking_approach}, ${JSON.stringify(row.translations)}::jsonb,
      ${now}, ${now})`.execute(ex);
}

export async function updateBrand(ex: Executor, row: BrandRow, now: Date): Promise<void> {
  await sql`UPDATE brands SET name = ${row.name}, logo = ${row.logo}, fb_installed = ${row.fb_installed},
      ig_installed = ${row.ig_installed}, widget_legal_text = ${row.widget_legal_text},
      booking_approach = ${row.booking_approach}, translations = ${JSON.stringify(row.translations)}::jsonb,
      updated_at = ${now}
    WHERE id = ${row.id}`.execute(ex);
}

/** The partner's brand with its company's name; undefined when it is not the partner's. */
export async function findBrand(ex: Executor, partnerId: string, id: string, forUpdate = false): Promise<BrandView | undefined> {
  const { rows } = await sql<BrandView>`${SELECT_VIEW}
    WHERE b.id = ${id} AND b.owner_partner_id = ${partnerId} ${forUpdate ? sql`FOR NO KEY UPDATE OF b` : sql``}`.execute(ex);
  return rows[0];
}

export async function listBrands(ex: Executor, partnerId: string, page: Page): Promise<BrandView[]> {
  const { rows } = await sql<BrandView>`${SELECT_VIEW} WHERE b.owner_partner_id = ${partnerId}
    ORDER BY lower(b.name), b.id OFFSET ${page.offset} LIMIT ${page.limit}`.execute(ex);
  return rows;
}

export async function countBrands(ex: Executor, partnerId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM brands WHERE owner_partner_id = ${partnerId}`.execute(ex);
  return rows[0].n;
}
