import Type, { type TSchemaOptions } from 'typebox';
import { pageQuery } from '../lib/pagination.ts';
import { INT32_MAX, Int32, LanguageCode, Nullable, Str, Uuid } from '../server/schemas.ts';

// Building blocks shared by the content API's shapes (companies, brands, venues, areas). Every text
// refuses NUL (PostgreSQL text cannot hold it: such input is a 400, not a database error) through
// the server's Str block, so its pattern sits at the top level where generic tools read it.

/** A short single-line text (names, codes, cities), 1..255 characters. */
export const Text = (opts: TSchemaOptions & { maxLength?: number; minLength?: number } = {}) => {
  const { maxLength = 255, ...rest } = opts;
  return Str(maxLength, { minLength: 1, ...rest });
};

export const LONG_TEXT_MAX = 20_000;

/** A free text (messages, policies, descriptions), up to 20,000 characters. */
export const LongText = (opts: TSchemaOptions = {}) => Str(LONG_TEXT_MAX, opts);

/** An absolute http(s) URL; its pattern also refuses NUL (`\s` does not cover it). */
export const HttpUrl = (opts: TSchemaOptions = {}) =>
  Type.String({
    maxLength: 2048,
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#\\u0000]+[^\\s\\u0000]*$',
    'x-problem': 'must be an absolute http(s) URL',
    ...opts,
  });

/** Seconds of notice: a non-negative integer that fits the database's integer. */
export const Seconds = (description: string) => Int32(0, INT32_MAX, { description });

/** A non-negative count (capacity, covers) that fits the database's integer. */
export const Count = (minimum: number, description: string) => Int32(minimum, INT32_MAX, { description });

/** A reference to a company or a brand in responses (spec 2.3, 2.4). */
export const Ref = Type.Object({ id: Uuid(), name: Str(255) });

/** The id of a stored object in a path or body: any text (ids are UUIDs; anything else is simply not found). */
export const IdText = (description: string) => Str(64, { description });

/** Every content route accepts x-locale (spec 4.1); an invalid code is a 400 naming the header. */
export const LocaleHeaders = Type.Object({
  'x-locale': Type.Optional(
    LanguageCode({ description: 'ISO 639-1 code; translated fields are answered in it, falling back to the base value' }),
  ),
});

export const OptionalNullable = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));

/** The body of link-venues / unlink-venues on channels and brands (spec 4.2, 4.4). */
export const VenueIdsBody = Type.Object({
  venues: Type.Array(IdText('venue id'), {
    maxItems: 10_000,
    description: 'ids of venues of the calling partner; another partner\'s or an unknown id is a 403 and nothing changes',
  }),
});

/** offset/limit of a content list (spec 4.1, 8): limit 0..50 (default 10), offset 0..1,000,000,000. */
export const ContentPage = () => pageQuery({ defaultLimit: 10, maxLimit: 50 });
