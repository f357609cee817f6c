import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { describe, inject } from 'vitest';
import { openEmbedded, openPostgres, type Db } from '../../src/db/db.ts';
import { migrate } from '../../src/db/migrate.ts';

// Fresh, migrated stores for tests. PGlite: a copy of the run's migrated template (no server to
// install). PostgreSQL (when TEST_DATABASE_URL is set, always in CI): a fresh schema per store,
// dropped when the store is closed.

export type StoreKind = 'pglite' | 'postgres';

let templateBlob: Blob | undefined;

/**
 * The template as PGlite reads it (`arrayBuffer()`), from bytes read once per worker process: Node's own
 * Blob gathers its 40 MB in chunks on every read, a third of a store's start.
 */
class TemplateBlob extends Blob {
  readonly #template: ArrayBuffer;
  constructor(template: ArrayBuffer) {
    super([]);
    this.#template = template;
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#template.slice(0));
  }
}

export async function newPglite(): Promise<Db> {
  if (!templateBlob) {
    const file = readFileSync(inject('pgliteTemplate'));
    templateBlob = new TemplateBlob(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
  }
  return openEmbedded({ loadDataDir: templateBlob, settings: { shared_buffers: '8MB' } });
}

export function postgresUrl(): string | null {
  return inject('postgresUrl');
}

/**
 * A new schema name of this test run (the run's teardown drops any left behind). Random rather
 * than keyed on the worker's pid, which the kernel recycles (pid_max is 32768 on this machine).
 */
export function newSchemaName(): string {
  return `t_${inject('runId')}_${randomBytes(6).toString('hex')}`;
}

/** A DATABASE_URL that puts everything in `schema` (for spawned processes). */
export function urlWithSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

export async function createSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: postgresUrl()! });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA "${schema}"`);
  } finally {
    await admin.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: postgresUrl()! });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
}

export interface PostgresStore extends Db {
  schema: string;
  url: string;
}

export async function newPostgres(opts: { migrate?: boolean; max?: number } = {}): Promise<PostgresStore> {
  const url = postgresUrl();
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = newSchemaName();
  await createSchema(schema);
  const db = openPostgres(url, { schema, max: opts.max });
  if (opts.migrate !== false) await migrate(db);
  const close = db.close.bind(db);
  return Object.assign(db, {
    schema,
    url: urlWithSchema(url, schema),
    close: async () => {
      await close();
      await dropSchema(schema);
    },
  });
}

export async function newStore(kind: StoreKind): Promise<Db> {
  return kind === 'pglite' ? newPglite() : newPostgres();
}

/** The stores this run can test on: PGlite always, PostgreSQL when configured. */
export function availableStores(): StoreKind[] {
  return postgresUrl() ? ['pglite', 'postgres'] : ['pglite'];
}

/** `describe` once per available store; the body gets the store kind. */
export function describeEachStore(name: string, body: (kind: StoreKind) => void): void {
  for (const kind of availableStores()) describe(`${name} [${kind}]`, () => body(kind));
}

/** `describe` on PostgreSQL only (concurrency across connections and processes). */
export const describePostgres = (name: string, body: () => void) =>
  (postgresUrl() ? describe : describe.skip)(`${name} [postgres]`, body);
