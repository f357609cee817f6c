import { mulQuantity, sumMinor, type Minor } from '../lib/money.ts';
import type { StoredCheck, StoredItem } from '../pos-mirror/orders.fns.ts';

// The bill's arithmetic (spec 2.10), on integer minor units, pure and property-tested.
//   check:  subtotal = Σ price × quantity; total = subtotal + tax + tip − discount
//   order:  sums over the open checks; prepayment from the order;
//           paid = Σ (amount − tip) over CONFIRMED payments only;
//           totalDue = max(0, total − prepayment − paid)

export interface CheckTotals {
  subtotal: Minor;
  tax: Minor;
  tip: Minor;
  discount: Minor;
  total: Minor;
}

export interface OrderTotals extends CheckTotals {
  prepayment: Minor;
  paid: Minor;
  totalDue: Minor;
}

export interface PaymentForBill {
  status: string;
  amountMinor: Minor;
  tipMinor: Minor | null;
}

export interface BillItem {
  id: string | null;
  name: string;
  quantity: number;
  unitPrice: Minor;
  total: Minor;
}

export function itemOf(item: StoredItem): BillItem {
  return {
    id: item.id,
    name: item.name,
    quantity: item.quantity,
    unitPrice: item.priceMinor,
    // unit price × quantity, minus the line discount where the POS reports one (spec 2.10).
    total: mulQuantity(item.priceMinor, item.quantity) - item.discountMinor,
  };
}

export function checkTotals(check: Pick<StoredCheck, 'subtotalMinor' | 'taxMinor' | 'tipMinor' | 'discountMinor'>): CheckTotals {
  return {
    subtotal: check.subtotalMinor,
    tax: check.taxMinor,
    tip: check.tipMinor,
    discount: check.discountMinor,
    total: sumMinor([check.subtotalMinor, check.taxMinor, check.tipMinor, -check.discountMinor]),
  };
}

/** Σ (amount − tip) of confirmed payments; pending and failed never count (spec 2.10, 3.1). */
export function paidOf(payments: readonly PaymentForBill[]): Minor {
  return sumMinor(payments.filter((p) => p.status === 'confirmed').map((p) => p.amountMinor - (p.tipMinor ?? 0)));
}

export function orderTotals(
  openChecks: readonly Pick<StoredCheck, 'subtotalMinor' | 'taxMinor' | 'tipMinor' | 'discountMinor'>[],
  prepayment: Minor,
  payments: readonly PaymentForBill[],
): OrderTotals {
  const per = openChecks.map(checkTotals);
  const sum = (k: keyof CheckTotals) => sumMinor(per.map((t) => t[k]));
  const total = sum('total');
  const paid = paidOf(payments);
  return {
    subtotal: sum('subtotal'),
    tax: sum('tax'),
    tip: sum('tip'),
    discount: sum('discount'),
    total,
    prepayment,
    paid,
    totalDue: Math.max(0, total - prepayment - paid),
  };
}

/** Whether confirmed payments settle the order: the balance reaches 0 (spec 3.2). */
export function isSettled(totals: Pick<OrderTotals, 'total' | 'prepayment' | 'paid'>): boolean {
  return totals.total - totals.prepayment - totals.paid <= 0;
}
