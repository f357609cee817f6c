import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import type { CheckRow, OrderRow } from '../pos-mirror/orders.fns.ts';

// SQL of the closed-order history (spec 4.8): read-only, from the orders the POS sync and
// pay-at-table store (DESIGN 6.3), so it answers while a POS is down (DES-085). The page query is
// served by the partial index orders_closed_by_venue (migration 006; plan in docs/analytics.md).
// A page is one statement (the venue's scope too where the window allows), prepared like every
// recurring statement (db/auto-prepare.ts).

type Reader = Pick<Db, 'kysely'>;

export interface AnalyticsVenueRef {
  id: string;
  timezone: string | null;
  /** Whether the venue is in the partner's scope (created by it or granted to it). */
  in_scope: boolean;
}

/**
 * A closed order as the history reads it: its instants already written as the API writes them
 * (`isoInstant`'s form), its checks with it. Formatting in PostgreSQL and reading the checks in the
 * page's statement is what keeps the endpoint near the raw SQL (issue 14): a page of 100 orders
 * held about 1,000 timestamps that `pg` parsed into Dates only to be written back as text, and the
 * checks were a second round trip.
 */
export type ClosedOrderRow = Pick<OrderRow, 'id' | 'pos_order_id' | 'pos_tables' | 'party_size' | 'currency' | 'prepayment_minor'> & {
  reservation_date: string | null;
  open_at: string;
  closed_at: string;
  created_at: string;
  updated_at: string;
  /** In check-number order ("2" before "10"). */
  checks: ClosedCheckRow[];
};

/** A check of a stored order (the POS mirror's row), its instants as text like the order's. */
export type ClosedCheckRow = Omit<CheckRow, 'order_id' | 'closed_at' | 'voided_at' | 'created_at' | 'updated_at'> & {
  closed_at: string | null;
  voided_at: string | null;
  created_at: string;
  updated_at: string;
};

/**
 * An instant as `isoInstant` writes it (UTC, milliseconds, Z): to_char truncates the microseconds
 * as a JS Date does. Equal for the years 1 to 9999, all a stored order can hold.
 */
const iso = (column: string) => sql`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The columns of order `o` and of its check `k`, one row per check (an order without checks, or the
 * total's row of an empty page, has null check columns). A join rather than each order's checks as
 * JSON: building that JSON cost PostgreSQL more than the rows it replaces (bench/README.md).
 */
const PAGE_COLUMNS = sql`o.id, o.pos_order_id, o.pos_tables, o.party_size, ${iso('o.reservation_date')} AS reservation_date,
  o.currency, o.prepayment_minor, ${iso('o.open_at')} AS open_at, ${iso('o.closed_at')} AS closed_at,
  ${iso('o.created_at')} AS created_at, ${iso('o.updated_at')} AS updated_at,
  k.id AS k_id, k.check_number AS k_check_number, k.status AS k_status, k.subtotal_minor AS k_subtotal_minor,
  k.tax_minor AS k_tax_minor, k.tip_minor AS k_tip_minor, k.discount_minor AS k_discount_minor,
  k.payment_method AS k_payment_method, k.items AS k_items, ${iso('k.closed_at')} AS k_closed_at,
  ${iso('k.voided_at')} AS k_voided_at, ${iso('k.created_at')} AS k_created_at, ${iso('k.updated_at')} AS k_updated_at`;

/** The page's orders most recent first (as `closedPage`), each order's checks in check-number order ("2" before "10"). */
const PAGE_ORDER = sql`ORDER BY o.closed_at DESC, o.id DESC, length(k.check_number), k.check_number, k.id`;

type PageRow = Omit<ClosedOrderRow, 'id' | 'checks'> & { id: string | null; total: number } & {
  [K in keyof ClosedCheckRow as `k_${K}`]: K extends 'id' ? string | null : ClosedCheckRow[K];
};

/** The orders of the page's rows, their checks gathered from consecutive rows. */
function ordersOf(rows: PageRow[]): ClosedOrderRow[] {
  const orders: ClosedOrderRow[] = [];
  let current = null as ClosedOrderRow | null;
  for (const r of rows) {
    if (r.id === null) continue;
    if (current?.id !== r.id) {
      current = {
        id: r.id,
        pos_order_id: r.pos_order_id,
        pos_tables: r.pos_tables,
        party_size: r.party_size,
        reservation_date: r.reservation_date,
        currency: r.currency,
        prepayment_minor: r.prepayment_minor,
        open_at: r.open_at,
        closed_at: r.closed_at,
        created_at: r.created_at,
        updated_at: r.updated_at,
        checks: [],
      };
      orders.push(current);
    }
    if (r.k_id === null) continue;
    current.checks.push({
      id: r.k_id,
      check_number: r.k_check_number,
      status: r.k_status,
      subtotal_minor: r.k_subtotal_minor,
      tax_minor: r.k_tax_minor,
      tip_minor: r.k_tip_minor,
      discount_minor: r.k_discount_minor,
      payment_method: r.k_payment_method,
      items: r.k_items,
      closed_at: r.k_closed_at,
      voided_at: r.k_voided_at,
      created_at: r.k_created_at,
      updated_at: r.k_updated_at,
    });
  }
  return orders;
}

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
 * One page of a venue's closed orders whose close time is within [from, until], with their checks,
 * and how many match in all on every row. One statement, so the total and the page come from one
 * snapshot; with no order on the page the single row still carries the total.
 */
export async function pageClosedOrders(
  db: Reader,
  venueId: string,
  window: { from: Date; until: Date },
  page: { limit: number; offset: number },
): Promise<{ total: number; orders: ClosedOrderRow[] }> {
  const query = sql<PageRow>`
    SELECT c.total, ${PAGE_COLUMNS}
    FROM (SELECT count(*)::int AS total FROM orders WHERE ${closedInWindow(venueId, window)}) c
    LEFT JOIN LATERAL (${closedPage(venueId, window, page)}) o ON true
    LEFT JOIN order_checks k ON k.order_id = o.id
    ${PAGE_ORDER}`.compile(db.kysely);
  const rows = (await db.kysely.executeQuery<PageRow>(query)).rows;
  return { total: rows[0]?.total ?? 0, orders: ordersOf(rows) };
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
  const query = sql<PageRow & { in_scope: boolean }>`
    SELECT v.in_scope, c.total, ${PAGE_COLUMNS}
    FROM (SELECT EXISTS (SELECT 1 FROM partner_venues pv WHERE pv.partner_id = ${partnerId} AND pv.venue_id = venues.id) AS in_scope
          FROM venues WHERE id = ${venueId}) v
    LEFT JOIN LATERAL (SELECT count(*)::int AS total FROM orders WHERE v.in_scope AND ${closedInWindow(venueId, window)}) c ON true
    LEFT JOIN LATERAL (SELECT * FROM (${closedPage(venueId, window, page)}) p WHERE v.in_scope) o ON true
    LEFT JOIN order_checks k ON k.order_id = o.id
    ${PAGE_ORDER}`.compile(db.kysely);
  const rows = (await db.kysely.executeQuery<PageRow & { in_scope: boolean }>(query)).rows;
  if (rows.length === 0) return null;
  return { inScope: rows[0].in_scope, total: rows[0].total, orders: ordersOf(rows) };
}
