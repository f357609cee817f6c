import Type, { type Static } from 'typebox';
import { pageQuery, PageTotal } from '../lib/pagination.ts';
import { BOOKING_STATUSES, MAX_NOTES, MAX_PARTY_SIZE, MAX_SLOTS } from '../rms/rms-client.fns.ts';
import {
  CountryCode, CurrencyCode, DateText, DateTime, Email, INT32_MAX, Int32, Nullable, Str, Timestamp, TimeZone, Uuid,
} from '../server/schemas.ts';

// The channel API's shapes (DESIGN 8.4a): validation, types and OpenAPI from one source. Ids are
// Tableside's: a venue's content id, Tableside's booking id. Values the reservation system gives
// (status, party size, notes, slots) are bounded where they enter (rms/rms-client.fns.ts).

const Id = (description: string) => Uuid({ description });
const Name = (max: number, description?: string) => Str(max, { minLength: 1, ...(description ? { description } : {}) });
const DateTimeIn = (description: string) => DateTime({ description });
/** A party a channel may book. */
const PartySize = (description?: string) => Int32(1, 100, description ? { description } : {});

export const BcPageQuery = Type.Object(pageQuery({ defaultLimit: 10, maxLimit: 50 }));

/** A content venue's http(s) URL (content API: at most 2048 characters). */
const VenueUrl = Type.String({ maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$', description: "the venue's website" });

export const BcVenue = Type.Object({
  id: Id("Tableside's venue id (Google's merchant_id)"),
  name: Str(255),
  city: Nullable(Str(255)),
  countryCode: Nullable(CountryCode()),
  timezone: Nullable(TimeZone({ description: 'IANA timezone; dates in availability are venue-local' })),
  currency: Nullable(CurrencyCode()),
  latitude: Nullable(Type.Number({ minimum: -90, maximum: 90 })),
  longitude: Nullable(Type.Number({ minimum: -180, maximum: 180 })),
  url: Nullable(VenueUrl),
  minCovers: Int32(1, INT32_MAX, { description: 'smallest party the venue takes' }),
  maxCovers: Nullable(Int32(1, INT32_MAX, { description: 'largest party the venue takes; null when it says none' })),
});
export const BcVenueList = Type.Object({
  total: PageTotal({ description: 'venues linked to your channel, across all pages' }),
  data: Type.Array(BcVenue, { maxItems: 50 }),
});

export const VenueParams = Type.Object({ venueId: Id('the venue id from GET /v1/bc/venues') });

export const AvailabilityQuery = Type.Object({
  date: DateText({ description: 'YYYY-MM-DD, venue-local' }),
  partySize: PartySize(),
});

export const BcSlot = Type.Object({
  start: Timestamp,
  durationSec: Nullable(Int32(0, INT32_MAX, { description: 'how long the table is held, when the reservation system says' })),
  openSpots: Int32(0, INT32_MAX),
  deposit: Nullable(Type.Object({ amount: Type.Number({ minimum: 0, description: "a decimal in the venue's currency" }), currency: CurrencyCode() })),
  requiresCc: Type.Boolean(),
});

export const BcAvailability = Type.Object({
  venueId: Id('the venue id, as asked'),
  date: DateText({ description: 'as asked' }),
  partySize: PartySize('as asked'),
  source: Type.Union([Type.Literal('live'), Type.Literal('snapshot')], { description: 'live: asked the reservation system now; snapshot: its latest availability feed' }),
  slots: Type.Array(BcSlot, { maxItems: MAX_SLOTS }),
});

export const Contact = Type.Object({
  firstName: Name(100),
  lastName: Name(100),
  email: Email(254),
  phone: Type.String({ minLength: 3, maxLength: 40, pattern: '^[+0-9 ()./-]+$' }),
  locale: Type.Optional(Type.String({ minLength: 2, maxLength: 20, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' })),
});

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', description: 'required: the same key and body answer the same booking' }),
});

export const CreateBookingBody = Type.Object({
  venueId: Id('the venue id'),
  partySize: PartySize(),
  start: DateTimeIn('the slot start from availability, ISO 8601 with offset'),
  contact: Contact,
  notes: Type.Optional(Str(2000)),
  areaId: Type.Optional(Name(200)),
  paymentToken: Type.Optional(Name(2000)),
});
export type CreateBookingBody = Static<typeof CreateBookingBody>;

export const BookingParams = Type.Object({ bookingId: Id("Tableside's booking id") });

export const ChangeBookingBody = Type.Object({
  partySize: Type.Optional(PartySize()),
  start: Type.Optional(DateTimeIn('the new start, ISO 8601 with offset')),
}, {
  // "At least one of": anyOf of the required ones, which a generator reads (minProperties would count
  // fields the validator drops as unknown).
  anyOf: [{ required: ['partySize'] }, { required: ['start'] }],
  'x-problem': 'must name at least one field to change: partySize or start',
  description: 'at least one of partySize and start',
});

export const BcBooking = Type.Object({
  id: Id("Tableside's booking id"),
  venueId: Id('the venue id'),
  channelId: Nullable(Id('your channel id')),
  status: Nullable(Type.Enum([...BOOKING_STATUSES], { description: 'null while the reservation system has not answered' })),
  partySize: Int32(1, MAX_PARTY_SIZE, { description: 'as the reservation system holds it' }),
  start: Timestamp,
  contact: Contact,
  notes: Nullable(Str(MAX_NOTES, { description: 'as the reservation system holds them' })),
  deposit: Nullable(Type.Object({ amount: Type.Number({ minimum: 0 }), currency: CurrencyCode(), paid: Type.Boolean() })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
