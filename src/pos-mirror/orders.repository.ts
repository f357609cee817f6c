import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { emit, emitting, type OutboxEvent, type OutboxScope } from '../db/outbox.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { CheckRow, OrderRow, StoredOrder } from './orders.fns.ts';
import { findSeatingOrder } from './reservation-orders.fns.ts';
import { awaitingPosOrder, type SeatingRow } from './reservation-orders.repository.ts';

// SQL for the orders mirrored from POS systems and their checks (the row shapes are in orders.fns.ts).

export async function findOrder(ex: Executor, venueId: string, orderId: string): Promise<OrderRow | null> {
  const { rows } = await sql<OrderRow>`SELECT * FROM orders WHERE id = ${orderId} AND venue_id = ${venueId}`.execute(ex);
  return rows[0] ?? null;
}

export async function lockOrder(ex: Executor, orderId: string): Promise<OrderRow> {
  const { rows } = await sql<OrderRow>`SELECT * FROM orders WHERE id = ${orderId} FOR UPDATE`.execute(ex);
  return rows[0];
}

export async function findByPosId(ex: Executor, venueId: string, posOrderId: string): Promise<OrderRow | null> {
  const { rows } = await sql<OrderRow>`SELECT * FROM orders WHERE venue_id = ${venueId} AND pos_order_id = ${posOrderId}`.execute(ex);
  return rows[0] ?? null;
}

/**
 * What the mirror knows of some POS orders, for a seating looking for its own (DESIGN 8.8a): the POS
 * id of the order mirrored under the seating's order id, and the POS ids linked to other bookings.
 */
export async function linkedPosOrders(ex: Executor, venueId: string, orderId: string, posOrderIds: string[]): Promise<{ mirroredAs: string | null; otherBookings: Set<string> }> {
  const { rows } = await sql<{ id: string; pos_order_id: string; booking_id: string | null }>`
    SELECT id, pos_order_id, booking_id FROM orders
    WHERE venue_id = ${venueId} AND (id = ${orderId} OR (pos_order_id = ANY(${posOrderIds}::text[]) AND booking_id IS NOT NULL))`.execute(ex);
  return {
    mirroredAs: rows.find((r) => r.id === orderId)?.pos_order_id ?? null,
    otherBookings: new Set(rows.filter((r) => r.id !== orderId).map((r) => r.pos_order_id)),
  };
}

/**
 * The seating a POS order met for the first time belongs to (BKG-39): one waiting for its POS order
 * whose create could have made this one. The order then takes the seating's order id (the id the
 * RMS was answered) and its booking's party size, prepayment and time.
 */
async function seatingOf(ex: Executor, venueId: string, view: StoredOrder): Promise<SeatingRow | null> {
  if (view.status !== 'open') return null;
  const waiting = await awaitingPosOrder(ex, venueId);
  if (waiting.length === 0) return null;
  const seen = { id: view.posOrderId, tables: view.posTables, partySize: view.posPartySize, createdAt: view.openAt };
  const matching = waiting.filter((s) => findSeatingOrder({
    orderId: s.order_id, knownPosIds: [s.pos_hint], tables: s.pos_request.tables, partySize: s.party_size, seatedAt: s.seated_at,
  }, [seen]) !== null);
  return matching.length === 1 ? matching[0] : null;
}

export async function listChecks(ex: Executor, orderIds: string[]): Promise<CheckRow[]> {
  if (orderIds.length === 0) return [];
  const { rows } = await sql<CheckRow>`
    SELECT * FROM order_checks WHERE order_id = ANY(${orderIds}::uuid[]) ORDER BY order_id, check_number`.execute(ex);
  return rows;
}

/**
 * Whether storing a POS view of an order would change nothing: the service closed it (an older
 * view still showing it open does not reopen it), the stored view is newer, or it is this very
 * state. A POS marks every change of an order with a new updatedAt (the sync's from/until windows
 * rely on it, DESIGN 9), so the same updatedAt and status is the state already stored.
 */
export function storedIsCurrent(existing: Pick<OrderRow, 'status' | 'pos_updated_at'>, view: Pick<StoredOrder, 'status' | 'posUpdatedAt'>): boolean {
  if (existing.status !== 'open' && view.status === 'open') return true;
  if (existing.pos_updated_at.getTime() > view.posUpdatedAt.getTime()) return true;
  return existing.status === view.status && sameTime(existing.pos_updated_at, view.posUpdatedAt);
}

/**
 * Inserts or refreshes an order read from the POS, keeping its UUID and its checks' UUIDs. An order
 * the service closed (pay-at-table) is not reopened by an older view of the POS that still shows it
 * open; its close time stays the service's.
 */
export async function upsertOrder(ex: Executor, venueId: string, currency: string, posView: StoredOrder, now: Date): Promise<OrderRow> {
  const existing = await findByPosId(ex, venueId, posView.posOrderId);
  // An order opened from a seated reservation keeps the booking's party size, prepayment and time,
  // whatever the POS says of them (spec 2.10, 2.13; reservation-orders.service.ts).
  const order: StoredOrder = existing?.booking_id
    ? { ...posView, partySize: existing.party_size, reservationDate: existing.reservation_date, prepaymentMinor: Number(existing.prepayment_minor) }
    : posView;
  if (existing && storedIsCurrent(existing, order)) return existing;

  const closedBy = order.status === 'open' ? null : (existing?.closed_by ?? 'pos');
  const closedAt = order.status === 'open' ? null : closedBy === 'pat' && existing?.closed_at ? existing.closed_at : order.closedAt;
  let row: OrderRow;
  if (existing) {
    // updatedAt is "last modified" (spec 2.13): reading the same state again (sync overlap, a re-run,
    // a live bill read) changes nothing, so it keeps its value.
    const changed = !sameOrderState(existing, order, closedAt, closedBy);
    const { rows } = await sql<OrderRow>`
      UPDATE orders SET status = ${order.status}, pos_tables = ${order.posTables}::text[], party_size = ${order.partySize},
        reservation_date = ${order.reservationDate}, prepayment_minor = ${order.prepaymentMinor}, open_at = ${order.openAt},
        closed_at = ${closedAt}, closed_by = ${closedBy}, pos_updated_at = ${order.posUpdatedAt},
        updated_at = ${changed ? now : existing.updated_at}
      WHERE id = ${existing.id} RETURNING *`.execute(ex);
    row = rows[0];
  } else {
    const seating = await seatingOf(ex, venueId, order);
    const own = seating
      ? { id: seating.order_id, partySize: seating.party_size, reservationDate: seating.reservation_date, prepaymentMinor: Number(seating.prepayment_minor), bookingId: seating.booking_id }
      : { id: uuidv7(), partySize: order.partySize, reservationDate: order.reservationDate, prepaymentMinor: order.prepaymentMinor, bookingId: null };
    const { rows } = await sql<OrderRow>`
      INSERT INTO orders (id, venue_id, pos_order_id, status, pos_tables, party_size, reservation_date, currency,
                          prepayment_minor, open_at, closed_at, closed_by, pos_updated_at, created_at, updated_at, booking_id)
      VALUES (${own.id}, ${venueId}, ${order.posOrderId}, ${order.status}, ${order.posTables}::text[], ${own.partySize},
              ${own.reservationDate}, ${currency}, ${own.prepaymentMinor}, ${order.openAt}, ${closedAt}, ${closedBy},
              ${order.posUpdatedAt}, ${now}, ${now}, ${own.bookingId})
      ON CONFLICT (venue_id, pos_order_id) DO UPDATE SET updated_at = excluded.updated_at
      RETURNING *`.execute(ex);
    row = rows[0];
  }
  if (row.status === 'closed' && existing?.status !== 'closed' && (existing || isRecent(row.closed_at, now))) await announceClosed(ex, row, now);

  for (const check of order.checks) {
    await sql`
      INSERT INTO order_checks (id, order_id, check_number, status, subtotal_minor, tax_minor, tip_minor, discount_minor,
                                payment_method, items, closed_at, voided_at, created_at, updated_at)
      VALUES (${uuidv7()}, ${row.id}, ${check.checkNumber}, ${check.status}, ${check.subtotalMinor}, ${check.taxMinor},
              ${check.tipMinor}, ${check.discountMinor}, ${check.paymentMethod}, ${JSON.stringify(check.items)}::jsonb,
              ${check.closedAt}, ${check.voidedAt}, ${now}, ${now})
      ON CONFLICT (order_id, check_number) DO UPDATE SET
        status = excluded.status, subtotal_minor = excluded.subtotal_minor, tax_minor = excluded.tax_minor,
        tip_minor = excluded.tip_minor, discount_minor = excluded.discount_minor, payment_method = excluded.payment_method,
        items = excluded.items,
        closed_at = coalesce(excluded.closed_at, order_checks.closed_at),
        voided_at = coalesce(excluded.voided_at, order_checks.voided_at),
        updated_at = CASE
          WHEN (order_checks.status, order_checks.subtotal_minor, order_checks.tax_minor, order_checks.tip_minor,
                order_checks.discount_minor, order_checks.payment_method, order_checks.items,
                order_checks.closed_at, order_checks.voided_at)
               IS DISTINCT FROM
               (excluded.status, excluded.subtotal_minor, excluded.tax_minor, excluded.tip_minor,
                excluded.discount_minor, excluded.payment_method, excluded.items,
                coalesce(excluded.closed_at, order_checks.closed_at), coalesce(excluded.voided_at, order_checks.voided_at))
          THEN excluded.updated_at ELSE order_checks.updated_at END`.execute(ex);
  }
  // Checks the POS no longer reports (merged into another, say) are gone from the order.
  await sql`DELETE FROM order_checks WHERE order_id = ${row.id}
            AND NOT (check_number = ANY(${order.checks.map((c) => c.checkNumber)}::text[]))`.execute(ex);
  return row;
}

const sameTime = (a: Date | null, b: Date | null): boolean => (a === null || b === null ? a === b : a.getTime() === b.getTime());

/** Whether storing `order` over `row` would leave every column it sets as it is. */
function sameOrderState(row: OrderRow, order: StoredOrder, closedAt: Date | null, closedBy: string | null): boolean {
  return (
    row.status === order.status &&
    row.pos_tables.length === order.posTables.length &&
    row.pos_tables.every((t, i) => t === order.posTables[i]) &&
    row.party_size === order.partySize &&
    sameTime(row.reservation_date, order.reservationDate) &&
    Number(row.prepayment_minor) === order.prepaymentMinor &&
    sameTime(row.open_at, order.openAt) &&
    sameTime(row.closed_at, closedAt) &&
    row.closed_by === closedBy &&
    sameTime(row.pos_updated_at, order.posUpdatedAt)
  );
}

/**
 * `order.closed` for the venue's partners, in the transaction that closes the order. An order first
 * seen already closed is announced only if it closed within the last day: a venue's first sync reads
 * weeks of history, which are not news.
 */
export async function announceClosed(ex: Executor, row: OrderRow, now: Date): Promise<void> {
  const { scope, event } = closedEvent(row, row.closed_at, row.closed_by);
  await emit(ex, scope, event, now);
}

/** The `order.closed` event of an order (the one way its data is built). */
function closedEvent(
  order: Pick<OrderRow, 'id' | 'venue_id' | 'pos_order_id'>,
  closedAt: Date | null,
  closedBy: OrderRow['closed_by'],
): { scope: OutboxScope; event: OutboxEvent } {
  return {
    scope: { venueId: order.venue_id },
    event: {
      type: 'order.closed',
      entityId: order.id,
      data: { orderId: order.id, venueId: order.venue_id, posOrderId: order.pos_order_id, closedAt: closedAt?.toISOString() ?? null, closedBy },
    },
  };
}

const isRecent = (at: Date | null, now: Date) => at !== null && now.getTime() - at.getTime() < 86_400_000;

/**
 * Closes an order in the service (a confirmed payment settled it): its open checks close too, and
 * `order.closed` is emitted, all in one statement. Returns the closed order, or null when it was
 * not open (then nothing is written and nothing emitted).
 */
export async function closeOrderByPat(
  ex: Executor,
  order: Pick<OrderRow, 'id' | 'venue_id' | 'pos_order_id'>,
  now: Date,
  paymentMethod: string | null,
): Promise<OrderRow | null> {
  // The event as the close writes the row (closed_at = now, closed_by = 'pat'), gated on the close.
  const { scope, event } = closedEvent(order, now, 'pat');
  const announced = emitting('closed', scope, event, now, sql`EXISTS (SELECT 1 FROM closed_order)`);
  // One round trip: a data-modifying WITH runs whether or not the outer statement reads it.
  const { rows } = await sql<OrderRow & { closed_notified: number }>`
    WITH closed_order AS (
      UPDATE orders SET status = 'closed', closed_at = ${now}, closed_by = 'pat', updated_at = ${now}
      WHERE id = ${order.id} AND status = 'open'
      RETURNING *),
    closed_checks AS (
      UPDATE order_checks SET status = 'closed', closed_at = ${now}, updated_at = ${now},
        payment_method = coalesce(${paymentMethod}, payment_method)
      WHERE order_id = ${order.id} AND status = 'open'),
    ${announced.ctes}
    SELECT closed_order.*, ${announced.notify} AS closed_notified FROM closed_order`.execute(ex);
  if (!rows[0]) return null;
  const { closed_notified: _n, ...closed } = rows[0];
  return closed;
}

/** What a seated reservation fixes on its order (the rest comes from the POS). */
export interface SeatedOrderLink {
  orderId: string;
  bookingId: string;
  posOrderId: string;
  posTables: string[];
  partySize: number;
  reservationDate: Date;
  prepaymentMinor: number;
  openedAt: Date;
}

/**
 * Links a POS order opened for a seated reservation to its booking: the order row gets the
 * seating's id (or keeps the one a sync gave it first) and the booking's party size, prepayment and
 * time. A row created here has the oldest possible POS update time, so the next read of the POS
 * order replaces everything the POS owns (status, tables, checks).
 */
export async function linkSeatedOrder(ex: Executor, venueId: string, currency: string, link: SeatedOrderLink, now: Date): Promise<OrderRow> {
  const { rows } = await sql<OrderRow>`
    INSERT INTO orders (id, venue_id, pos_order_id, status, pos_tables, party_size, reservation_date, currency,
                        prepayment_minor, open_at, closed_at, closed_by, pos_updated_at, created_at, updated_at, booking_id)
    VALUES (${link.orderId}, ${venueId}, ${link.posOrderId}, 'open', ${link.posTables}::text[], ${link.partySize},
            ${link.reservationDate}, ${currency}, ${link.prepaymentMinor}, ${link.openedAt}, NULL, NULL,
            ${new Date(0)}, ${now}, ${now}, ${link.bookingId})
    ON CONFLICT (venue_id, pos_order_id) DO UPDATE SET
      booking_id = excluded.booking_id, party_size = excluded.party_size, reservation_date = excluded.reservation_date,
      prepayment_minor = excluded.prepayment_minor, updated_at = excluded.updated_at
    RETURNING *`.execute(ex);
  return rows[0];
}
