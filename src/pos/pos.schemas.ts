import Type, { type Static } from 'typebox';
import { POS_MAX_CHECKS, POS_MAX_ITEMS, POS_MAX_TABLES, PosPartySize, PosQuantity, PosText } from './pos-limits.ts';

// What a POS may answer under the partner contract (spec 2.6, 2.7, 4.6) and the payment extension
// (DESIGN 6.2). The client validates every answer against these before anything reaches the
// service: a POS is an outside system and is not trusted. Extra fields are allowed and kept (the
// analytics API passes other item fields through).

const Timestamp = Type.String({ format: 'date-time' });

// Limits on what Tableside passes on from a POS (its API document declares them): pos-limits.ts.
const PosId = PosText({ minLength: 1 });

export const PosTable = Type.Object({ id: PosId, name: PosText() });
export type PosTable = Static<typeof PosTable>;
export const PosTables = Type.Array(PosTable, { maxItems: POS_MAX_TABLES });

export const PosItem = Type.Object(
  {
    // spec 2.7 says integer; POS systems in the wild send strings too, and some send none.
    id: Type.Optional(Type.Union([Type.Integer(), PosText(), Type.Null()])),
    name: PosText(),
    price: Type.Number(),
    quantity: PosQuantity(),
    discount: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: true },
);
export type PosItem = Static<typeof PosItem> & Record<string, unknown>;

export const PosCheck = Type.Object(
  {
    checkNumber: PosText(),
    status: PosText(),
    totalAmount: Type.Number(),
    tax: Type.Number(),
    tip: Type.Number(),
    discount: Type.Number(),
    paymentMethod: Type.Optional(Type.Union([PosText(), Type.Null()])),
    items: Type.Array(PosItem, { maxItems: POS_MAX_ITEMS }),
    closedAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
    voidedAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  },
  { additionalProperties: true },
);
export type PosCheck = Static<typeof PosCheck> & Record<string, unknown>;

export const PosOrder = Type.Object(
  {
    id: PosId,
    status: Type.Enum(['open', 'closed']),
    tables: Type.Array(PosText(), { maxItems: POS_MAX_TABLES }),
    partySize: Type.Optional(Type.Union([PosPartySize(), Type.Null()])),
    guestName: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    checks: Type.Array(PosCheck, { maxItems: POS_MAX_CHECKS }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    closedAt: Type.Union([Timestamp, Type.Null()]),
    // Extensions a POS may send and the service uses when present.
    prepayment: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    reservationId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    source: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
export type PosOrder = Static<typeof PosOrder>;
export const PosOrders = Type.Array(PosOrder);

/**
 * What a live bill reads of every order of the venue's open list (PosClient.openOrdersForTable): its
 * id, status and tables, to find the table's. Only the orders on the table are used, and those are
 * checked in full (PosOrder); the rest, typically dozens of other tables' orders, are not (issue 28:
 * checking all of them cost a live bill about as much as the stored bill's whole statement).
 */
export const PosOrderHead = Type.Object(
  { id: PosId, status: Type.Enum(['open', 'closed']), tables: Type.Array(PosText(), { maxItems: POS_MAX_TABLES }) },
  { additionalProperties: true },
);
export type PosOrderHead = Static<typeof PosOrderHead>;
export const PosOrderHeads = Type.Array(PosOrderHead);

export const CreatedOrder = Type.Object({ id: PosId, checkNumber: Type.String() });
export const UnknownSkus = Type.Object({ error: Type.String(), unknownSkus: Type.Array(Type.String()) });

export const PosPaymentState = Type.Object({
  status: Type.Enum(['pending', 'confirmed', 'failed']),
  failureCode: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type PosPaymentState = Static<typeof PosPaymentState>;
