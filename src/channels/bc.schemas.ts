import Type, { type Static } from 'typebox';
import { pageQuery } from '../lib/pagination.ts';
import { Nullable, Timestamp } from '../server/schemas.ts';

// The channel API's shapes (DESIGN 8.4a): validation, types and OpenAPI from one source. Ids are
// Tableside's: a venue's content id, Tableside's booking id.

const Id = (description: string) => Type.String({ format: 'uuid', description });
const Name = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '^[^\\u0000]*$' });

export const BcPageQuery = Type.Object({
  ...pageQuery({ defaultLimit: 10, maxLimit: 50 }),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'records to skip (default 0)' })),
});

export const BcVenue = Type.Object({
  id: Type.String({ description: "Tableside's venue id (Google's merchant_id)" }),
  name: Type.String(),
  city: Nullable(Type.String()),
  countryCode: Nullable(Type.String()),
  timezone: Nullable(Type.String({ description: 'IANA timezone; dates in availability are venue-local' })),
  currency: Nullable(Type.String()),
  latitude: Nullable(Type.Number()),
  longitude: Nullable(Type.Number()),
  url: Nullable(Type.String()),
  minCovers: Type.Integer(),
  maxCovers: Nullable(Type.Integer()),
});
export const BcVenueList = Type.Object({ total: Type.Integer(), data: Type.Array(BcVenue) });

export const VenueParams = Type.Object({ venueId: Id('the venue id from GET /v1/bc/venues') });

export const AvailabilityQuery = Type.Object({
  date: Type.String({ format: 'date', description: 'YYYY-MM-DD, venue-local' }),
  partySize: Type.Integer({ minimum: 1, maximum: 100 }),
});

export const BcSlot = Type.Object({
  start: Timestamp,
  durationSec: Nullable(Type.Integer({ description: 'how long the table is held, when the reservation system says' })),
  openSpots: Type.Integer(),
  deposit: Nullable(Type.Object({ amount: Type.Number({ description: "a decimal in the venue's currency" }), currency: Type.String() })),
  requiresCc: Type.Boolean(),
});

export const BcAvailability = Type.Object({
  venueId: Type.String(),
  date: Type.String(),
  partySize: Type.Integer(),
  source: Type.Union([Type.Literal('live'), Type.Literal('snapshot')], { description: 'live: asked the reservation system now; snapshot: its latest availability feed' }),
  slots: Type.Array(BcSlot),
});

export const Contact = Type.Object({
  firstName: Name(100),
  lastName: Name(100),
  email: Type.String({ format: 'email', maxLength: 254 }),
  phone: Type.String({ minLength: 3, maxLength: 40, pattern: '^[+0-9 ()./-]+$' }),
  locale: Type.Optional(Type.String({ minLength: 2, maxLength: 20, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' })),
});

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', description: 'required: the same key and body answer the same booking' }),
});

export const CreateBookingBody = Type.Object({
  venueId: Id('the venue id'),
  partySize: Type.Integer({ minimum: 1, maximum: 100 }),
  start: Type.String({ format: 'date-time', description: 'the slot start from availability, ISO 8601 with offset' }),
  contact: Contact,
  notes: Type.Optional(Type.String({ maxLength: 2000, pattern: '^[^\\u0000]*$' })),
  areaId: Type.Optional(Name(200)),
  paymentToken: Type.Optional(Name(2000)),
});
export type CreateBookingBody = Static<typeof CreateBookingBody>;

export const BookingParams = Type.Object({ bookingId: Id("Tableside's booking id") });

export const ChangeBookingBody = Type.Object({
  partySize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  start: Type.Optional(Type.String({ format: 'date-time' })),
});

export const BcBooking = Type.Object({
  id: Type.String({ description: "Tableside's booking id" }),
  venueId: Type.String(),
  channelId: Nullable(Type.String()),
  status: Nullable(Type.String({ description: 'pending_confirmation, requires_payment, confirmed, rejected, canceled, no-show, seated, completed; null while the reservation system has not answered' })),
  partySize: Type.Integer(),
  start: Timestamp,
  contact: Type.Object({ firstName: Type.String(), lastName: Type.String(), email: Type.String(), phone: Type.String(), locale: Type.Optional(Type.String()) }),
  notes: Nullable(Type.String()),
  deposit: Nullable(Type.Object({ amount: Type.Number(), currency: Type.String(), paid: Type.Boolean() })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
