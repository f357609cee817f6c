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
    for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()) {
      const text = readFileSync(join(MIGRATIONS_DIR, file), 'utf8');
      migrations[file.replace(/\.sql$/, '')] = {
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

export async function migrate(db: Db): Promise<MigrateResult> {
  // Kysely finds its own bookkeeping table by introspecting every schema; name ours explicitly so a
  // same-named table in another schema (parallel test runs) is never mistaken for it.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely);
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
