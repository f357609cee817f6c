// Request schemas of the partner contract (spec 4.6) and its payment extension (DESIGN 6.2).
// Responses have no schema on purpose: the broken modes must be able to answer what a faulty POS
// would, and a response schema would quietly repair them.

import Type from 'typebox';

export const VenueParams = Type.Object({ venueId: Type.String() });
export const OrderParams = Type.Object({ venueId: Type.String(), orderId: Type.String() });
export const PaymentParams = Type.Object({ venueId: Type.String(), orderId: Type.String(), paymentId: Type.String() });

export const CreateOrderBody = Type.Object({
  id: Type.Optional(Type.String()),
  tables: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  guestName: Type.Optional(Type.String()),
  guestEmail: Type.Optional(Type.String()),
  guestTelephone: Type.Optional(Type.String()),
  partySize: Type.Optional(Type.Integer({ minimum: 0 })),
  prepayment: Type.Optional(Type.Number({ minimum: 0 })),
  date: Type.Optional(Type.String()),
  items: Type.Optional(Type.Array(Type.Object({
    sku: Type.String({ minLength: 1 }),
    quantity: Type.Integer({ minimum: 1 }),
    notes: Type.Optional(Type.String()),
  }))),
  /** Deprecated by the spec; ignored, since `tables` is required. */
  tableId: Type.Optional(Type.String()),
});
export type CreateOrderBody = Type.Static<typeof CreateOrderBody>;

export const OrdersQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
  from: Type.Optional(Type.String()),
  until: Type.Optional(Type.String()),
});

export const PaymentForwardBody = Type.Object({
  paymentId: Type.String({ minLength: 1, maxLength: 128 }),
  type: Type.Union([Type.Literal('full'), Type.Literal('partial')]),
  amount: Type.Number({ minimum: 0 }),
  tip: Type.Optional(Type.Number({ minimum: 0 })),
  currency: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  paymentMethod: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type PaymentForwardBody = Type.Static<typeof PaymentForwardBody>;
