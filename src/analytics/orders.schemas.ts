import Type, { type Static } from 'typebox';
import { pageQuery, PageTotal } from '../lib/pagination.ts';
import { POS_MAX_CHECKS, POS_MAX_ITEMS, POS_MAX_TABLES, PosPartySize, PosQuantity, PosText } from '../pos/pos-limits.ts';
import { CurrencyCode, DateOrDateTime, DateTime, Int32, Nullable, Str, Uuid } from '../server/schemas.ts';

// The closed order of spec 2.13, served by GET /v1/pos/venue/{venueId}/order (spec 4.8). It is its
// own shape: not the partner-side order of 2.7, not the bill of 2.10 (no totals object, no
// tableName or totalDue). The response schemas are also the allow-list of what leaves the server,
// except items, which pass through every field the POS reported (spec 2.13). Texts and counts that
// come from the POS stay within the limits the POS client enforces (pos/pos-limits.ts).

/** An ISO 8601 instant with its offset (DESIGN 5). */
const At = (description?: string) =>
  DateTime({ description: description ? `${description}; ISO 8601 with offset` : 'ISO 8601 with offset' });

const Money = (description: string) => Type.Number({ description: `${description}; decimal in the order's currency` });

/** spec 4.8, 8: limit default 50, max 100; offset default 0 (capped so a huge number is a 400, not a database error). */
export const MAX_ORDERS_LIMIT = 100;
export const DEFAULT_ORDERS_LIMIT = 50;

const Bound = (edge: 'from' | 'until', description: string) =>
  DateOrDateTime({
    description,
    examples: edge === 'from' ? ['2026-01-01', '2026-01-01T00:00:00Z'] : ['2026-01-31', '2026-01-31T23:59:59.999+01:00'],
  });

export const ClosedOrdersQuery = Type.Object({
  from: Bound(
    'from',
    'inclusive lower bound on the close time: an ISO 8601 date-time, or a date (YYYY-MM-DD) meaning 00:00:00.000 of that day in the venue\'s time zone (UTC when it has none); a date-time without an offset is read in the venue\'s time zone too',
  ),
  until: Bound(
    'until',
    'inclusive upper bound on the close time: an ISO 8601 date-time, or a date meaning 23:59:59.999 of that day in the venue\'s time zone; at most 31 × 24 hours after from, and not before it',
  ),
  ...pageQuery({ defaultLimit: DEFAULT_ORDERS_LIMIT, maxLimit: MAX_ORDERS_LIMIT, minLimit: 1, what: 'orders' }),
});
export type ClosedOrdersQuery = Static<typeof ClosedOrdersQuery>;

export const VenueParams = Type.Object({ venueId: Str(64, { description: 'canonical venue id' }) });

export const ClosedOrderItem = Type.Object(
  {
    id: Nullable(PosText({ description: 'POS item id as a string; null when the POS gives none' })),
    name: PosText(),
    price: Money('unit price'),
    quantity: PosQuantity(),
  },
  {
    $id: 'ClosedOrderItem',
    additionalProperties: true,
    description: 'id, name, price and quantity are reliable for every POS; other fields the POS reported (sku, notes, discount, …) pass through as it sent them.',
  },
);

export const ClosedOrderCheck = Type.Object(
  {
    id: Uuid({ description: 'stable' }),
    checkNumber: PosText({ description: 'unique within the order, not across the venue' }),
    status: Type.Union([Type.Literal('closed'), Type.Literal('void')]),
    totalAmount: Money('subtotal: the items before tax, tip and discount'),
    tax: Money('tax'),
    tip: Money('tip'),
    discount: Money('discount (check-level plus line discounts)'),
    paymentMethod: Nullable(PosText({ description: "the POS's free-form payment method" })),
    items: Type.Array(ClosedOrderItem, { maxItems: POS_MAX_ITEMS }),
    closedAt: Nullable(At()),
    voidedAt: Nullable(At('null unless status is void')),
    createdAt: At(),
    updatedAt: At(),
  },
  { $id: 'ClosedOrderCheck', additionalProperties: false },
);

export const ClosedOrder = Type.Object(
  {
    id: Uuid({ description: 'stable; the orderId the bill and payments used while the order was open' }),
    status: Type.Literal('closed'),
    tables: Type.Array(PosText(), { maxItems: POS_MAX_TABLES, description: 'POS table ids; several for merged tables' }),
    partySize: Nullable(PosPartySize({ description: 'null for walk-ins' })),
    reservationDate: Nullable(At('the reservation the order came from (when its guests were seated); null for walk-ins')),
    externalId: PosText({ description: 'the POS-side order id' }),
    prepayment: Nullable(Money('paid through the deposit/prepayment flow; 0 for a reservation without one, null for a walk-in without one')),
    currency: CurrencyCode({ description: 'ISO 4217 currency of every amount of the order (extension)' }),
    openAt: At('when the order opened on the POS'),
    closedAt: At('the close time from and until filter on (extension)'),
    createdAt: At('when the service first stored the order'),
    updatedAt: At('when the service last changed it'),
    checks: Type.Array(ClosedOrderCheck, { maxItems: POS_MAX_CHECKS }),
  },
  { $id: 'ClosedOrder', additionalProperties: false },
);
export type ClosedOrder = Static<typeof ClosedOrder>;
export type ClosedOrderCheck = Static<typeof ClosedOrderCheck>;
export type ClosedOrderItem = Static<typeof ClosedOrderItem>;

export const ClosedOrderList = Type.Object({
  total: PageTotal({ description: 'orders matching from..until, whatever limit and offset are' }),
  orders: Type.Array(ClosedOrder, { maxItems: MAX_ORDERS_LIMIT, description: 'most recent close first' }),
});
export type ClosedOrderList = Static<typeof ClosedOrderList>;
