import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/db.ts';
import { isUuid } from '../lib/ids.ts';
import type { StoredCheck } from '../pos-mirror/orders.fns.ts';
import type { KnownOrder } from '../pos-mirror/orders.service.ts';
import type { PaymentForBill } from './bill.fns.ts';
import { VENUE_CONNECTION_COLUMNS, venueWithConnectionOf, type VenueConnectionColumns, type VenueWithConnection } from '../pos-mirror/connections.fns.ts';
import { SCOPED_VENUE_FROM } from './scope.repository.ts';

// The stored bill in one statement (issue 14): the venue in the partner's scope with its POS
// connection, the table, the table's open order, its open checks and its confirmed payments. It
// was six round trips; on two cores shared with PostgreSQL, each one costs more than the work it
// carries. Prepared, like every recurring statement (db/auto-prepare.ts). It reads the
// POS mirror's tables directly (a read model of the mirror, see docs/decisions.md, issue 14); the
// mirror still owns every write to them.

/** An open check as the bill shows it. */
export type BillCheck = Pick<StoredCheck, 'checkNumber' | 'status' | 'subtotalMinor' | 'taxMinor' | 'tipMinor' | 'discountMinor' | 'paymentMethod' | 'items'>;

export interface StoredBillRow {
  /** null when the venue is not in the partner's scope (or does not exist). */
  scoped: VenueWithConnection | null;
  table: { id: string; pos_table_id: string; name: string } | null;
  /** The table's stored open order (the latest opened); a live bill compares it with the POS's. */
  order: KnownOrder | null;
  checks: BillCheck[];
  payments: PaymentForBill[];
}

interface Row extends VenueConnectionColumns {
  t_id: string | null;
  t_pos_table_id: string | null;
  t_name: string | null;
  o_id: string | null;
  o_currency: string | null;
  o_prepayment_minor: number | null;
  o_party_size: number | null;
  o_pos_order_id: string | null;
  o_pos_updated_at: Date | null;
  checks: BillCheck[] | null;
  payments: PaymentForBill[] | null;
}

/** The open checks of an order, as JSON in check-number order (what the bill shows). */
const OPEN_CHECKS = (orderId: RawBuilder<unknown>) => sql`(SELECT json_agg(json_build_object(
           'checkNumber', k.check_number, 'status', k.status, 'subtotalMinor', k.subtotal_minor,
           'taxMinor', k.tax_minor, 'tipMinor', k.tip_minor, 'discountMinor', k.discount_minor,
           'paymentMethod', k.payment_method, 'items', k.items)
         ORDER BY k.check_number)
    FROM order_checks k WHERE k.order_id = ${orderId} AND k.status = 'open')`;

/** The confirmed payments of an order, as JSON (what the bill subtracts). */
const CONFIRMED_PAYMENTS = (orderId: RawBuilder<unknown>) => sql`(SELECT json_agg(json_build_object('status', p.status, 'amountMinor', p.amount_minor, 'tipMinor', p.tip_minor))
    FROM payments p WHERE p.order_id = ${orderId} AND p.status = 'confirmed')`;

const STORED_BILL = (partnerId: string, venueId: string, tableId: string | null) => sql<Row>`
  SELECT ${VENUE_CONNECTION_COLUMNS},
         t.id AS t_id, t.pos_table_id AS t_pos_table_id, t.name AS t_name,
         o.id AS o_id, o.currency AS o_currency, o.prepayment_minor AS o_prepayment_minor, o.party_size AS o_party_size,
         o.pos_order_id AS o_pos_order_id, o.pos_updated_at AS o_pos_updated_at,
         ${OPEN_CHECKS(sql.ref('o.id'))} AS checks,
         ${CONFIRMED_PAYMENTS(sql.ref('o.id'))} AS payments
  ${SCOPED_VENUE_FROM}
  LEFT JOIN venue_tables t ON t.venue_id = v.id AND t.id = ${tableId}::uuid AND t.active
  LEFT JOIN LATERAL (
    SELECT o.id, o.currency, o.prepayment_minor, o.party_size, o.pos_order_id, o.pos_updated_at FROM orders o
    WHERE o.venue_id = v.id AND o.status = 'open' AND t.pos_table_id = ANY(o.pos_tables)
    ORDER BY o.open_at DESC LIMIT 1) o ON true
  WHERE pv.partner_id = ${partnerId}::uuid AND pv.venue_id = ${venueId}::uuid`;

/**
 * The stored bill of a table; `scoped` null when the venue is not the partner's. venueId must be a
 * UUID; a tableId that is not one matches no table.
 */
export async function findStoredBill(db: Pick<Db, 'kysely'>, partnerId: string, venueId: string, tableId: string): Promise<StoredBillRow> {
  const [r] = (await db.kysely.executeQuery<Row>(STORED_BILL(partnerId, venueId, isUuid(tableId) ? tableId : null).compile(db.kysely))).rows;
  if (!r) return { scoped: null, table: null, order: null, checks: [], payments: [] };
  return {
    scoped: venueWithConnectionOf(r),
    table: r.t_id ? { id: r.t_id, pos_table_id: r.t_pos_table_id!, name: r.t_name! } : null,
    order: r.o_id
      ? { id: r.o_id, currency: r.o_currency!, prepayment_minor: r.o_prepayment_minor!, party_size: r.o_party_size, pos_order_id: r.o_pos_order_id!, pos_updated_at: r.o_pos_updated_at! }
      : null,
    checks: r.checks ?? [],
    payments: r.payments ?? [],
  };
}

/**
 * The open checks and confirmed payments of one order, in one statement: what a live bill adds to
 * the order it has just read from the POS (two round trips before, issue 14).
 */
export async function findBillParts(db: Pick<Db, 'kysely'>, orderId: string): Promise<{ checks: BillCheck[]; payments: PaymentForBill[] }> {
  const query = sql<{ checks: BillCheck[] | null; payments: PaymentForBill[] | null }>`
    SELECT ${OPEN_CHECKS(sql`${orderId}::uuid`)} AS checks, ${CONFIRMED_PAYMENTS(sql`${orderId}::uuid`)} AS payments`.compile(db.kysely);
  const [r] = (await db.kysely.executeQuery<{ checks: BillCheck[] | null; payments: PaymentForBill[] | null }>(query)).rows;
  return { checks: r?.checks ?? [], payments: r?.payments ?? [] };
}
