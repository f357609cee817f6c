import Type, { type Static } from 'typebox';
import { PageTotal } from '../lib/pagination.ts';
import { CountryCode, Nullable, Str, UrlText, Uuid } from '../server/schemas.ts';
import { ContentPage, IdText, LONG_TEXT_MAX, LongText, OptionalNullable, Seconds, Text } from './content.schemas.ts';
import { TRANSLATABLE } from './translations.fns.ts';
import { TranslationsInput } from './translations.schemas.ts';

// Company (spec 2.2, 4.3). Optional texts never set answer null; the advance-booking seconds answer
// 0 and includeSourceInNotes false until set.

export const Company = Type.Object({
  id: Uuid(),
  name: Str(255),
  legalName: Nullable(Str(255)),
  address: Nullable(Str(255)),
  postalCode: Nullable(Str(32)),
  city: Str(255),
  countryCode: CountryCode({ description: 'ISO 3166-1 alpha-2' }),
  description: Nullable(Str(LONG_TEXT_MAX, { description: 'translatable' })),
  minAdvanceBooking: Seconds('seconds from the last moment a booking can be made to the start of the slot'),
  minAdvanceBookingCancelling: Seconds('minimum notice, in seconds, required to cancel a booking'),
  includeSourceInNotes: Type.Boolean({ description: 'whether the booking origin is included in booking notes' }),
  sdkKey: Nullable(Str(512, { description: 'product access key' })),
  fbInstallLink: UrlText({ description: 'read-only install link (generated; never accepted on writes)' }),
  bookingMessage: Nullable(Str(LONG_TEXT_MAX, { description: 'translatable' })),
});
export type Company = Static<typeof Company>;

export const CompanyList = Type.Object({ total: PageTotal({ description: 'companies across all pages' }), data: Type.Array(Company, { maxItems: 50 }) });

export const ListCompaniesQuery = Type.Object({ ...ContentPage() });
export type ListCompaniesQuery = Static<typeof ListCompaniesQuery>;

export const CompanyParams = Type.Object({ companyId: IdText('company id') });

const translations = TranslationsInput('company', TRANSLATABLE.company);

export const CreateCompanyBody = Type.Object({
  name: Text(),
  city: Text(),
  countryCode: CountryCode({ description: 'ISO 3166-1 alpha-2' }),
  legalName: OptionalNullable(Text()),
  address: OptionalNullable(Text()),
  postalCode: OptionalNullable(Text({ maxLength: 32 })),
  description: OptionalNullable(LongText()),
  minAdvanceBooking: Type.Optional(Seconds('seconds; default 0')),
  minAdvanceBookingCancelling: Type.Optional(Seconds('seconds; default 0')),
  includeSourceInNotes: Type.Optional(Type.Boolean({ description: 'default false' })),
  sdkKey: OptionalNullable(Text({ maxLength: 512 })),
  bookingMessage: OptionalNullable(LongText()),
  translations: Type.Optional(translations),
});
export type CreateCompanyBody = Static<typeof CreateCompanyBody>;

// Every field optional (spec 4.3); null clears an optional text. bookingMessage is accepted here too
// (the spec lists it on create only): a partner can correct the message it set (docs/decisions.md).
export const UpdateCompanyBody = Type.Object({
  name: Type.Optional(Text()),
  city: Type.Optional(Text()),
  countryCode: Type.Optional(CountryCode({ description: 'ISO 3166-1 alpha-2' })),
  legalName: OptionalNullable(Text()),
  address: OptionalNullable(Text()),
  postalCode: OptionalNullable(Text({ maxLength: 32 })),
  description: OptionalNullable(LongText()),
  minAdvanceBooking: Type.Optional(Seconds('seconds')),
  minAdvanceBookingCancelling: Type.Optional(Seconds('seconds')),
  includeSourceInNotes: Type.Optional(Type.Boolean()),
  sdkKey: OptionalNullable(Text({ maxLength: 512 })),
  bookingMessage: OptionalNullable(LongText()),
  translations: Type.Optional(translations),
});
export type UpdateCompanyBody = Static<typeof UpdateCompanyBody>;

/** PUT /company/{id} answers exactly [true] (spec 4.3). */
export const UpdatedTrue = Type.Array(Type.Literal(true), { minItems: 1, maxItems: 1, description: 'always [true]' });
