// Pure rules of the simulated POS: check and order amounts, list filters, retention, and the wire view
// of an order. No I/O here; the services call these.

import { fromMinor } from './money.ts';
import { isoInZone } from './time.ts';
import type { CheckState, OrderState, PaymentState, PosCheck, PosOrder, PosPaymentView, VenueState } from './types.ts';

/** Spec 3.4 / 4.6 rule 5: a closed order stays readable for 45 days after closure, and no longer. */
export const RETENTION_MS = 45 * 24 * 60 * 60 * 1000;

export function isRetained(order: OrderState, now: number): boolean {
  return order.closedAt === null || now <= order.closedAt + RETENTION_MS;
}

/** totalAmount of a check: Σ price × quantity of its items, in minor units (spec 2.7). */
export function checkSubtotalMinor(check: CheckState): number {
  return check.items.reduce((sum, item) => sum + item.priceMinor * item.quantity, 0);
}

/** The check's discount as reported: check-level discount plus every line discount. */
export function checkDiscountMinor(check: CheckState): number {
  return check.items.reduce((sum, item) => sum + item.discountMinor, check.discountMinor);
}

/** Settled amount of a check: totalAmount + tax + tip − discount (spec 2.7, POS-25). */
export function checkSettledMinor(check: CheckState): number {
  return checkSubtotalMinor(check) + check.taxMinor + check.tipMinor - checkDiscountMinor(check);
}

/** Σ (amount − tip) of confirmed payments: what counts toward the bill (spec 2.10 `paid`). */
export function paidMinor(payments: PaymentState[]): number {
  return payments
    .filter((p) => p.status === 'confirmed')
    .reduce((sum, p) => sum + p.amountMinor - p.tipMinor, 0);
}

/**
 * What is still owed: Σ settled amounts of non-void checks − prepayment − paid (payments = those of
 * this order). May be negative.
 */
export function balanceMinor(order: OrderState, payments: PaymentState[]): number {
  const settled = order.checks
    .filter((c) => c.status !== 'void')
    .reduce((sum, c) => sum + checkSettledMinor(c), 0);
  return settled - order.prepaymentMinor - paidMinor(payments);
}

export interface OrderFilter { status?: 'open' | 'closed'; from?: number; until?: number }

/** DESIGN 9: from/until are both inclusive bounds on the order's updatedAt. */
export function matchesFilter(order: OrderState, filter: OrderFilter): boolean {
  if (filter.status && order.status !== filter.status) return false;
  if (filter.from !== undefined && order.updatedAt < filter.from) return false;
  if (filter.until !== undefined && order.updatedAt > filter.until) return false;
  return true;
}

function paymentView(p: PaymentState, currency: string): PosPaymentView {
  return {
    paymentId: p.paymentId,
    type: p.type,
    amount: fromMinor(p.amountMinor, currency),
    tip: fromMinor(p.tipMinor, currency),
    status: p.status,
    ...(p.failureCode ? { failureCode: p.failureCode } : {}),
  };
}

function checkView(check: CheckState, venue: VenueState): PosCheck {
  const money = (minor: number) => fromMinor(minor, venue.currency);
  const time = (ms: number | null) => (ms === null ? null : isoInZone(ms, venue.timezone));
  return {
    checkNumber: check.checkNumber,
    status: check.status,
    totalAmount: money(checkSubtotalMinor(check)),
    tax: money(check.taxMinor),
    tip: money(check.tipMinor),
    discount: money(checkDiscountMinor(check)),
    paymentMethod: check.paymentMethod,
    items: check.items.map((item) => ({
      id: item.id,
      name: item.name,
      price: money(item.priceMinor),
      quantity: item.quantity,
      // Pass-through extras, present only when they carry something.
      ...(item.sku !== null ? { sku: item.sku } : {}),
      ...(item.notes !== null ? { notes: item.notes } : {}),
      ...(item.discountMinor !== 0 ? { discount: money(item.discountMinor) } : {}),
    })),
    closedAt: time(check.closedAt),
    voidedAt: time(check.voidedAt),
  };
}

/** The order as the contract answers it (spec 2.7 plus the documented extensions). */
export function orderView(order: OrderState, venue: VenueState, payments: PaymentState[]): PosOrder {
  const time = (ms: number) => isoInZone(ms, venue.timezone);
  return {
    id: order.id,
    status: order.status,
    tables: [...order.tables],
    partySize: order.partySize,
    guestName: order.guestName,
    checks: order.checks.map((c) => checkView(c, venue)),
    createdAt: time(order.createdAt),
    updatedAt: time(order.updatedAt),
    closedAt: order.closedAt === null ? null : time(order.closedAt),
    source: order.source,
    reservationId: order.reservationId,
    prepayment: fromMinor(order.prepaymentMinor, venue.currency),
    currency: venue.currency,
    seatedAt: time(order.seatedAt),
    payments: payments.map((p) => paymentView(p, venue.currency)),
  };
}
