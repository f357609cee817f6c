import Type, { type Static } from 'typebox';
import { PageTotal } from '../lib/pagination.ts';
import { CountryCode, CurrencyCode, Email, MoneyIn, Nullable, Str, TimeZone, UrlText, Uuid } from '../server/schemas.ts';
import { ContentPage, Count, HttpUrl, IdText, LONG_TEXT_MAX, LongText, OptionalNullable, Ref, Seconds, Text } from './content.schemas.ts';
import { TRANSLATABLE } from './translations.fns.ts';
import { TranslationsInput } from './translations.schemas.ts';

// Venue of the content API (spec 2.4, 4.5; create/get/update as docs/decisions.md decides). The response is also
// the allow-list of what leaves the server (STYLE 3).

/** Deposit and no-show fee types: an amount per booking, or per cover (guest). See docs/content-api.md. */
export const FEE_TYPES = ['fixed_price', 'per_cover'] as const;
export type FeeType = (typeof FEE_TYPES)[number];

const FeeOut = Type.Object({
  type: Type.String({ enum: [...FEE_TYPES], description: `one of ${FEE_TYPES.join(', ')}` }),
  amount: Type.Number({ minimum: 0, description: 'in the venue currency' }),
});

export const PaymentDefinition = Type.Object({
  requireCreditCard: Type.Boolean(),
  deposit: FeeOut,
  noShowFee: FeeOut,
});

export const PaymentGateway = Type.Object({
  gateway: Str(64),
  sdkVersion: Nullable(Str(64)),
  publishKey: Str(512, { description: 'a public key' }),
  merchantId: Nullable(Str(255)),
});

const Latitude = (description?: string) => Type.Number({ minimum: -90, maximum: 90, ...(description ? { description } : {}) });
const Longitude = (description?: string) => Type.Number({ minimum: -180, maximum: 180, ...(description ? { description } : {}) });
const Message = (description = 'translatable') => Nullable(Str(LONG_TEXT_MAX, { description }));

export const Venue = Type.Object({
  id: Uuid(),
  externalId: Str(255, { description: "the partner's own id, unique per partner" }),
  company: Ref,
  brand: Nullable(Ref),
  name: Str(255),
  countryCode: CountryCode({ description: 'ISO 3166-1 alpha-2' }),
  address: Nullable(Str(255)),
  city: Str(255),
  postalCode: Nullable(Str(32)),
  phoneNumber: Nullable(Str(64)),
  email: Nullable(Email(255)),
  timezone: Nullable(TimeZone({ description: 'IANA time zone' })),
  description: Message(),
  latitude: Nullable(Latitude()),
  longitude: Nullable(Longitude()),
  capacity: Nullable(Count(0, 'seats')),
  url: Nullable(HttpUrl()),
  minAdvanceBooking: Seconds('seconds'),
  minAdvanceOnlineCancelling: Seconds('seconds'),
  minCovers: Count(1, 'smallest party'),
  maxCovers: Nullable(Count(1, 'largest party; null: no maximum set')),
  currency: CurrencyCode({ description: 'ISO 4217' }),
  paymentDefinition: PaymentDefinition,
  paymentGateway: Nullable(PaymentGateway),
  fbInstalled: Type.Boolean(),
  igInstalled: Type.Boolean(),
  fbInstallLink: UrlText({ description: 'read-only, generated' }),
  bookableAreas: Type.Enum(['true', 'false'], { type: 'string', description: 'a string boolean (spec 2.4)' }),
  bookingMessage: Message(),
  paymentPolicy: Message(),
  confirmationMessage: Message(),
});
export type Venue = Static<typeof Venue>;

export const VenueList = Type.Object({ total: PageTotal({ description: 'matching venues across all pages' }), data: Type.Array(Venue, { maxItems: 50 }) });

const Filter = (description: string) => Type.Optional(Text({ minLength: 0, description }));
const ZeroOne = (description: string) => Type.Optional(Type.Enum(['0', '1'], { description }));

export const ListVenuesQuery = Type.Object({
  ...ContentPage(),
  'filters[criteria]': Filter('part of the venue name, case-insensitive'),
  'filters[city]': Filter('part of the city, case-insensitive'),
  'filters[countryCode]': Type.Optional(CountryCode({ description: 'ISO 3166-1 alpha-2, exact' })),
  'filters[bookingChannel]': Type.Optional(Uuid({ description: 'only venues linked to this booking channel' })),
  'filters[notBookingChannel]': Type.Optional(Uuid({ description: 'only venues not linked to this booking channel' })),
  'filters[fbInstalled]': ZeroOne('1: only venues with fbInstalled true; 0: only false'),
  'filters[igInstalled]': ZeroOne('1: only venues with igInstalled true; 0: only false'),
});
export type ListVenuesQuery = Static<typeof ListVenuesQuery>;

export const VenueParams = Type.Object({ venueId: IdText('venue id') });
export const ExternalIdParams = Type.Object({ externalId: Text({ description: "the partner's own venue id" }) });

const FeeIn = Type.Object({
  type: Type.String({ enum: [...FEE_TYPES], 'x-problem': `must be one of: ${FEE_TYPES.join(', ')}` }),
  amount: MoneyIn({
    minimum: 0,
    description:
      'non-negative, with at most the decimals of the venue currency (EUR 2, JPY 0, KWD 3) and at most 999,999,999,999,999 minor units; more is a 400',
  }),
});

const PaymentDefinitionIn = Type.Object({
  requireCreditCard: Type.Optional(Type.Boolean()),
  deposit: Type.Optional(FeeIn),
  noShowFee: Type.Optional(FeeIn),
});

const PaymentGatewayIn = Type.Object({
  gateway: Text({ maxLength: 64 }),
  publishKey: Text({ maxLength: 512 }),
  sdkVersion: OptionalNullable(Text({ maxLength: 64 })),
  merchantId: OptionalNullable(Text({ maxLength: 255 })),
});

/** Fields every venue write may carry; a create adds the required ones. */
const writable = {
  company: Type.Optional(IdText('id of one of your companies; omitted on create, a company is generated from the venue')),
  brand: OptionalNullable(IdText('id of one of your brands (of the venue company); null removes it')),
  address: OptionalNullable(Text()),
  postalCode: OptionalNullable(Text({ maxLength: 32 })),
  phoneNumber: OptionalNullable(Text({ maxLength: 64 })),
  email: OptionalNullable(Email(255)),
  timezone: OptionalNullable(TimeZone()),
  description: OptionalNullable(LongText()),
  latitude: OptionalNullable(Latitude('given together with longitude: both numbers, or both null')),
  longitude: OptionalNullable(Longitude('given together with latitude: both numbers, or both null')),
  capacity: OptionalNullable(Count(0, 'seats')),
  url: OptionalNullable(HttpUrl()),
  minAdvanceBooking: Type.Optional(Seconds('seconds; default 0')),
  minAdvanceOnlineCancelling: Type.Optional(Seconds('seconds; default 0')),
  minCovers: Type.Optional(Count(1, 'smallest party; default 1')),
  maxCovers: OptionalNullable(Count(1, 'largest party; at least minCovers')),
  paymentDefinition: Type.Optional(PaymentDefinitionIn),
  paymentGateway: OptionalNullable(PaymentGatewayIn),
  fbInstalled: Type.Optional(Type.Boolean()),
  igInstalled: Type.Optional(Type.Boolean()),
  bookableAreas: Type.Optional(
    Type.Unsafe<boolean | 'true' | 'false'>({
      enum: [true, false, 'true', 'false'],
      description: 'a boolean or the string "true"/"false" (DESIGN 9)',
    }),
  ),
  bookingMessage: OptionalNullable(LongText()),
  paymentPolicy: OptionalNullable(LongText()),
  confirmationMessage: OptionalNullable(LongText()),
  translations: Type.Optional(TranslationsInput('venue', TRANSLATABLE.venue)),
};

/** latitude and longitude are a pair: one given without the other is a 400 naming the missing one. */
const COORDINATES_PAIR = { dependentRequired: { latitude: ['longitude'], longitude: ['latitude'] } };

export const CreateVenueBody = Type.Object(
  {
    externalId: Text({ description: 'your own id of the venue, unique among your venues' }),
    name: Text(),
    countryCode: CountryCode(),
    city: Text(),
    currency: CurrencyCode(),
    ...writable,
  },
  COORDINATES_PAIR,
);
export type CreateVenueBody = Static<typeof CreateVenueBody>;

/** PUT /venues/{venueId} and PUT /venues/external/{externalId}: fields given change, others are kept. */
export const UpdateVenueBody = Type.Object(
  {
    externalId: Type.Optional(Text()),
    name: Type.Optional(Text()),
    countryCode: Type.Optional(CountryCode()),
    city: Type.Optional(Text()),
    currency: Type.Optional(CurrencyCode()),
    ...writable,
  },
  COORDINATES_PAIR,
);
export type UpdateVenueBody = Static<typeof UpdateVenueBody>;
