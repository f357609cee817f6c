import Type, { type Static } from 'typebox';
import { Nullable } from '../server/schemas.ts';
import { ContentPage, Count, HttpUrl, LongText, OptionalNullable, Ref, Seconds, Text } from './content.schemas.ts';
import { TRANSLATABLE } from './translations.fns.ts';
import { TranslationsInput } from './translations.schemas.ts';

// Venue of the content API (spec 2.4, 4.5; create/get/update as docs/decisions.md decides). The response is also
// the allow-list of what leaves the server (STYLE 3).

/** Deposit and no-show fee types: an amount per booking, or per cover (guest). See docs/content-api.md. */
export const FEE_TYPES = ['fixed_price', 'per_cover'] as const;
export type FeeType = (typeof FEE_TYPES)[number];

const FeeOut = Type.Object({
  type: Type.String({ description: `one of ${FEE_TYPES.join(', ')}` }),
  amount: Type.Number({ description: 'in the venue currency' }),
});

export const PaymentDefinition = Type.Object({
  requireCreditCard: Type.Boolean(),
  deposit: FeeOut,
  noShowFee: FeeOut,
});

export const PaymentGateway = Type.Object({
  gateway: Type.String(),
  sdkVersion: Nullable(Type.String()),
  publishKey: Type.String({ description: 'a public key' }),
  merchantId: Nullable(Type.String()),
});

export const Venue = Type.Object({
  id: Type.String(),
  externalId: Type.String({ description: "the partner's own id, unique per partner" }),
  company: Ref,
  brand: Nullable(Ref),
  name: Type.String(),
  countryCode: Type.String({ description: 'ISO 3166-1 alpha-2' }),
  address: Nullable(Type.String()),
  city: Type.String(),
  postalCode: Nullable(Type.String()),
  phoneNumber: Nullable(Type.String()),
  email: Nullable(Type.String()),
  timezone: Nullable(Type.String({ description: 'IANA time zone' })),
  description: Nullable(Type.String({ description: 'translatable' })),
  latitude: Nullable(Type.Number()),
  longitude: Nullable(Type.Number()),
  capacity: Nullable(Type.Integer()),
  url: Nullable(Type.String()),
  minAdvanceBooking: Type.Integer({ description: 'seconds' }),
  minAdvanceOnlineCancelling: Type.Integer({ description: 'seconds' }),
  minCovers: Type.Integer(),
  maxCovers: Nullable(Type.Integer({ description: 'null: no maximum set' })),
  currency: Type.String({ description: 'ISO 4217' }),
  paymentDefinition: PaymentDefinition,
  paymentGateway: Nullable(PaymentGateway),
  fbInstalled: Type.Boolean(),
  igInstalled: Type.Boolean(),
  fbInstallLink: Type.String({ description: 'read-only, generated' }),
  bookableAreas: Type.Enum(['true', 'false'], { type: 'string', description: 'a string boolean (spec 2.4)' }),
  bookingMessage: Nullable(Type.String({ description: 'translatable' })),
  paymentPolicy: Nullable(Type.String({ description: 'translatable' })),
  confirmationMessage: Nullable(Type.String({ description: 'translatable' })),
});
export type Venue = Static<typeof Venue>;

export const VenueList = Type.Object({ total: Type.Integer(), data: Type.Array(Venue) });

const Filter = (description: string) => Type.Optional(Text({ minLength: 0, description }));
const ZeroOne = (description: string) => Type.Optional(Type.Enum(['0', '1'], { description }));

export const ListVenuesQuery = Type.Object({
  ...ContentPage(),
  'filters[criteria]': Filter('part of the venue name, case-insensitive'),
  'filters[city]': Filter('part of the city, case-insensitive'),
  'filters[countryCode]': Type.Optional(Type.String({ format: 'iso-country', description: 'ISO 3166-1 alpha-2, exact' })),
  'filters[bookingChannel]': Type.Optional(Type.String({ format: 'uuid', description: 'only venues linked to this booking channel' })),
  'filters[notBookingChannel]': Type.Optional(Type.String({ format: 'uuid', description: 'only venues not linked to this booking channel' })),
  'filters[fbInstalled]': ZeroOne('1: only venues with fbInstalled true; 0: only false'),
  'filters[igInstalled]': ZeroOne('1: only venues with igInstalled true; 0: only false'),
});
export type ListVenuesQuery = Static<typeof ListVenuesQuery>;

export const VenueParams = Type.Object({ venueId: Type.String({ description: 'venue id' }) });
export const ExternalIdParams = Type.Object({ externalId: Text({ description: "the partner's own venue id" }) });

const FeeIn = Type.Object({
  type: Type.String({ enum: [...FEE_TYPES], 'x-problem': `must be one of: ${FEE_TYPES.join(', ')}` }),
  amount: Type.Number({ minimum: 0, description: 'non-negative, with at most the decimals of the venue currency' }),
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
  company: Type.Optional(Type.String({ maxLength: 64, description: 'id of one of your companies; omitted on create, a company is generated from the venue' })),
  brand: OptionalNullable(Type.String({ maxLength: 64, description: 'id of one of your brands (of the venue company); null removes it' })),
  address: OptionalNullable(Text()),
  postalCode: OptionalNullable(Text({ maxLength: 32 })),
  phoneNumber: OptionalNullable(Text({ maxLength: 64 })),
  email: OptionalNullable(Type.String({ format: 'email', maxLength: 255 })),
  timezone: OptionalNullable(Type.String({ format: 'iana-timezone' })),
  description: OptionalNullable(LongText()),
  latitude: OptionalNullable(Type.Number({ minimum: -90, maximum: 90 })),
  longitude: OptionalNullable(Type.Number({ minimum: -180, maximum: 180 })),
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

export const CreateVenueBody = Type.Object({
  externalId: Text({ description: "your own id of the venue, unique among your venues" }),
  name: Text(),
  countryCode: Type.String({ format: 'iso-country' }),
  city: Text(),
  currency: Type.String({ format: 'iso-currency' }),
  ...writable,
});
export type CreateVenueBody = Static<typeof CreateVenueBody>;

/** PUT /venues/{venueId} and PUT /venues/external/{externalId}: fields given change, others are kept. */
export const UpdateVenueBody = Type.Object({
  externalId: Type.Optional(Text()),
  name: Type.Optional(Text()),
  countryCode: Type.Optional(Type.String({ format: 'iso-country' })),
  city: Type.Optional(Text()),
  currency: Type.Optional(Type.String({ format: 'iso-currency' })),
  ...writable,
});
export type UpdateVenueBody = Static<typeof UpdateVenueBody>;
