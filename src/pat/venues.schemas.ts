import Type, { type Static } from 'typebox';
import { PageTotal, pageQuery } from '../lib/pagination.ts';
import { CountryCode, CurrencyCode, Email, Nullable, Str, TimeZone, UrlText, Uuid } from '../server/schemas.ts';
import { POS_MAX_TABLES, PosCode, PosText } from '../pos/pos-limits.ts';

// A venue in the pay-at-table scope may be a pay-at-table venue (created here: name <= 200, city
// <= 120) or a content venue granted to the partner (name and city <= 255): answers allow both.

export const PatVenueSummary = Type.Object(
  {
    id: Uuid({ description: 'canonical venue id; use as {venueId}' }),
    name: Str(255),
    country: Nullable(CountryCode({ description: 'ISO 3166-1 alpha-2' })),
    city: Nullable(Str(255)),
    timezone: Nullable(TimeZone({ description: 'IANA time zone' })),
    posCode: Nullable(PosCode({ description: 'family code of the active POS; null when none' })),
  },
  { $id: 'PatVenueSummary' },
);
export type PatVenueSummary = Static<typeof PatVenueSummary>;

// Texts refuse NUL (PostgreSQL text cannot hold it: a 400 naming the field, not a 500) through the
// server's Str block; the offset is bounded (pageQuery) so a huge one is a 400 naming it.
export const ListPatVenuesQuery = Type.Object({
  ...pageQuery({ defaultLimit: 10, maxLimit: 100 }),
  'filters[name]': Type.Optional(Str(255, { description: 'part of the name, case-insensitive' })),
  'filters[city]': Type.Optional(Str(255, { description: 'part of the city, case-insensitive' })),
  'filters[countryCode]': Type.Optional(Str(2, { description: 'ISO 3166-1 alpha-2, exact (a partial code matches nothing)' })),
});
export type ListPatVenuesQuery = Static<typeof ListPatVenuesQuery>;

export const PatVenueList = Type.Object({
  total: PageTotal({ description: 'matching venues across all pages' }),
  venues: Type.Array(PatVenueSummary, { maxItems: 100 }),
});

/** A required text: 1..maxLength characters, not only blanks, no NUL. */
const Text = (maxLength: number, description?: string) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$',
    'x-problem': 'must not be blank nor contain the NUL character (\\u0000)',
    ...(description ? { description } : {}),
  });

export const CreatePatVenueBody = Type.Object({
  name: Text(200),
  address: Text(300),
  city: Text(120),
  postalCode: Text(20),
  country: CountryCode({ description: 'ISO 3166-1 alpha-2' }),
  timezone: TimeZone({ description: 'IANA time zone, e.g. Europe/Madrid' }),
  currency: CurrencyCode({ description: 'ISO 4217' }),
  posType: Text(40, 'a code from GET /v1/pat/pos-types'),
  phoneNumber: Type.Optional(Str(40)),
  email: Type.Optional(Email(254, { description: 'venue contact e-mail' })),
});
export type CreatePatVenueBody = Static<typeof CreatePatVenueBody>;

export const CreatedPatVenue = Type.Object(
  {
    id: Uuid(),
    name: Str(200),
    address: Str(300),
    city: Str(120),
    postalCode: Str(20),
    country: CountryCode(),
    timezone: TimeZone(),
    currency: CurrencyCode(),
    posType: PosCode(),
    onboarding: Type.Object({
      requestId: Uuid(),
      url: UrlText({ description: 'for the restaurant; needs no service credentials' }),
      status: Type.Literal('rms_activation', { description: "'rms_activation' until the restaurant connects its POS" }),
    }),
  },
  { $id: 'CreatedPatVenue' },
);
export type CreatedPatVenue = Static<typeof CreatedPatVenue>;

export const PosTypeList = Type.Object({
  posTypes: Type.Array(Type.Object({ code: PosCode(), name: PosText() }, { additionalProperties: false }), { maxItems: 1000 }),
});

export const Features = Type.Object(
  {
    venueId: Uuid(),
    posCode: PosCode(),
    payAtTable: Type.Object({
      billRetrieval: Type.Boolean({ description: 'true: the bill is read live from the POS' }),
      paymentForwarding: Type.Boolean({ description: 'true: payments are pushed to the POS' }),
      paymentConfirmation: Type.Enum(['immediate', 'deferred']),
    }),
  },
  { $id: 'Features' },
);

export const PatTables = Type.Object({
  venueId: Uuid(),
  tables: Type.Array(Type.Object({ id: Uuid(), name: PosText({ description: 'as the POS names it' }) }), { maxItems: POS_MAX_TABLES }),
});

/** Any text of at most 64 characters: an id that is not a UUID is simply not found (or out of scope). */
export const PathId = (description: string) => Str(64, { description });

export const VenueParams = Type.Object({ venueId: PathId('the venue id') });
