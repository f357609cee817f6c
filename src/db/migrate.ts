import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './db.ts';

// Migrations are ordered, append-only plain SQL files (STYLE 9) in ./migrations, written in SQL
// that both PostgreSQL 15 and PGlite run. Kysely's migrator records them and, on PostgreSQL, holds
// an advisory lock so processes starting together apply each migration once (DES-048).

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

class SqlFileProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const name of migrationNames()) {
      const text = readFileSync(join(MIGRATIONS_DIR, `${name}.sql`), 'utf8');
      migrations[name] = {
        // No parameters: the simple query protocol runs the whole file as one multi-statement query.
        up: async (db) => {
          await sql.raw(text).execute(db);
        },
      };
    }
    return migrations;
  }
}

export interface MigrateResult {
  applied: string[];
}

/** The migration files' names (without .sql), in order. */
const migrationNames = () => readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort().map((f) => f.replace(/\.sql$/, ''));

export async function migrate(db: Db): Promise<MigrateResult> {
  // Kysely finds its own bookkeeping table by introspecting every schema; name ours explicitly so a
  // same-named table in another schema (parallel test runs) is never mistaken for it.
  const { rows } = await sql<{ schema: string; recorded: boolean }>`
    select current_schema() as schema, to_regclass(format('%I.kysely_migration', current_schema())) is not null as recorded`.execute(db.kysely);
  // At almost every start every file is already applied. Kysely's migrator finds that out by
  // introspecting every column of every table (twice: its table and its lock table), which took
  // most of a second of PGlite's CPU at each start; the same answer is one query. Anything else
  // (a new store, a pending or an unknown migration) goes through the migrator, lock and checks included.
  if (rows[0].recorded) {
    const applied = await sql<{ name: string }>`select name from ${sql.id(rows[0].schema, 'kysely_migration')}`.execute(db.kysely);
    const files = migrationNames();
    const done = new Set(applied.rows.map((r) => r.name));
    if (done.size === files.length && files.every((f) => done.has(f))) return { applied: [] };
  }
  const migrator = new Migrator({
    db: db.kysely,
    provider: new SqlFileProvider(),
    migrationTableSchema: rows[0].schema,
    // Features land from parallel branches, so a developer's store may already hold 011 when 010
    // arrives; each migration touches its own tables, so applying the late one is safe.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
