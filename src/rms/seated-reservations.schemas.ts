import Type, { type Static } from 'typebox';
import { DateTime, Int32, MoneyIn, Nullable, Str, UrlText, Uuid } from '../server/schemas.ts';

// Seated reservations (DESIGN 8.3c): what an RMS sends and what it gets back. The ids are the RMS's
// own (venueId: the venue's externalId, bookingId: its booking id). Responses are the allow-list of
// what leaves the server (STYLE 3). The store cannot hold U+0000, so `Str` refuses it here with the
// field named, never a 5xx later.

const Id = (description: string) => Str(200, { minLength: 1, description });

/** Tables a seated event may name (merged tables), and POS tables a venue may list. */
export const MAX_EVENT_TABLES = 50;
export const MAX_POS_TABLES = 1000;
/** Pre-ordered items of one event; the SKUs a POS did not know are some of them. */
export const MAX_ITEMS = 200;

export const RmsVenueParams = Type.Object({ externalId: Id("the venue's externalId (your own id of it)") });

export const PosTablesAnswer = Type.Object({
  venueId: Id("the venue's externalId, as in the path"),
  tables: Type.Array(
    Type.Object({
      id: Id('the POS table id: send it in `tables` of a seated reservation'),
      name: Str(200, { description: "the table's name on the POS" }),
      area: Nullable(Str(200, { description: 'null: the POS contract (spec 2.6) reports no area' })),
    }),
    { maxItems: MAX_POS_TABLES, description: `the tables the POS lists now (a POS lists at most ${MAX_POS_TABLES})` },
  ),
  count: Int32(0, MAX_POS_TABLES),
});

export const PosConnectionBody = Type.Object({
  posType: Id('a POS type code (GET /v1/pat/pos-types lists them)'),
});
export type PosConnectionBody = Static<typeof PosConnectionBody>;

export const PosConnectionAnswer = Type.Object({
  onboarding: Type.Object({
    requestId: Uuid(),
    url: UrlText({ description: 'send it to the restaurant: the page connects its POS location; it needs no credentials' }),
    status: Type.Enum(['rms_activation'], { description: "'rms_activation' until the restaurant completes the page" }),
  }),
});

export const ReservationItem = Type.Object({
  sku: Id('a SKU configured for the venue on its POS'),
  quantity: Int32(1, 1000),
  notes: Type.Optional(Str(1000)),
});

/** What a seated event must carry to open the POS order; an event of any other status may leave them out. */
export const REQUIRED_WHEN_SEATED = ['partySize', 'tables', 'date'] as const;

export const ReservationEvent = Type.Object({
  bookingId: Id('your booking id'),
  venueId: Id("the venue's externalId"),
  status: Str(50, { minLength: 1, description: "'seated' opens the POS order; any other status is recorded and changes nothing" }),
  partySize: Type.Optional(Int32(1, 1000, { description: 'required when seated' })),
  tables: Type.Optional(Type.Array(Id('a POS table id (GET …/pos-tables)'), { minItems: 1, maxItems: MAX_EVENT_TABLES, description: 'required when seated; several for merged tables' })),
  date: Type.Optional(DateTime({ description: "the booking's time, ISO 8601 with offset; required when seated" })),
  prepayment: Type.Optional(Type.Union([MoneyIn({ minimum: 0 }), Type.Null()], { description: 'already paid, a decimal in the venue currency with at most its decimals; 0 or absent when none' })),
  guestName: Type.Optional(Str(200)),
  guestEmail: Type.Optional(Str(320)),
  guestTelephone: Type.Optional(Str(50)),
  items: Type.Optional(Type.Array(ReservationItem, { maxItems: MAX_ITEMS, description: 'pre-ordered items' })),
}, {
  // In the schema, so validation names each missing field (400) and the document states the rule.
  if: { properties: { status: { const: 'seated' } }, required: ['status'] },
  then: { required: [...REQUIRED_WHEN_SEATED], 'x-problem': 'is required when status is seated' },
});
export type ReservationEvent = Static<typeof ReservationEvent>;
/** A seated event as validation lets it through: the fields of REQUIRED_WHEN_SEATED are there. */
export type SeatedReservationEvent = ReservationEvent & { status: 'seated' } & Required<Pick<ReservationEvent, (typeof REQUIRED_WHEN_SEATED)[number]>>;
export const isSeated = (event: ReservationEvent): event is SeatedReservationEvent => event.status === 'seated';

export const ReservationAnswer = Type.Object({
  bookingId: Id('your booking id, as sent'),
  orderId: Nullable(Uuid({ description: "Tableside's order id: the bill's orderId, the one payments use; null when the booking opened no order" })),
  status: Type.Enum(['opened', 'unchanged', 'pending'], {
    description: 'opened: the POS order was created now; unchanged: nothing was done (sent before, or not seated); pending (202): the POS could not be reached, retried for an hour',
  }),
  unknownSkus: Type.Array(Id('a SKU of the event'), { maxItems: MAX_ITEMS, description: 'SKUs of the event the POS did not know: the order was opened without them' }),
});
