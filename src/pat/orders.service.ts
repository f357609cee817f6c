import type { Logger } from 'pino';
import type { Db } from '../db/db.ts';
import type { JobDefinition } from '../db/jobs.ts';
import { scheduleJob } from '../db/jobs.ts';
import type { Clock } from '../lib/clock.ts';
import { PosError, type PosClients } from '../pos/pos-client.ts';
import type { PosOrder } from '../pos/pos.schemas.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import * as connections from './connections.repository.ts';
import { fromPosOrder } from './orders.fns.ts';
import * as repo from './orders.repository.ts';
import type { VenueContext } from './venue-context.ts';

// Orders mirrored from the POS (DESIGN 6.3): refreshed live where the venue's POS supports bill
// retrieval, and by a sync job per connected venue that reads every order changed since its last
// run (with overlap), so the stored state serves bills (billRetrieval false) and analytics.

export const ORDER_SYNC_JOB = 'orders.sync';
/** Orders changed this long before the last sync are read again: clocks differ, commits lag. */
export const SYNC_OVERLAP_MS = 5 * 60_000;
/** How far back the first sync of a venue reads: the POS keeps closed orders 45 days (spec 3.4). */
export const FIRST_SYNC_LOOKBACK_MS = 45 * 24 * 3600_000;

export interface OrdersServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  posTypes: PosTypeRegistry;
  posClients: PosClients;
  syncIntervalS: number;
}

export function createOrdersService({ db, clock, log, posTypes, posClients, syncIntervalS }: OrdersServiceDeps) {
  async function store(venueId: string, currency: string, order: PosOrder): Promise<repo.OrderRow> {
    const stored = fromPosOrder(order, currency);
    return db.kysely.transaction().execute((tx) => repo.upsertOrder(tx, venueId, currency, stored, clock.now()));
  }

  return {
    store,

    /** The open order of a POS table, read live from the POS and stored (billRetrieval true). */
    async liveOpenOrderForTable(ctx: VenueContext, posTableId: string): Promise<repo.OrderRow | null> {
      const open = await ctx.pos.listOrders(ctx.connection.pos_venue_id, { status: 'open' });
      for (const order of open) {
        if (order.status !== 'open' || !order.tables.includes(posTableId)) continue;
        const row = await store(ctx.venue.id, ctx.venue.currency, order);
        // An order the service already closed (paid through pay-at-table) is not open any more, even
        // if a POS that is not told (no forwarding) still lists it: the table's next order is the bill.
        if (row.status === 'open') return row;
      }
      return null;
    },

    storedOpenOrderForTable(ctx: VenueContext, posTableId: string): Promise<repo.OrderRow | null> {
      return repo.findOpenOrderForTable(db.kysely, ctx.venue.id, posTableId);
    },

    /**
     * Re-reads one order from the POS and stores what it says (DESIGN 9: before a payment on a
     * billRetrieval venue). An order the POS no longer knows is treated as closed there.
     */
    async refresh(ctx: VenueContext, order: repo.OrderRow): Promise<repo.OrderRow> {
      const live = await ctx.pos.getOrder(ctx.connection.pos_venue_id, order.pos_order_id);
      if (live) return store(ctx.venue.id, ctx.venue.currency, live);
      log.warn({ venueId: ctx.venue.id, orderId: order.id }, 'the POS no longer knows an order; treating it as closed');
      return { ...order, status: order.status === 'open' ? 'closed' : order.status };
    },

    /** Starts the periodic sync of a venue's orders (idempotent: one job per venue). */
    scheduleSync(ex: Parameters<typeof scheduleJob>[0], venueId: string): Promise<void> {
      return scheduleOrderSync(ex, venueId, clock.now());
    },

    /**
     * One sync run for a venue: every order the POS changed since the last run, with overlap.
     * null when there is nothing to sync any more (no connection, or suspended by the operator).
     * A POS that refuses the credentials (401/403) suspends the connection (DESIGN 9: the venue is
     * then temporarily unavailable); the runs go on probing, and the first one the POS accepts
     * makes the connection active again.
     */
    async syncVenue(venueId: string): Promise<{ synced: number; suspended: boolean } | null> {
      const connection = await connections.findConnection(db.kysely, venueId);
      const posType = connection ? posTypes.get(connection.pos_type) : undefined;
      const venue = await connections.findVenue(db.kysely, venueId);
      if (!connection || !posType || !venue) return null;
      if (connection.status === 'suspended' && connection.suspended_reason === 'operator') return null;
      const until = clock.now();
      const from = connection.orders_synced_until
        ? new Date(connection.orders_synced_until.getTime() - SYNC_OVERLAP_MS)
        : new Date(until.getTime() - FIRST_SYNC_LOOKBACK_MS);
      let orders: PosOrder[];
      try {
        orders = await posClients.for(posType).listOrders(connection.pos_venue_id, { from, until });
      } catch (err) {
        if (!isCredentialsRefusal(err)) throw err; // a POS that is down: retried later from the same `from`
        if (connection.status === 'active') {
          await connections.suspendConnection(db.kysely, venueId, 'credentials_refused', clock.now());
          log.warn({ venueId, posType: posType.code, err: (err as Error).message }, 'the POS refused our credentials for this venue; connection suspended');
        }
        return { synced: 0, suspended: true };
      }
      if (connection.status === 'suspended') {
        await connections.resumeConnection(db.kysely, venueId, clock.now(), 'credentials_refused');
        log.info({ venueId, posType: posType.code }, 'the POS accepts our credentials again; connection active');
      }
      const currency = venue.currency ?? 'EUR';
      for (const order of orders) {
        try {
          await store(venueId, currency, order);
        } catch (err) {
          // One malformed order (amounts the currency cannot hold, say) must not stop the others.
          if (!(err instanceof PosError)) throw err;
          log.error({ venueId, posOrderId: order.id, err: err.message }, 'skipped an order the POS reported malformed');
        }
      }
      await connections.setOrdersSyncedUntil(db.kysely, venueId, until);
      return { synced: orders.length, suspended: false };
    },

    syncJob(): JobDefinition<{ venueId: string }> {
      return {
        run: async (job) => {
          const result = await this.syncVenue(job.payload.venueId);
          if (result === null) return; // nothing to sync (operator suspension, no connection): the job ends
          log.debug({ venueId: job.payload.venueId, ...result }, 'orders synced');
          return { retryAt: new Date(clock.now().getTime() + syncIntervalS * 1000) };
        },
      };
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;

/** Schedules a venue's sync job to run now (one per venue: a pending one is kept). */
export async function scheduleOrderSync(ex: Parameters<typeof scheduleJob>[0], venueId: string, now: Date): Promise<void> {
  await scheduleJob(ex, { kind: ORDER_SYNC_JOB, runAt: now, dedupeKey: `orders-sync:${venueId}`, payload: { venueId } }, now);
}

/** The POS answered 401 or 403: our credentials are refused (for this venue, or at all). */
export function isCredentialsRefusal(err: unknown): boolean {
  return err instanceof PosError && err.kind === 'status' && (err.status === 401 || err.status === 403);
}
