import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './db.ts';

// Migrations are ordered, append-only plain SQL files (STYLE 9) in ./migrations, written in SQL
// that both PostgreSQL 15 and PGlite run. Kysely's migrator records them and, on PostgreSQL, holds
// an advisory lock so processes starting together apply each migration once (DES-048).

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Kysely's bookkeeping table, in the schema `migrate` names. */
const MIGRATION_TABLE = 'kysely_migration';

/** The migration files' names (without .sql), in order. */
const migrationNames = () => readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort().map((f) => f.replace(/\.sql$/, ''));

function migrationsOnDisk(): Record<string, Migration> {
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

/**
 * The migrations on disk, plus every name the database records as applied that this code does not
 * have: a newer release applied them during a rolling upgrade (src/db/README.md). Kysely refuses a
 * recorded migration it cannot find ("corrupted migrations"), which kept a replica of the older
 * release from restarting mid-rollout; listed here as already applied, they are never run.
 */
class SqlFileProvider implements MigrationProvider {
  readonly newer: string[] = [];
  constructor(private readonly recorded: () => Promise<string[]>) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations = migrationsOnDisk();
    this.newer.length = 0;
    for (const name of await this.recorded()) {
      if (name in migrations) continue;
      this.newer.push(name);
      migrations[name] = {
        up: async () => {
          throw new Error(`migration ${name} is not in this release; a newer release applied it`);
        },
      };
    }
    return migrations;
  }
}

/** The names recorded as applied; none before the migrator has created its table. */
async function recordedNames(db: Db, schema: string): Promise<string[]> {
  const table = `"${schema}".${MIGRATION_TABLE}`;
  const { rows: exists } = await sql<{ t: string | null }>`select to_regclass(${table}) as t`.execute(db.kysely);
  if (!exists[0].t) return [];
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(`${schema}.${MIGRATION_TABLE}`)}`.execute(db.kysely);
  return rows.map((r) => r.name);
}

export interface MigrateResult {
  applied: string[];
  /** Recorded as applied by a newer release, unknown to this one (present only when there are some). */
  appliedByNewerRelease?: string[];
}

export async function migrate(db: Db): Promise<MigrateResult> {
  // Kysely finds its own bookkeeping table by introspecting every schema; name ours explicitly so a
  // same-named table in another schema (parallel test runs) is never mistaken for it.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely);
  const schema = rows[0].schema;
  // At almost every start every file is already applied. Kysely's migrator finds that out by
  // introspecting every column of every table (twice: its table and its lock table), most of a
  // second of PGlite's CPU at each start (issue 28); the same answer is one query. Anything else (a
  // new store, a pending migration, one of a newer release) goes through the migrator, lock included.
  const recorded = await recordedNames(db, schema);
  const files = migrationNames();
  if (recorded.length === files.length && files.every((f) => recorded.includes(f))) return { applied: [] };
  // The migrator asks its provider for the list while it holds the migration lock, inside its
  // transaction. On PostgreSQL the recorded names are read then, on another pooled connection, so a
  // newer release migrating at the same moment has committed before they are read. PGlite has one
  // session (a second query would wait for ever on the open transaction) and one process, so its
  // names are the ones read above.
  const before = db.kind === 'pglite' ? recorded : null;
  const provider = new SqlFileProvider(() => (before ? Promise.resolve(before) : recordedNames(db, schema)));
  const migrator = new Migrator({
    db: db.kysely,
    provider,
    migrationTableSchema: schema,
    // Features land from parallel branches, so a developer's store may already hold 011 when 010
    // arrives; each migration touches its own tables, so applying the late one is safe.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  return provider.newer.length > 0 ? { applied, appliedByNewerRelease: [...provider.newer] } : { applied };
}
