import type { Logger } from 'pino';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import * as connections from './connections.repository.ts';
import * as repo from './tables.repository.ts';
import type { VenueContext, VenueContexts } from './venue-context.ts';

// A venue's tables (spec 2.9, 4.7; DESIGN 6.3, 9): served from the store, refreshed from the POS
// when the stored copy is older than POS_TABLES_TTL_S. A POS that cannot be reached leaves the
// stored list in place.

export interface TablesServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  contexts: VenueContexts;
  ttlS: number;
}

export const TABLE_UNKNOWN = 'Table not found: the table id is unknown for this venue.';

export function createTablesService({ db, clock, log, contexts, ttlS }: TablesServiceDeps) {
  // A POS that failed a refresh is not asked again for a TTL (per process), so requests while it is
  // down are served from the store at once instead of each waiting out the POS timeout.
  const failedAt = new Map<string, number>();

  async function refreshIfStale(ctx: VenueContext): Promise<void> {
    const now = clock.now().getTime();
    const syncedAt = ctx.connection.tables_synced_at?.getTime() ?? 0;
    const lastTry = Math.max(syncedAt, failedAt.get(ctx.venue.id) ?? 0);
    if (now - lastTry < ttlS * 1000) return;
    try {
      const tables = await ctx.pos.listTables(ctx.connection.pos_venue_id);
      const now = clock.now();
      await db.kysely.transaction().execute(async (tx) => {
        await repo.importTables(tx, ctx.venue.id, tables, now);
        await connections.setTablesSyncedAt(tx, ctx.venue.id, now);
      });
      failedAt.delete(ctx.venue.id);
    } catch (err) {
      failedAt.set(ctx.venue.id, clock.now().getTime());
      log.warn({ venueId: ctx.venue.id, err: (err as Error).message }, 'could not refresh tables from the POS; serving the stored list');
    }
  }

  return {
    async list(partnerId: string, venueId: string) {
      const ctx = await contexts.active(partnerId, venueId);
      await refreshIfStale(ctx);
      const tables = await repo.listTables(db.kysely, ctx.venue.id);
      return { venueId: ctx.venue.id, tables: tables.map((t) => ({ id: t.id, name: t.name })) };
    },

    /**
     * A table of the venue by its UUID; 404 if unknown. With `refresh`, the stored tables are first
     * refreshed per the TTL so the name is current (not where the stored state must answer while
     * the POS is down).
     */
    async get(ctx: VenueContext, tableId: string, refresh: boolean): Promise<repo.TableRow> {
      if (refresh) await refreshIfStale(ctx);
      const table = isUuid(tableId) ? await repo.findTable(db.kysely, ctx.venue.id, tableId) : null;
      if (!table) throw notFound(TABLE_UNKNOWN);
      return table;
    },
  };
}

export type TablesService = ReturnType<typeof createTablesService>;
