import Type, { type Static } from 'typebox';
import { pageQuery } from '../lib/pagination.ts';
import { Nullable } from '../server/schemas.ts';

export const PatVenueSummary = Type.Object(
  {
    id: Type.String({ description: 'canonical venue id; use as {venueId}' }),
    name: Type.String(),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    city: Nullable(Type.String()),
    timezone: Nullable(Type.String({ description: 'IANA time zone' })),
    posCode: Nullable(Type.String({ description: 'family code of the active POS; null when none' })),
  },
  { $id: 'PatVenueSummary' },
);
export type PatVenueSummary = Static<typeof PatVenueSummary>;

// PostgreSQL text cannot hold U+0000: refused here, it is a 400 naming the field instead of a
// database error (a 500). Nested in allOf so it does not replace the minLength/maxLength problems.
const NO_NUL = { pattern: '^[^\\u0000]*$', 'x-problem': 'must not contain the NUL character (\\u0000)' };

export const ListPatVenuesQuery = Type.Object({
  ...pageQuery({ defaultLimit: 10, maxLimit: 100 }),
  // An offset past PostgreSQL's bigint (e.g. 1e20) was a database error (a 500): bounded here, like
  // the content and analytics lists, so it is a 400 naming offset.
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'records to skip (default 0)' })),
  'filters[name]': Type.Optional(Type.String({ allOf: [NO_NUL], description: 'part of the name, case-insensitive' })),
  'filters[city]': Type.Optional(Type.String({ allOf: [NO_NUL], description: 'part of the city, case-insensitive' })),
  'filters[countryCode]': Type.Optional(Type.String({ allOf: [NO_NUL], description: 'ISO 3166-1 alpha-2, exact' })),
});
export type ListPatVenuesQuery = Static<typeof ListPatVenuesQuery>;

export const PatVenueList = Type.Object({
  total: Type.Integer({ description: 'matching venues across all pages' }),
  venues: Type.Array(PatVenueSummary),
});

const NOT_BLANK = { pattern: '\\S', 'x-problem': 'must not be blank' };
const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, allOf: [NO_NUL, NOT_BLANK], ...(description ? { description } : {}) });

export const CreatePatVenueBody = Type.Object({
  name: Text(200),
  address: Text(300),
  city: Text(120),
  postalCode: Text(20),
  country: Type.String({ format: 'iso-country', description: 'ISO 3166-1 alpha-2' }),
  timezone: Type.String({ format: 'iana-timezone', description: 'IANA time zone, e.g. Europe/Madrid' }),
  currency: Type.String({ format: 'iso-currency', description: 'ISO 4217' }),
  posType: Text(40, 'a code from GET /v1/pat/pos-types'),
  phoneNumber: Type.Optional(Type.String({ maxLength: 40, allOf: [NO_NUL] })),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'venue contact e-mail' })),
});
export type CreatePatVenueBody = Static<typeof CreatePatVenueBody>;

export const CreatedPatVenue = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    address: Type.String(),
    city: Type.String(),
    postalCode: Type.String(),
    country: Type.String(),
    timezone: Type.String(),
    currency: Type.String(),
    posType: Type.String(),
    onboarding: Type.Object({
      requestId: Type.String({ format: 'uuid' }),
      url: Type.String({ format: 'uri', description: 'for the restaurant; needs no service credentials' }),
      status: Type.String({ description: "'rms_activation' until the restaurant connects its POS" }),
    }),
  },
  { $id: 'CreatedPatVenue' },
);
export type CreatedPatVenue = Static<typeof CreatedPatVenue>;

export const PosTypeList = Type.Object({
  posTypes: Type.Array(Type.Object({ code: Type.String(), name: Type.String() }, { additionalProperties: false })),
});

export const Features = Type.Object(
  {
    venueId: Type.String(),
    posCode: Type.String(),
    payAtTable: Type.Object({
      billRetrieval: Type.Boolean({ description: 'true: the bill is read live from the POS' }),
      paymentForwarding: Type.Boolean({ description: 'true: payments are pushed to the POS' }),
      paymentConfirmation: Type.Enum(['immediate', 'deferred']),
    }),
  },
  { $id: 'Features' },
);

export const PatTables = Type.Object({
  venueId: Type.String(),
  tables: Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() })),
});

export const VenueParams = Type.Object({ venueId: Type.String() });
