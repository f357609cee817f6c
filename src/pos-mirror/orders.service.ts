import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { PosOrder } from '../pos/pos.schemas.ts';
import type { ConnectedVenue } from './connections.fns.ts';
import { checkOfRow, fromPosOrder, type OrderRow, type StoredCheck } from './orders.fns.ts';
import * as repo from './orders.repository.ts';

// The orders mirrored from each venue's POS: stored as the POS reports them (refreshed live where
// the POS supports bill retrieval, and by the order sync in sync.service.ts), and closed by the
// service when a pay-at-table payment settles one. Methods that take an executor join the caller's
// transaction (a payment locks and closes its order in its own).

/**
 * A table's stored open order as a caller has just read it (the stored bill's one statement): what
 * a live read needs to tell that the POS says nothing new of it.
 */
export type KnownOrder = Pick<OrderRow, 'id' | 'pos_order_id' | 'pos_updated_at' | 'currency' | 'prepayment_minor' | 'party_size'>;

export interface OrdersServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
}

export function createOrdersService({ db, clock, log }: OrdersServiceDeps) {
  // A live bill's POS order as the store would hold it, by the POS client's order object: an answer
  // of the same bytes as the venue's last one is the same objects (PosClient, lib/last-answers.ts),
  // so the bills that read it convert each order once (~1.5% of a live bill's CPU, issue 28).
  // fromPosOrder depends only on the order and the currency, and neither object is ever changed.
  const views = new WeakMap<PosOrder, { currency: string; view: ReturnType<typeof fromPosOrder> }>();
  function viewOf(order: PosOrder, currency: string) {
    const seen = views.get(order);
    if (seen && seen.currency === currency) return seen.view;
    const view = fromPosOrder(order, currency);
    views.set(order, { currency, view });
    return view;
  }

  async function store(venueId: string, currency: string, order: PosOrder): Promise<OrderRow> {
    const stored = fromPosOrder(order, currency);
    // Most reads find the order as stored (a live bill, a payment's re-read): one SELECT, and no
    // transaction to open and commit for nothing. A change is written in one, which reads again.
    const existing = await repo.findByPosId(db.kysely, venueId, stored.posOrderId);
    if (existing && repo.storedIsCurrent(existing, stored)) return existing;
    return db.kysely.transaction().execute((tx) => repo.upsertOrder(tx, venueId, currency, stored, clock.now()));
  }

  return {
    /** Stores a POS order (in the venue's currency) as the POS reports it now. */
    store,

    /**
     * The open order of a POS table, read live from the POS and stored (billRetrieval true).
     * `known`: the table's stored open order as the caller read it just before. When the POS says
     * that same order, in the state stored (storedIsCurrent), it is returned as it is with `asKnown`:
     * the store holds what the POS says now, so there is nothing to write and nothing to read again
     * (a live bill was four statements, issue 28); the caller's own read of its checks stands.
     */
    async liveOpenOrderForTable(cv: ConnectedVenue, posTableId: string, known: KnownOrder | null = null): Promise<{ order: KnownOrder; asKnown: boolean } | null> {
      const open = await cv.pos.openOrdersForTable(cv.connection.pos_venue_id, posTableId);
      for (const order of open) {
        if (known && known.pos_order_id === order.id) {
          // fromPosOrder also refuses a malformed order, as store() would.
          const view = viewOf(order, cv.venue.currency);
          if (repo.storedIsCurrent({ status: 'open', pos_updated_at: known.pos_updated_at }, view)) return { order: known, asKnown: true };
        }
        const row = await store(cv.venue.id, cv.venue.currency, order);
        // An order the service already closed (paid through pay-at-table) is not open any more, even
        // if a POS that is not told (no forwarding) still lists it: the table's next order is the bill.
        if (row.status === 'open') return { order: row, asKnown: false };
      }
      return null;
    },

    /**
     * Re-reads one order from the POS and stores what it says (before a payment on a venue whose POS
     * supports bill retrieval, so a close or void made on the POS meanwhile is seen). An order the
     * POS no longer knows is treated as closed there.
     */
    async refresh(cv: ConnectedVenue, order: OrderRow): Promise<OrderRow> {
      const live = await cv.pos.getOrder(cv.connection.pos_venue_id, order.pos_order_id);
      if (live) return store(cv.venue.id, cv.venue.currency, live);
      log.warn({ venueId: cv.venue.id, orderId: order.id }, 'the POS no longer knows an order; treating it as closed');
      return { ...order, status: order.status === 'open' ? 'closed' : order.status };
    },

    /** A stored order of the venue; null when the venue has no such order. */
    find(venueId: string, orderId: string, ex: Executor = db.kysely): Promise<OrderRow | null> {
      return repo.findOrder(ex, venueId, orderId);
    },

    /** Locks the order row in the caller's transaction (payments on one order queue behind it). */
    lock(tx: Executor, orderId: string): Promise<OrderRow> {
      return repo.lockOrder(tx, orderId);
    },

    /** The order's open checks (what is still to pay). */
    async openChecks(orderId: string, ex: Executor = db.kysely): Promise<StoredCheck[]> {
      return (await repo.listChecks(ex, [orderId])).filter((c) => c.status === 'open').map(checkOfRow);
    },

    /** Closes an order in the service (a confirmed payment settled it), in the caller's transaction. */
    async closeByPat(tx: Executor, order: Pick<OrderRow, 'id' | 'venue_id' | 'pos_order_id'>, now: Date, paymentMethod: string | null): Promise<void> {
      // One statement: the close, its checks and its order.closed event.
      await repo.closeOrderByPat(tx, order, now, paymentMethod);
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
