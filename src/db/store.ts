import type { Config } from '../config.ts';
import { setV8FlagAtRunTime } from '../lib/v8-flags.ts';
import { openEmbedded, openPostgres, type Db } from './db.ts';
import { acquireDirLock } from './lock.ts';
import { migrate, type MigrateResult } from './migrate.ts';
import { embeddedDbDir } from './template-copy.ts';
import { seedFromTemplate } from './template.ts';

export { embeddedDbDir };

// Opens the store the configuration selects (DES-049): PostgreSQL when DATABASE_URL is set,
// otherwise the embedded PGlite in TABLESIDE_DATA, taken under the data directory's PID lock.

export interface Store {
  db: Db;
  embedded: boolean;
  /** What opening it migrated (absent when opened without migrating). */
  migrations?: MigrateResult;
  /** Closes the store and releases the data directory. */
  close(): Promise<void>;
}

/**
 * The embedded store's shared buffers: 16MB, not PGlite's 128MB, which are zeroed at every start
 * (about half a second of CPU for an operator command that runs a few statements and exits) and are
 * resident in the process once touched. The embedded store is small (a sandbox, a newcomer's
 * machine, the tests: 27 MB of files during the bench's bill and payment load, most of it the two
 * template databases' catalogs), so its pages still fit. Measured for the service (issue 28,
 * bench/README.md): 128MB -> 32MB took the idle service 593 -> 486 MiB RSS; 32MB -> 16MB took the
 * peak under the bill and payment load 311-312 -> 284-296 MiB.
 */
const EMBEDDED_SETTINGS = { shared_buffers: '16MB' };
/**
 * The service, on either store, lets V8's old generation grow by half of what it held after a full
 * collection before the next one, instead of V8's own factor (up to 4x on this heap). Under the
 * bill and payment load the old space filled with promoted garbage before V8 collected it: on the
 * embedded store from ~30 MiB live to 110 MiB (requests waiting their turn for PGlite's one session
 * outlive two scavenges; peak RSS 364-400 -> 312 MiB), on PostgreSQL from ~31 MiB live to 78 MiB in
 * a stretch of 53 s without a full collection (peak RSS 175-210 -> 159-163 MiB, old space at most
 * 39 MiB); CPU per bill and per payment unchanged on both (issue 28, bench/README.md). V8 reads the
 * flag at every full collection, so set here it applies from the store's start. Operator commands
 * run briefly and keep V8's default.
 */
const SERVICE_HEAP_GROWING_PERCENT = 50;

export async function openStore(config: Config, opts: { migrate?: boolean; command?: boolean } = {}): Promise<Store> {
  if (!opts.command) setV8FlagAtRunTime('--heap-growing-percent', SERVICE_HEAP_GROWING_PERCENT, 0);
  if (config.databaseUrl) {
    const db = openPostgres(config.databaseUrl, { max: config.databasePoolMax });
    let migrations: MigrateResult | undefined;
    try {
      if (opts.migrate !== false) migrations = await migrate(db);
    } catch (err) {
      await db.close();
      throw err;
    }
    return { db, embedded: false, migrations, close: () => db.close() };
  }
  const lock = acquireDirLock(config.dataDir);
  let db: Db;
  try {
    // A new data directory starts as a copy of the migrated template made at install (template.ts).
    await seedFromTemplate(embeddedDbDir(config.dataDir));
    db = await openEmbedded({ dir: embeddedDbDir(config.dataDir), settings: EMBEDDED_SETTINGS });
  } catch (err) {
    lock.release();
    throw err;
  }
  const close = async () => {
    try {
      await db.close();
    } finally {
      lock.release();
    }
  };
  let migrations: MigrateResult | undefined;
  try {
    if (opts.migrate !== false) migrations = await migrate(db);
  } catch (err) {
    await close();
    throw err;
  }
  return { db, embedded: true, migrations, close };
}
