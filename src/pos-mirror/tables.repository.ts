import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { PosTable } from '../pos/pos.schemas.ts';

export interface TableRow {
  id: string;
  venue_id: string;
  pos_table_id: string;
  name: string;
  active: boolean;
}

export async function listTables(ex: Executor, venueId: string): Promise<TableRow[]> {
  const { rows } = await sql<TableRow>`
    SELECT id, venue_id, pos_table_id, name, active FROM venue_tables
    WHERE venue_id = ${venueId} AND active ORDER BY name, pos_table_id`.execute(ex);
  return rows;
}

export async function findTable(ex: Executor, venueId: string, tableId: string): Promise<TableRow | null> {
  const { rows } = await sql<TableRow>`
    SELECT id, venue_id, pos_table_id, name, active FROM venue_tables
    WHERE venue_id = ${venueId} AND id = ${tableId} AND active`.execute(ex);
  return rows[0] ?? null;
}

/**
 * Makes the stored tables match the POS's list: a POS table keeps its UUID across renames and
 * re-imports (DES-083); tables the POS no longer lists are hidden, not deleted, so their UUIDs come
 * back if the table does.
 */
export async function importTables(ex: Executor, venueId: string, tables: PosTable[], now: Date): Promise<void> {
  for (const t of tables) {
    await sql`
      INSERT INTO venue_tables (id, venue_id, pos_table_id, name, active, created_at, updated_at)
      VALUES (${uuidv7()}, ${venueId}, ${t.id}, ${t.name}, true, ${now}, ${now})
      ON CONFLICT (venue_id, pos_table_id) DO UPDATE SET name = excluded.name, active = true, updated_at = excluded.updated_at
      WHERE venue_tables.name IS DISTINCT FROM excluded.name OR NOT venue_tables.active`.execute(ex);
  }
  await sql`UPDATE venue_tables SET active = false, updated_at = ${now}
            WHERE venue_id = ${venueId} AND active AND NOT (pos_table_id = ANY(${tables.map((t) => t.id)}::text[]))`.execute(ex);
}
