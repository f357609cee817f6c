// Request schemas of the booking-services contract (DESIGN 8.2). Strict types (no coercion): a
// party size of "2" in a JSON body is refused. Responses have no schema on purpose: the broken
// modes must be able to answer what a faulty RMS would.

import Type from 'typebox';

/** ISO 8601 date-time with an offset (Z or ±HH:MM), as the contract requires on requests. */
export const ISO_WITH_OFFSET = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';
export const LOCAL_DATE = '^\\d{4}-\\d{2}-\\d{2}$';

const Id = Type.String({ minLength: 1, maxLength: 200 });

export const AvailabilityQuery = Type.Object({
  venueId: Id,
  date: Type.String({ pattern: LOCAL_DATE, description: 'venue-local date YYYY-MM-DD' }),
  partySize: Type.String({ pattern: '^[1-9]\\d{0,3}$', description: 'integer >= 1' }),
  areaId: Type.Optional(Id),
});
export type AvailabilityQuery = Type.Static<typeof AvailabilityQuery>;

export const Contact = Type.Object({
  firstname: Type.String({ minLength: 1, maxLength: 200 }),
  lastname: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ maxLength: 320 }),
  telephone: Type.String({ maxLength: 64 }),
  locale: Type.Optional(Type.String({ maxLength: 35 })),
});

export const CreateBookingBody = Type.Object({
  venueId: Id,
  bookingChannel: Type.Object({ id: Id, name: Type.String({ maxLength: 200 }) }),
  partySize: Type.Integer({ minimum: 1, maximum: 9999 }),
  date: Type.String({ pattern: ISO_WITH_OFFSET }),
  areaId: Type.Optional(Type.Union([Id, Type.Null()])),
  contact: Contact,
  notes: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  paymentToken: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
});
export type CreateBookingBody = Type.Static<typeof CreateBookingBody>;

export const BookingParams = Type.Object({ id: Id });

export const UpdateBookingBody = Type.Object({
  partySize: Type.Optional(Type.Integer({ minimum: 1, maximum: 9999 })),
  date: Type.Optional(Type.String({ pattern: ISO_WITH_OFFSET })),
}, { minProperties: 1 });
export type UpdateBookingBody = Type.Static<typeof UpdateBookingBody>;

export const CancelBookingBody = Type.Object({
  cancelActor: Type.Optional(Type.String({ maxLength: 100 })),
  cancelReason: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type CancelBookingBody = Type.Static<typeof CancelBookingBody>;

export const SearchQuery = Type.Object({
  venueId: Id,
  startDate: Type.String({ description: 'venue-local YYYY-MM-DD (from its midnight) or ISO 8601 with offset' }),
  endDate: Type.String({ description: 'venue-local YYYY-MM-DD (through its end) or ISO 8601 with offset' }),
  email: Type.Optional(Type.String({ minLength: 1 })),
  phoneNumber: Type.Optional(Type.String({ minLength: 1 })),
});
export type SearchQuery = Type.Static<typeof SearchQuery>;
