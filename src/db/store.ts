import { join } from 'node:path';
import type { Config } from '../config.ts';
import { openEmbedded, openPostgres, type Db } from './db.ts';
import { acquireDirLock } from './lock.ts';
import { migrate } from './migrate.ts';
import { seedFromTemplate } from './template.ts';

// Opens the store the configuration selects (DES-049): PostgreSQL when DATABASE_URL is set,
// otherwise the embedded PGlite in TABLESIDE_DATA, taken under the data directory's PID lock.

export interface Store {
  db: Db;
  embedded: boolean;
  /** Closes the store and releases the data directory. */
  close(): Promise<void>;
}

export const embeddedDbDir = (dataDir: string) => join(dataDir, 'pgdata');

/**
 * An operator command that opens the embedded store itself runs a few statements and exits: PGlite's
 * 128MB of shared buffers, zeroed at every start (about half a second of CPU), buy it nothing.
 */
const COMMAND_SETTINGS = { shared_buffers: '16MB' };

export async function openStore(config: Config, opts: { migrate?: boolean; command?: boolean } = {}): Promise<Store> {
  if (config.databaseUrl) {
    const db = openPostgres(config.databaseUrl);
    try {
      if (opts.migrate !== false) await migrate(db);
    } catch (err) {
      await db.close();
      throw err;
    }
    return { db, embedded: false, close: () => db.close() };
  }
  const lock = acquireDirLock(config.dataDir);
  let db: Db;
  try {
    // A new data directory starts as a copy of the migrated template made at install (template.ts).
    seedFromTemplate(embeddedDbDir(config.dataDir));
    db = await openEmbedded({ dir: embeddedDbDir(config.dataDir), ...(opts.command ? { settings: COMMAND_SETTINGS } : {}) });
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
  try {
    if (opts.migrate !== false) await migrate(db);
  } catch (err) {
    await close();
    throw err;
  }
  return { db, embedded: true, close };
}
