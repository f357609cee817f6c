import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { postponeJob, scheduleJob, type JobDefinition } from '../db/jobs.ts';
import type { Clock } from '../lib/clock.ts';
import { PosError } from '../pos/pos-client.ts';
import type { PosOrder } from '../pos/pos.schemas.ts';
import type { ConnectedVenue } from './connections.fns.ts';
import * as connections from './connections.repository.ts';
import type { OrdersService } from './orders.service.ts';

// The order sync: one durable job per connected venue reads every order the POS changed since the
// job's last run (with overlap), so the stored orders serve bills where the POS has no bill
// retrieval, and the analytics history. A POS that refuses our credentials suspends the venue's
// connection until it accepts them again.

/** The job kind of the order sync, and its dedupe key: one sync job per venue. */
export const ORDER_SYNC_JOB = 'orders.sync';
export const orderSyncKey = (venueId: string) => `orders-sync:${venueId}`;
/** Orders changed this long before the last sync are read again: clocks differ, commits lag. */
export const SYNC_OVERLAP_MS = 5 * 60_000;
/** How far back the first sync of a venue reads: the POS keeps closed orders 45 days (spec 3.4). */
export const FIRST_SYNC_LOOKBACK_MS = 45 * 24 * 3600_000;

/** Schedules a venue's sync job to run now, in the caller's transaction (a pending one is kept). */
export async function scheduleOrderSync(ex: Executor, venueId: string, now: Date): Promise<void> {
  await scheduleJob(ex, { kind: ORDER_SYNC_JOB, runAt: now, dedupeKey: orderSyncKey(venueId), payload: { venueId } }, now);
}

/** The POS answered 401 or 403: our credentials are refused (for this venue, or at all). */
export function isCredentialsRefusal(err: unknown): boolean {
  return err instanceof PosError && err.kind === 'status' && (err.status === 401 || err.status === 403);
}

export interface OrderSyncDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  /**
   * The connections service, by the one method the sync uses: that service starts this job
   * (`scheduleOrderSync`), so this file does not import it back.
   */
  connections: { forVenue(venueId: string): Promise<ConnectedVenue | null> };
  orders: Pick<OrdersService, 'store'>;
  syncIntervalS: number;
}

export function createOrderSyncService({ db, clock, log, connections: connectionsService, orders, syncIntervalS }: OrderSyncDeps) {
  /**
   * One sync run for a venue: every order the POS changed since the last run, with overlap.
   * null when there is nothing to sync any more (no connection, or suspended by the operator).
   * A POS that refuses the credentials (401/403) suspends the connection (the venue is then
   * temporarily unavailable); the runs go on probing, and the first one the POS accepts makes the
   * connection active again.
   */
  async function syncVenue(venueId: string): Promise<{ synced: number; suspended: boolean } | null> {
    const cv = await connectionsService.forVenue(venueId);
    if (!cv) return null;
    const { connection, posType, pos } = cv;
    if (connection.status === 'suspended' && connection.suspended_reason === 'operator') return null;
    const until = clock.now();
    const from = connection.orders_synced_until
      ? new Date(connection.orders_synced_until.getTime() - SYNC_OVERLAP_MS)
      : new Date(until.getTime() - FIRST_SYNC_LOOKBACK_MS);
    let posOrders: PosOrder[];
    try {
      posOrders = await pos.listOrders(connection.pos_venue_id, { from, until });
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
    for (const order of posOrders) {
      try {
        await orders.store(venueId, cv.venue.currency, order);
      } catch (err) {
        // One malformed order (amounts the currency cannot hold, say) must not stop the others.
        if (!(err instanceof PosError)) throw err;
        log.error({ venueId, posOrderId: order.id, err: err.message }, 'skipped an order the POS reported malformed');
      }
    }
    await connections.setOrdersSyncedUntil(db.kysely, venueId, until);
    return { synced: posOrders.length, suspended: false };
  }

  return {
    syncVenue,

    /**
     * syncVenue, then the venue's sync job due one interval later, as after a run of its own: the
     * sandbox reads a venue's orders as it connects it, and the job scheduled by the connection read
     * them again at once (issue 28: beside a first start's first /healthz).
     */
    async syncVenueNow(venueId: string): Promise<{ synced: number; suspended: boolean } | null> {
      const result = await syncVenue(venueId);
      if (result && !result.suspended) await postponeJob(db.kysely, orderSyncKey(venueId), new Date(clock.now().getTime() + syncIntervalS * 1000));
      return result;
    },

    /** The job of ORDER_SYNC_JOB: runs every syncIntervalS while the venue is connected. */
    job(): JobDefinition<{ venueId: string }> {
      return {
        run: async (job) => {
          const result = await syncVenue(job.payload.venueId);
          if (result === null) return; // nothing to sync (operator suspension, no connection): the job ends
          log.debug({ venueId: job.payload.venueId, ...result }, 'orders synced');
          return { retryAt: new Date(clock.now().getTime() + syncIntervalS * 1000) };
        },
      };
    },
  };
}

export type OrderSyncService = ReturnType<typeof createOrderSyncService>;
