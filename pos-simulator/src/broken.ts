// Deliberately broken modes. Each one makes the simulator violate exactly one rule of the partner
// contract, so the conformance kit (`tableside pos-check`) can show it catches that violation.
// The value names the pos-check rule id that must fail.

import { fromMinor, toMinor } from './money.ts';

export const BROKEN_MODES = {
  'no-auth': 'auth-required',
  'tables-numeric-ids': 'tables-shape',
  'create-missing-checknumber': 'create-order-shape',
  'order-bad-types': 'order-shape',
  'ignore-status-filter': 'status-filter',
  'ignore-window': 'window-filter',
  'wrong-check-total': 'check-total',
  'drop-unknown-skus': 'unknown-sku',
  'drop-merged-tables': 'merged-tables',
  'forget-closed': 'closed-readable',
  'double-apply-payment': 'payment-idempotent',
} as const;

export type BrokenMode = keyof typeof BROKEN_MODES;

export function isBrokenMode(value: unknown): value is BrokenMode {
  return typeof value === 'string' && Object.hasOwn(BROKEN_MODES, value);
}

/**
 * The order as a faulty POS would answer it, for the modes that corrupt the order's shape. Other
 * modes act where the fault would live (auth, filters, create, payments).
 */
export function distortOrder<T extends { partySize: number; closedAt: string | null; checks: Array<{ totalAmount: number; items: Array<{ price: number }> }> }>(
  order: T,
  mode: BrokenMode | null,
  currency: string,
): Record<string, unknown> {
  if (mode === 'order-bad-types') {
    // partySize as a string, and closedAt left out while the order is open.
    const { closedAt, ...rest } = order;
    return { ...rest, partySize: String(order.partySize), ...(closedAt === null ? {} : { closedAt }) };
  }
  if (mode === 'wrong-check-total') {
    // The classic bug: summing unit prices and forgetting the quantities.
    return {
      ...order,
      checks: order.checks.map((c) => ({
        ...c,
        totalAmount: fromMinor(c.items.reduce((sum, i) => sum + (toMinor(i.price, currency) ?? 0), 0), currency),
      })),
    };
  }
  return order;
}
