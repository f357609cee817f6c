import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import type { Page } from '../lib/pagination.ts';
import type { Translations } from './translations.fns.ts';

export interface AreaRow {
  id: string;
  venue_id: string;
  external_id: string;
  name: string;
  description: string | null;
  is_default: boolean;
  translations: Translations;
}

const COLUMNS = sql`id, venue_id, external_id, name, description, is_default, translations`;

export async function insertArea(ex: Executor, row: AreaRow, now: Date): Promise<void> {
  await sql`INSERT INTO venue_areas (${COLUMNS}, created_at, updated_at)
    VALUES (${row.id}, ${row.venue_id}, ${row.external_id}, ${row.name}, ${row.description}, ${row.is_default},
      ${JSON.stringify(row.translations)}::jsonb, ${now}, ${now})`.execute(ex);
}

export async function updateArea(ex: Executor, row: AreaRow, now: Date): Promise<void> {
  await sql`UPDATE venue_areas SET external_id = ${row.external_id}, name = ${row.name}, description = ${row.description},
      is_default = ${row.is_default}, translations = ${JSON.stringify(row.translations)}::jsonb, updated_at = ${now}
    WHERE id = ${row.id}`.execute(ex);
}

/** Clears the venue's default flag (before another area becomes the default). */
export async function clearDefault(ex: Executor, venueId: string, now: Date): Promise<void> {
  await sql`UPDATE venue_areas SET is_default = false, updated_at = ${now} WHERE venue_id = ${venueId} AND is_default`.execute(ex);
}

export async function findArea(ex: Executor, venueId: string, id: string): Promise<AreaRow | undefined> {
  const { rows } = await sql<AreaRow>`SELECT ${COLUMNS} FROM venue_areas WHERE id = ${id} AND venue_id = ${venueId}`.execute(ex);
  return rows[0];
}

export async function findAreaByExternalId(ex: Executor, venueId: string, externalId: string): Promise<AreaRow | undefined> {
  const { rows } = await sql<AreaRow>`SELECT ${COLUMNS} FROM venue_areas
    WHERE venue_id = ${venueId} AND external_id = ${externalId}`.execute(ex);
  return rows[0];
}

export async function listAreas(ex: Executor, venueId: string, page: Page): Promise<AreaRow[]> {
  const { rows } = await sql<AreaRow>`SELECT ${COLUMNS} FROM venue_areas WHERE venue_id = ${venueId}
    ORDER BY lower(name), id OFFSET ${page.offset} LIMIT ${page.limit}`.execute(ex);
  return rows;
}

export async function countAreas(ex: Executor, venueId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM venue_areas WHERE venue_id = ${venueId}`.execute(ex);
  return rows[0].n;
}
