import { parseAmount, type Minor } from '../lib/money.ts';
import { PosError } from '../pos/pos-client.ts';
import type { PosCheck, PosItem, PosOrder } from '../pos/pos.schemas.ts';

// A POS order, as the contract delivers it (decimals, POS ids), turned into what the store keeps
// (minor units of the venue's currency, statuses the service understands). Amounts with more
// decimals than the currency has are a broken POS answer, not something to round.

export type OrderStatus = 'open' | 'closed' | 'void';

export interface StoredItem {
  /** The POS item id as a string, or null when the POS gives none (DES-131). */
  id: string | null;
  name: string;
  quantity: number;
  priceMinor: Minor;
  /** Line discount reported by the POS, 0 when none. */
  discountMinor: Minor;
  /** Every field the POS sent, untouched (analytics passes unknown fields through). */
  raw: Record<string, unknown>;
}

export interface StoredCheck {
  checkNumber: string;
  status: string;
  subtotalMinor: Minor;
  taxMinor: Minor;
  tipMinor: Minor;
  discountMinor: Minor;
  paymentMethod: string | null;
  items: StoredItem[];
  closedAt: Date | null;
  voidedAt: Date | null;
}

export interface StoredOrder {
  posOrderId: string;
  status: OrderStatus;
  posTables: string[];
  partySize: number | null;
  /** The party size the POS reports, whoever opened the order (a seating waiting for its order matches on it). */
  posPartySize: number | null;
  reservationDate: Date | null;
  prepaymentMinor: Minor;
  openAt: Date;
  closedAt: Date | null;
  posUpdatedAt: Date;
  checks: StoredCheck[];
}

function money(value: unknown, currency: string, where: string): Minor {
  const parsed = parseAmount(value, currency);
  if (!parsed.ok) throw new PosError('bad_shape', `${where} ${parsed.problem}`);
  return parsed.minor;
}

function item(raw: PosItem, currency: string, where: string): StoredItem {
  return {
    id: raw.id === undefined || raw.id === null ? null : String(raw.id),
    name: raw.name,
    quantity: raw.quantity,
    priceMinor: money(raw.price, currency, `${where}.price`),
    discountMinor: raw.discount === undefined ? 0 : money(raw.discount, currency, `${where}.discount`),
    raw: { ...raw },
  };
}

function check(raw: PosCheck, currency: string, where: string): StoredCheck {
  return {
    checkNumber: raw.checkNumber,
    status: raw.status,
    subtotalMinor: money(raw.totalAmount, currency, `${where}.totalAmount`),
    taxMinor: money(raw.tax, currency, `${where}.tax`),
    tipMinor: money(raw.tip, currency, `${where}.tip`),
    discountMinor: money(raw.discount, currency, `${where}.discount`),
    paymentMethod: raw.paymentMethod ? raw.paymentMethod : null,
    items: raw.items.map((it, i) => item(it, currency, `${where}.items[${i}]`)),
    closedAt: raw.closedAt ? new Date(raw.closedAt) : null,
    voidedAt: raw.voidedAt ? new Date(raw.voidedAt) : null,
  };
}

/**
 * An order whose checks are all void is a voided order (DESIGN 9); a closed one with a live check
 * is closed. A walk-in (opened on the POS, not from a reservation) has no party size and no
 * reservation date for pay-at-table (spec 2.10, 2.13), even when the POS reports a party size.
 */
export function fromPosOrder(order: PosOrder, currency: string): StoredOrder {
  const where = `order ${order.id}`;
  const checks = order.checks.map((c, i) => check(c, currency, `${where}.checks[${i}]`));
  const allVoid = checks.length > 0 && checks.every((c) => c.status === 'void');
  const status: OrderStatus = order.status === 'open' ? 'open' : allVoid ? 'void' : 'closed';
  // Only the service creates orders through the contract (spec 4.6 rule 1: when a booked guest is
  // seated), so a POS that marks an order as created by the partner says it came from a reservation,
  // also when it does not echo the service's own id back.
  const fromReservation = (typeof order.reservationId === 'string' && order.reservationId !== '') || order.source === 'partner';
  const seatedAt = typeof (order as Record<string, unknown>).seatedAt === 'string' ? new Date(String((order as Record<string, unknown>).seatedAt)) : null;
  const closedAt = order.closedAt ? new Date(order.closedAt) : status === 'open' ? null : new Date(order.updatedAt);
  return {
    posOrderId: order.id,
    status,
    posTables: [...order.tables],
    partySize: fromReservation ? (order.partySize ?? null) : null,
    posPartySize: order.partySize ?? null,
    reservationDate: fromReservation ? (seatedAt && !Number.isNaN(seatedAt.getTime()) ? seatedAt : new Date(order.createdAt)) : null,
    prepaymentMinor: order.prepayment === undefined || order.prepayment === null ? 0 : money(order.prepayment, currency, `${where}.prepayment`),
    openAt: new Date(order.createdAt),
    closedAt,
    posUpdatedAt: new Date(order.updatedAt),
    checks,
  };
}

// ---- stored rows ----
// The rows of `orders` and `order_checks` as repositories return them; the features that read the
// mirror (pay-at-table, analytics) use these types, never the repository itself.

export interface OrderRow {
  id: string;
  venue_id: string;
  pos_order_id: string;
  status: OrderStatus;
  pos_tables: string[];
  party_size: number | null;
  reservation_date: Date | null;
  currency: string;
  prepayment_minor: number;
  open_at: Date;
  closed_at: Date | null;
  closed_by: 'pos' | 'pat' | null;
  pos_updated_at: Date;
  created_at: Date;
  updated_at: Date;
  /** The RMS booking a seated reservation opened this order for (reservation-orders.service.ts); null for walk-ins. */
  booking_id: string | null;
}

export interface CheckRow {
  id: string;
  order_id: string;
  check_number: string;
  status: string;
  subtotal_minor: number;
  tax_minor: number;
  tip_minor: number;
  discount_minor: number;
  payment_method: string | null;
  items: StoredItem[];
  closed_at: Date | null;
  voided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const checkOfRow = (r: CheckRow): StoredCheck => ({
  checkNumber: r.check_number,
  status: r.status,
  subtotalMinor: r.subtotal_minor,
  taxMinor: r.tax_minor,
  tipMinor: r.tip_minor,
  discountMinor: r.discount_minor,
  paymentMethod: r.payment_method,
  items: r.items,
  closedAt: r.closed_at,
  voidedAt: r.voided_at,
});
