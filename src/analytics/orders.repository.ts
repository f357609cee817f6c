import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import type { CheckRow, OrderRow } from '../pos-mirror/orders.fns.ts';

// SQL of the closed-order history (spec 4.8): read-only, from the orders the POS sync and
// pay-at-table store (DESIGN 6.3), so it answers while a POS is down (DES-085). The page query is
// served by the partial index orders_closed_by_venue (migration 006; plan in docs/analytics.md).
// Every statement here runs on each request, outside any transaction, with a text that never varies:
// prepared statements (issue 14), parsed and planned once per pooled connection.

type Reader = Pick<Db, 'kysely'>;

export interface AnalyticsVenueRef {
  id: string;
  timezone: string | null;
  /** Whether the venue is in the partner's scope (created by it or granted to it). */
  in_scope: boolean;
}

/** The columns of a stored order the history reads; a closed order always has its close time. */
export type ClosedOrderRow = Pick<
  OrderRow,
  'id' | 'pos_order_id' | 'pos_tables' | 'party_size' | 'reservation_date' | 'currency' | 'prepayment_minor' | 'open_at' | 'created_at' | 'updated_at'
> & { closed_at: Date };

/** A check of a stored order: the same row the POS mirror keeps. */
export type ClosedCheckRow = CheckRow;

/** The venue and whether it is in the partner's scope, in one round trip; null when there is no such venue. */
export async function findVenue(db: Reader, venueId: string, partnerId: string): Promise<AnalyticsVenueRef | null> {
  const query = sql<AnalyticsVenueRef>`
    SELECT v.id, v.timezone,
           EXISTS (SELECT 1 FROM partner_venues pv WHERE pv.partner_id = ${partnerId} AND pv.venue_id = v.id) AS in_scope
    FROM venues v WHERE v.id = ${venueId}`.compile(db.kysely);
  return (await db.kysely.executeQuery<AnalyticsVenueRef>(query)).rows[0] ?? null;
}

const closedInWindow = (venueId: string, window: { from: Date; until: Date }) =>
  sql`venue_id = ${venueId} AND status = 'closed' AND closed_at >= ${window.from} AND closed_at <= ${window.until}`;

/** The page of the window, most recent first (id breaks ties, so pages never overlap or skip). */
const closedPage = (venueId: string, window: { from: Date; until: Date }, page: { limit: number; offset: number }) => sql`
  SELECT id, pos_order_id, pos_tables, party_size, reservation_date, currency, prepayment_minor,
         open_at, closed_at, created_at, updated_at
  FROM orders
  WHERE ${closedInWindow(venueId, window)}
  ORDER BY closed_at DESC, id DESC
  LIMIT ${page.limit} OFFSET ${page.offset}`;

/**
 * One page of a venue's closed orders whose close time is within [from, until], with how many
 * match in all on every row. One statement, so the total and the page come from one snapshot; with
 * no order on the page the single row still carries the total. Exported as a query for the bench,
 * which runs it raw through `pg`.
 */
export function closedOrdersPageQuery(venueId: string, window: { from: Date; until: Date }, page: { limit: number; offset: number }) {
  return sql<ClosedOrderRow & { total: number }>`
    SELECT c.total, o.*
    FROM (SELECT count(*)::int AS total FROM orders WHERE ${closedInWindow(venueId, window)}) c
    LEFT JOIN LATERAL (${closedPage(venueId, window, page)}) o ON true`;
}

export async function pageClosedOrders(
  db: Reader,
  venueId: string,
  window: { from: Date; until: Date },
  page: { limit: number; offset: number },
): Promise<{ total: number; orders: ClosedOrderRow[] }> {
  const rows = (await db.kysely.executeQuery<ClosedOrderRow & { total: number }>(closedOrdersPageQuery(venueId, window, page).compile(db.kysely))).rows;
  const total = rows[0]?.total ?? 0;
  return { total, orders: rows.filter((r) => r.id !== null).map(({ total: _total, ...order }) => order) };
}

/**
 * The page as above, and first whether the venue exists and is in the partner's scope: one round
 * trip where a window needs no venue time zone (orders.service.ts). No row: no such venue; out of
 * scope: neither the count nor the page is run.
 */
export async function pageClosedOrdersInScope(
  db: Reader,
  venueId: string,
  partnerId: string,
  window: { from: Date; until: Date },
  page: { limit: number; offset: number },
): Promise<{ inScope: boolean; total: number; orders: ClosedOrderRow[] } | null> {
  const query = sql<ClosedOrderRow & { in_scope: boolean; total: number }>`
    SELECT v.in_scope, c.total, o.*
    FROM (SELECT EXISTS (SELECT 1 FROM partner_venues pv WHERE pv.partner_id = ${partnerId} AND pv.venue_id = venues.id) AS in_scope
          FROM venues WHERE id = ${venueId}) v
    LEFT JOIN LATERAL (SELECT count(*)::int AS total FROM orders WHERE v.in_scope AND ${closedInWindow(venueId, window)}) c ON true
    LEFT JOIN LATERAL (SELECT * FROM (${closedPage(venueId, window, page)}) p WHERE v.in_scope) o ON true`.compile(db.kysely);
  const rows = (await db.kysely.executeQuery<ClosedOrderRow & { in_scope: boolean; total: number }>(query)).rows;
  if (rows.length === 0) return null;
  return {
    inScope: rows[0].in_scope,
    total: rows[0].total,
    orders: rows.filter((r) => r.id !== null).map(({ in_scope: _inScope, total: _total, ...order }) => order),
  };
}

/** The checks of these orders, in check-number order ("2" before "10"). */
export function checksQuery(orderIds: string[]) {
  return sql<ClosedCheckRow>`
    SELECT id, order_id, check_number, status, subtotal_minor, tax_minor, tip_minor, discount_minor,
           payment_method, items, closed_at, voided_at, created_at, updated_at
    FROM order_checks
    WHERE order_id = ANY(${orderIds}::uuid[])
    ORDER BY order_id, length(check_number), check_number, id`;
}

export async function listChecks(db: Reader, orderIds: string[]): Promise<ClosedCheckRow[]> {
  if (orderIds.length === 0) return [];
  return (await db.kysely.executeQuery<ClosedCheckRow>(checksQuery(orderIds).compile(db.kysely))).rows;
}
