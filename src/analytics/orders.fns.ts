import type { FieldProblems } from '../lib/errors.ts';
import { instantOf, parseIsoDateOrDateTime } from '../lib/iso/datetimes.ts';
import { isTimeZone } from '../lib/iso/timezones.ts';
import { toWire } from '../lib/money.ts';
import type { StoredItem } from '../pos-mirror/orders.fns.ts';
import type { ClosedOrder, ClosedOrderCheck, ClosedOrderItem } from './orders.schemas.ts';
import type { ClosedCheckRow, ClosedOrderRow } from './orders.repository.ts';

// Pure rules of the closed-order history (spec 2.13, 4.8; DESIGN 9): the from..until window and the
// wire shape of a stored order.

/** spec 4.8: from..until is at most 31 days; DESIGN 9: 31 × 24 h after resolving both bounds. */
export const MAX_WINDOW_MS = 31 * 24 * 3600_000;

export type Window = { ok: true; from: Date; until: Date } | { ok: false; problems: FieldProblems };

/**
 * Resolves from/until (both inclusive) in the venue's time zone, UTC when it has none: a date-only
 * from is 00:00:00.000 of that day and a date-only until 23:59:59.999 (DES-043, DES-125). Refuses a
 * window longer than 31 × 24 h and an until before from, naming both fields.
 */
export function resolveWindow(fromText: string, untilText: string, venueTimeZone: string | null): Window {
  const timeZone = venueTimeZone && isTimeZone(venueTimeZone) ? venueTimeZone : 'UTC';
  const problems: FieldProblems = {};
  const parsedFrom = parseIsoDateOrDateTime(fromText);
  const parsedUntil = parseIsoDateOrDateTime(untilText);
  const unparseable = 'must be an ISO 8601 date or date-time';
  if (!parsedFrom) problems.from = [unparseable];
  if (!parsedUntil) problems.until = [unparseable];
  if (!parsedFrom || !parsedUntil) return { ok: false, problems };

  const from = instantOf(parsedFrom, 'start', timeZone);
  const until = instantOf(parsedUntil, 'end', timeZone);
  if (until.getTime() < from.getTime()) {
    return {
      ok: false,
      problems: { from: ['must not be later than until'], until: [`must not be earlier than from (${from.toISOString()})`] },
    };
  }
  if (until.getTime() - from.getTime() > MAX_WINDOW_MS) {
    const problem = `the window from ${from.toISOString()} to ${until.toISOString()} is longer than 31 days`;
    return { ok: false, problems: { from: [problem], until: [problem] } };
  }
  return { ok: true, from, until };
}

/**
 * The window when it needs no venue time zone: both bounds are date-times with an offset (or Z).
 * Null otherwise (a date-only or wall-clock bound, or one missing or unparseable), when only the
 * venue can resolve it.
 */
export function zoneFreeWindow(fromText: string | undefined, untilText: string | undefined): Window | null {
  if (fromText === undefined || untilText === undefined) return null;
  const hasOffset = (text: string) => {
    const parsed = parseIsoDateOrDateTime(text);
    return parsed?.kind === 'date-time' && parsed.offsetMinutes !== null;
  };
  return hasOffset(fromText) && hasOffset(untilText) ? resolveWindow(fromText, untilText, null) : null;
}

const RELIABLE_ITEM_FIELDS = new Set(['id', 'name', 'price', 'quantity']);

/** id, name, price, quantity in one shape for every POS; whatever else the POS sent passes through. */
function itemOf(item: StoredItem, currency: string): ClosedOrderItem {
  const out: Record<string, unknown> = { id: item.id, name: item.name, price: toWire(item.priceMinor, currency), quantity: item.quantity };
  const raw = item.raw ?? {};
  for (const key of Object.keys(raw)) if (!RELIABLE_ITEM_FIELDS.has(key)) out[key] = raw[key];
  return out as ClosedOrderItem;
}

/**
 * A stored check as a closed-order check: 'void' stays void, any other state of a check on a closed
 * order is 'closed'. voidedAt is null unless void (spec 2.13); a POS that gave no time falls back to
 * the order's close time, so a closed check always has a closedAt and a void one a voidedAt.
 */
function checkOf(check: ClosedCheckRow, order: ClosedOrderRow): ClosedOrderCheck {
  const money = (minor: number) => toWire(minor, order.currency);
  const isVoid = check.status === 'void';
  return {
    id: check.id,
    checkNumber: check.check_number,
    status: isVoid ? 'void' : 'closed',
    totalAmount: money(check.subtotal_minor),
    tax: money(check.tax_minor),
    tip: money(check.tip_minor),
    discount: money(check.discount_minor),
    paymentMethod: check.payment_method,
    items: check.items.map((item) => itemOf(item, order.currency)),
    closedAt: isVoid ? check.closed_at : (check.closed_at ?? order.closed_at),
    voidedAt: isVoid ? (check.voided_at ?? check.closed_at ?? order.closed_at) : null,
    createdAt: check.created_at,
    updatedAt: check.updated_at,
  };
}

/**
 * The closed order of spec 2.13. prepayment: what the deposit/prepayment flow paid; 0 for an order
 * from a reservation without one, null for a walk-in without one (a walk-in has no reservation to
 * have prepaid, like its null partySize and reservationDate).
 */
export function toClosedOrder(order: ClosedOrderRow): ClosedOrder {
  const walkIn = order.reservation_date === null;
  return {
    id: order.id,
    status: 'closed',
    tables: order.pos_tables,
    partySize: order.party_size,
    reservationDate: order.reservation_date,
    externalId: order.pos_order_id,
    prepayment: order.prepayment_minor === 0 && walkIn ? null : toWire(order.prepayment_minor, order.currency),
    currency: order.currency,
    openAt: order.open_at,
    closedAt: order.closed_at,
    createdAt: order.created_at,
    updatedAt: order.updated_at,
    checks: order.checks.map((check) => checkOf(check, order)),
  };
}
