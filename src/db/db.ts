import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, type Transaction } from 'kysely';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { prepareRecurringStatements } from './auto-prepare.ts';
import { SearchPathPostgresDialect } from './dialect.ts';

// One SQL dialect, one driver: PostgreSQL through `pg`, either a real server (DATABASE_URL) or the
// embedded PGlite reached through its node-postgres adapter (DESIGN 3). Code above this file never
// knows which one it talks to, except where PGlite's single session matters (see `kind`).

// int8 (counts, money in minor units) as a JS number; refuse silently losing precision.
pg.types.setTypeParser(20, (text: string) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`int8 value ${text} exceeds the safe integer range`);
  return value;
});

// The service's SQL is written by hand in repositories; Kysely supplies parameter binding,
// transactions and the migrator, so the database type is left open.
export type DB = any;
export type Executor = Kysely<DB> | Transaction<DB>;

export interface Db {
  readonly kind: 'postgres' | 'pglite';
  readonly kysely: Kysely<DB>;
  readonly pool: pg.Pool;
  /** The embedded database itself, when this is one (dumps, tests). */
  readonly pglite?: PGlite;
  /** Subscribes to NOTIFY on a channel; returns the unsubscribe function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

function fromPool(
  kind: Db['kind'],
  pool: pg.Pool,
  listen: Db['listen'],
  onClose: () => Promise<void>,
  pglite?: PGlite,
): Db {
  pool.on('connect', prepareRecurringStatements);
  const kysely = new Kysely<DB>({ dialect: new SearchPathPostgresDialect({ pool }) });
  let closed = false;
  return {
    kind,
    kysely,
    pool,
    pglite,
    listen,
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy(); // ends the pool
      await onClose();
    },
  };
}

export interface PostgresOptions {
  /** Put every object in this schema (tests use a fresh schema per run). */
  schema?: string;
  max?: number;
}

export function openPostgres(url: string, options: PostgresOptions = {}): Db {
  const base: pg.PoolConfig = { connectionString: url, max: options.max ?? 10 };
  if (options.schema) base.options = `-c search_path=${options.schema}`;
  const pool = new pg.Pool(base);
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  // Nor a client in use: pg-pool listens for errors on idle clients only, and a checked-out client
  // whose connection drops emits 'error' besides failing its query, an uncaught exception that
  // killed the process during a PostgreSQL restart (ERR-08). The query's own failure is enough; the
  // broken client is not queryable, so the pool discards it when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const listeners = new Set<pg.Client>();

  const listen: Db['listen'] = async (channel, onNotify) => {
    const client = new pg.Client(base);
    client.on('error', () => {});
    await client.connect();
    client.on('notification', (msg) => {
      if (msg.channel === channel) onNotify(msg.payload ?? '');
    });
    await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    listeners.add(client);
    return async () => {
      listeners.delete(client);
      await client.end().catch(() => {});
    };
  };

  return fromPool('postgres', pool, listen, async () => {
    await Promise.all([...listeners].map((c) => c.end().catch(() => {})));
  });
}

export interface EmbeddedOptions {
  /** A data directory; omitted, the store lives in memory. */
  dir?: string;
  /** Start from a dump made by `dumpDataDir` (tests: a migrated template). */
  loadDataDir?: Blob;
  /**
   * Server settings added to PGlite's start parameters (`-c name=value`). PGlite zeroes its 128MB of
   * shared buffers at every start, about 0.6 s of CPU here: an operator command (store.ts) and the
   * test suite's hundreds of small stores ask for less.
   */
  settings?: Record<string, string>;
}

/**
 * PGlite's WebAssembly module and file-system bundle, compiled and read once per process. Left to
 * itself, every PGlite instance reads 15 MB and compiles 9 MB of WebAssembly again (about 1.5 s of
 * CPU here); a process that opens several stores (the test suite, a dump then a restore) pays it once.
 */
let artifacts: Promise<{ pgliteWasmModule: WebAssembly.Module; fsBundle: Blob }> | undefined;

function pgliteArtifacts() {
  artifacts ??= (async () => {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    return {
      pgliteWasmModule: await WebAssembly.compile(readFileSync(join(dist, 'pglite.wasm'))),
      fsBundle: new Blob([readFileSync(join(dist, 'pglite.data'))]),
    };
  })();
  return artifacts;
}

export async function openEmbedded(options: EmbeddedOptions = {}): Promise<Db> {
  if (options.dir) mkdirSync(options.dir, { recursive: true });
  const pglite = await PGlite.create({
    ...(await pgliteArtifacts()),
    // The SQL extensions DESIGN 3 allows, which migrations create (015: trigram indexes).
    extensions: { pg_trgm },
    ...(options.dir ? { dataDir: options.dir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    ...(options.settings
      ? { startParams: [...PGlite.defaultStartParams, ...Object.entries(options.settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])] }
      : {}),
  });
  return fromPglite(pglite, true);
}

/** Wraps an open PGlite; with `owned` the Db closes it too. */
export function fromPglite(pglite: PGlite, owned: boolean): Db {
  // PGlite has a single session: a pool of one, so a transaction holds the only connection and
  // code inside it must use the transaction, never the pool.
  const pool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
  pool.on('error', () => {});
  const listen: Db['listen'] = async (channel, onNotify) => {
    const unsubscribe = await pglite.listen(channel, onNotify);
    return async () => unsubscribe();
  };
  return fromPool(
    'pglite',
    pool,
    listen,
    async () => {
      if (owned) await pglite.close();
    },
    pglite,
  );
}

/**
 * Loads rows in COPY's text format (one line per row, tab-separated, `\N` for NULL; see
 * `copyText`) into a table, inside the transaction it was handed with.
 */
export type CopyIn = (table: string, columns: readonly string[], lines: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>) => Promise<void>;

/**
 * One transaction that can also bulk-load with COPY (the availability feed's shards: DESIGN 8.3b).
 * COPY is about twice as fast as a multi-row INSERT of the same rows and needs the connection
 * itself, which Kysely keeps private: on PostgreSQL the transaction runs on a pool client checked
 * out here, driven by a Kysely bound to that one client, and COPY FROM STDIN streams on the same
 * client between statements; PGlite (one session) reads the rows as a blob (COPY FROM '/dev/blob').
 */
export async function transactionWithCopy<T>(db: Db, fn: (tx: Transaction<DB>, copy: CopyIn) => Promise<T>): Promise<T> {
  const statement = (table: string, columns: readonly string[], from: string) =>
    `COPY ${pg.escapeIdentifier(table)} (${columns.map((c) => pg.escapeIdentifier(c)).join(', ')}) FROM ${from}`;
  if (db.kind === 'pglite') {
    const pglite = db.pglite!;
    return db.kysely.transaction().execute((tx) => fn(tx, async (table, columns, lines) => {
      const parts: Array<string | Uint8Array> = [];
      for await (const line of lines) parts.push(line);
      await pglite.query(statement(table, columns, `'/dev/blob'`), [], { blob: new Blob(parts as BlobPart[]) });
    }));
  }
  const client = await db.pool.connect();
  let failure: Error | undefined;
  const single = new Kysely<DB>({
    // A pool of this one client, which Kysely must not release: it goes back to the real pool below.
    dialect: new SearchPathPostgresDialect({
      pool: { connect: async () => ({ query: client.query.bind(client), release: () => {} }), end: async () => {} } as never,
    }),
  });
  try {
    return await single.transaction().execute((tx) => fn(tx, async (table, columns, lines) => {
      const stream = client.query(copyFrom(statement(table, columns, 'STDIN')));
      await pipeline(Readable.from(lines), stream);
    }));
  } catch (err) {
    failure = err as Error;
    throw err;
  } finally {
    await single.destroy();
    // A connection whose COPY or COMMIT failed midway is not reused.
    client.release(failure);
  }
}

/** What a snapshotRead's function is given: parameterised reads, and `COPY (…) TO STDOUT` whose output chunks go to `take`. */
export interface SnapshotReader {
  query<R>(text: string, values: unknown[]): Promise<R[]>;
  copyOut(statement: string, take: (chunk: Buffer) => void): Promise<void>;
}

/**
 * Reads in one REPEATABLE READ, READ ONLY transaction (every statement sees the same snapshot) on a
 * pool client of its own (PostgreSQL only), which can also COPY out: the rows reach the caller as
 * bytes, never as JavaScript strings (the Google feeds: bench/bulk.ts). `take` must copy what it
 * keeps; a chunk is the socket's.
 */
export async function snapshotRead<T>(db: Db, fn: (reader: SnapshotReader) => Promise<T>): Promise<T> {
  if (db.kind !== 'postgres') throw new Error('snapshotRead needs PostgreSQL');
  const client = await db.pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await fn({
      query: async (text, values) => (await client.query(text, values)).rows,
      copyOut: async (statement, take) => {
        for await (const chunk of client.query(copyTo(statement))) take(chunk as Buffer);
      },
    });
    await client.query('COMMIT');
    return result;
  } catch (err) {
    failure = err as Error;
    throw err;
  } finally {
    // A connection whose read failed midway is not reused (its transaction ends with it).
    client.release(failure);
  }
}

/** A text value as COPY's text format reads it (backslash, tab, newline and carriage return escaped). */
export function copyText(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
