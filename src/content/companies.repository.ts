import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import type { Page } from '../lib/pagination.ts';
import type { Translations } from './translations.fns.ts';

export interface CompanyRow {
  id: string;
  owner_partner_id: string;
  name: string;
  legal_name: string | null;
  address: string | null;
  postal_code: string | null;
  city: string;
  country_code: string;
  description: string | null;
  min_advance_booking: number;
  min_advance_booking_cancelling: number;
  include_source_in_notes: boolean;
  sdk_key: string | null;
  booking_message: string | null;
  generated: boolean;
  translations: Translations;
}

const COLUMNS = sql`id, owner_partner_id, name, legal_name, address, postal_code, city, country_code, description,
  min_advance_booking, min_advance_booking_cancelling, include_source_in_notes, sdk_key, booking_message,
  generated, translations`;

export async function insertCompany(ex: Executor, row: CompanyRow, now: Date): Promise<void> {
  await sql`INSERT INTO companies (${COLUMNS}, created_at, updated_at) VALUES (
    ${row.id}, ${row.owner_partner_id}, ${row.name}, ${row.legal_name}, ${row.address}, ${row.postal_code}, ${row.city},
    ${row.country_code}, ${row.description}, ${row.min_advance_booking}, ${row.min_advance_booking_cancelling},
    ${row.include_source_in_notes}, ${row.sdk_key}, ${row.booking_message}, ${row.generated},
    ${JSON.stringify(row.translations)}::jsonb, ${now}, ${now})`.execute(ex);
}

export async function updateCompany(ex: Executor, row: CompanyRow, now: Date): Promise<void> {
  await sql`UPDATE companies SET name = ${row.name}, legal_name = ${row.legal_name}, address = ${row.address},
      postal_code = ${row.postal_code}, city = ${row.city}, country_code = ${row.country_code},
      description = ${row.description}, min_advance_booking = ${row.min_advance_booking},
      min_advance_booking_cancelling = ${row.min_advance_booking_cancelling},
      include_source_in_notes = ${row.include_source_in_notes}, sdk_key = ${row.sdk_key},
      booking_message = ${row.booking_message}, translations = ${JSON.stringify(row.translations)}::jsonb,
      updated_at = ${now}
    WHERE id = ${row.id}`.execute(ex);
}

/** The partner's company, or undefined (also when it is another partner's). */
export async function findCompany(ex: Executor, partnerId: string, id: string, forUpdate = false): Promise<CompanyRow | undefined> {
  const { rows } = await sql<CompanyRow>`SELECT ${COLUMNS} FROM companies
    WHERE id = ${id} AND owner_partner_id = ${partnerId} ${forUpdate ? sql`FOR NO KEY UPDATE` : sql``}`.execute(ex);
  return rows[0];
}

export async function listCompanies(ex: Executor, partnerId: string, page: Page): Promise<CompanyRow[]> {
  const { rows } = await sql<CompanyRow>`SELECT ${COLUMNS} FROM companies WHERE owner_partner_id = ${partnerId}
    ORDER BY lower(name), id OFFSET ${page.offset} LIMIT ${page.limit}`.execute(ex);
  return rows;
}

export async function countCompanies(ex: Executor, partnerId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM companies WHERE owner_partner_id = ${partnerId}`.execute(ex);
  return rows[0].n;
}
