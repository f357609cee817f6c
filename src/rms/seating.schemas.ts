import Type, { type Static } from 'typebox';
import { Nullable } from '../server/schemas.ts';

// Seated reservations (DESIGN 8.3c): what an RMS sends and what it gets back. The ids are the RMS's
// own (venueId: the venue's externalId, bookingId: its booking id). Responses are the allow-list of
// what leaves the server (STYLE 3).

// The store cannot hold U+0000, so it is refused here with the field named, never a 5xx later.
const NO_NUL = { pattern: '^[^\\u0000]*$', 'x-problem': 'must not contain the NUL character (\\u0000)' };
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, allOf: [NO_NUL], description });
const Text = (maxLength: number, description?: string) => Type.String({ maxLength, allOf: [NO_NUL], ...(description ? { description } : {}) });

export const RmsVenueParams = Type.Object({ venueId: Id("the venue's externalId (your own id of it)") });

export const PosTablesAnswer = Type.Object({
  venueId: Type.String({ description: "the venue's externalId, as in the path" }),
  tables: Type.Array(
    Type.Object({
      id: Type.String({ description: 'the POS table id: send it in `tables` of a seated reservation' }),
      name: Type.String(),
      area: Nullable(Type.String({ description: 'null: the POS contract (spec 2.6) reports no area' })),
    }),
  ),
  count: Type.Integer(),
});

export const PosConnectionBody = Type.Object({
  posType: Id('a POS type code (GET /v1/pat/pos-types lists them)'),
});
export type PosConnectionBody = Static<typeof PosConnectionBody>;

export const PosConnectionAnswer = Type.Object({
  onboarding: Type.Object({
    requestId: Type.String({ format: 'uuid' }),
    url: Type.String({ description: 'send it to the restaurant: the page connects its POS location; it needs no credentials' }),
    status: Type.String({ description: "'rms_activation' until the restaurant completes the page" }),
  }),
});

export const ReservationItem = Type.Object({
  sku: Id('a SKU configured for the venue on its POS'),
  quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
  notes: Type.Optional(Text(1000)),
});

export const ReservationEvent = Type.Object({
  bookingId: Id('your booking id'),
  venueId: Id("the venue's externalId"),
  status: Type.String({ minLength: 1, maxLength: 50, allOf: [NO_NUL], description: "'seated' opens the POS order; any other status is recorded and changes nothing" }),
  partySize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'required when seated' })),
  tables: Type.Optional(Type.Array(Id('a POS table id (GET …/pos-tables)'), { minItems: 1, maxItems: 50, description: 'required when seated; several for merged tables' })),
  date: Type.Optional(Type.String({ format: 'date-time', description: "the booking's time, ISO 8601 with offset; required when seated" })),
  prepayment: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'already paid, a decimal in the venue currency; 0 or absent when none' })),
  guestName: Type.Optional(Text(200)),
  guestEmail: Type.Optional(Text(320)),
  guestTelephone: Type.Optional(Text(50)),
  items: Type.Optional(Type.Array(ReservationItem, { maxItems: 200, description: 'pre-ordered items' })),
});
export type ReservationEvent = Static<typeof ReservationEvent>;

export const ReservationAnswer = Type.Object({
  bookingId: Type.String(),
  orderId: Nullable(Type.String({ description: "Tableside's order id: the bill's orderId, the one payments use; null when the booking opened no order" })),
  status: Type.Enum(['opened', 'unchanged', 'pending'], {
    description: 'opened: the POS order was created now; unchanged: nothing was done (sent before, or not seated); pending (202): the POS could not be reached, retried for an hour',
  }),
  unknownSkus: Type.Array(Type.String(), { description: 'SKUs the POS did not know: the order was opened without them' }),
});
