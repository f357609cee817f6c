import type { Logger } from 'pino';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import * as connections from './connections.repository.ts';
import type { ConnectedVenue } from './connections.fns.ts';
import * as repo from './tables.repository.ts';

export type { TableRow } from './tables.repository.ts';

// A venue's tables, mirrored from its POS: served from the store, refreshed from the POS when the
// stored copy is older than POS_TABLES_TTL_S. A POS that cannot be reached leaves the stored list
// in place. A POS table keeps its UUID across renames.

export interface TablesServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  ttlS: number;
}

export const TABLE_UNKNOWN = 'Table not found: the table id is unknown for this venue.';

export function createTablesService({ db, clock, log, ttlS }: TablesServiceDeps) {
  // A POS that failed a refresh is not asked again for a TTL (per process), so requests while it is
  // down are served from the store at once instead of each waiting out the POS timeout.
  const failedAt = new Map<string, number>();

  /** Refreshes the stored tables from the POS per the TTL; true when it wrote them. */
  async function refreshIfStale(cv: ConnectedVenue): Promise<boolean> {
    const now = clock.now().getTime();
    const syncedAt = cv.connection.tables_synced_at?.getTime() ?? 0;
    const lastTry = Math.max(syncedAt, failedAt.get(cv.venue.id) ?? 0);
    if (now - lastTry < ttlS * 1000) return false;
    try {
      const tables = await cv.pos.listTables(cv.connection.pos_venue_id);
      const now = clock.now();
      await db.kysely.transaction().execute(async (tx) => {
        await repo.importTables(tx, cv.venue.id, tables, now);
        await connections.setTablesSyncedAt(tx, cv.venue.id, now);
      });
      failedAt.delete(cv.venue.id);
      return true;
    } catch (err) {
      failedAt.set(cv.venue.id, clock.now().getTime());
      log.warn({ venueId: cv.venue.id, err: (err as Error).message }, 'could not refresh tables from the POS; serving the stored list');
      return false;
    }
  }

  return {
    /** The venue's active tables, refreshed first per the TTL. */
    async list(cv: ConnectedVenue): Promise<repo.TableRow[]> {
      await refreshIfStale(cv);
      return repo.listTables(db.kysely, cv.venue.id);
    },

    /**
     * A table of the venue by its UUID; 404 if unknown. With `refresh`, the stored tables are first
     * refreshed per the TTL so the name is current (not where the stored state must answer while
     * the POS is down).
     */
    async get(cv: ConnectedVenue, tableId: string, refresh: boolean): Promise<repo.TableRow> {
      if (refresh) await refreshIfStale(cv);
      const table = isUuid(tableId) ? await repo.findTable(db.kysely, cv.venue.id, tableId) : null;
      if (!table) throw notFound(TABLE_UNKNOWN);
      return table;
    },

    /**
     * Like `get` with `refresh`, given the table as the caller read it from the store just before
     * (null: no such active table): that read stands unless the refresh wrote the tables, so a
     * current table costs no second statement (issue 28).
     */
    async current(cv: ConnectedVenue, tableId: string, known: Pick<repo.TableRow, 'id' | 'pos_table_id' | 'name'> | null): Promise<Pick<repo.TableRow, 'id' | 'pos_table_id' | 'name'>> {
      const table = (await refreshIfStale(cv)) ? (isUuid(tableId) ? await repo.findTable(db.kysely, cv.venue.id, tableId) : null) : known;
      if (!table) throw notFound(TABLE_UNKNOWN);
      return table;
    },
  };
}

export type TablesService = ReturnType<typeof createTablesService>;
