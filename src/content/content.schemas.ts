import Type, { type TSchemaOptions } from 'typebox';
import { pageQuery } from '../lib/pagination.ts';
import { Nullable } from '../server/schemas.ts';

// Building blocks shared by the content API's shapes (companies, brands, venues, areas).

// PostgreSQL text cannot hold U+0000; refusing it here keeps such input a 400 instead of a database
// error. Nested in allOf so its problem sentence does not replace those of maxLength or minLength.
const NO_NUL = { pattern: '^[^\\u0000]*$', 'x-problem': 'must not contain the NUL character (\\u0000)' };

/** A short single-line text (names, codes, cities), 1..255 characters. */
export const Text = (opts: TSchemaOptions & { maxLength?: number; minLength?: number } = {}) =>
  Type.String({ minLength: 1, maxLength: 255, allOf: [NO_NUL], ...opts });

/** A free text (messages, policies, descriptions), up to 20,000 characters. */
export const LongText = (opts: TSchemaOptions = {}) => Type.String({ maxLength: 20_000, allOf: [NO_NUL], ...opts });

/** An absolute http(s) URL. */
export const HttpUrl = (opts: TSchemaOptions = {}) =>
  Type.String({
    maxLength: 2048,
    allOf: [NO_NUL, { pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$', 'x-problem': 'must be an absolute http(s) URL' }],
    ...opts,
  });

/** Seconds of notice: a non-negative integer that fits the database's integer. */
export const Seconds = (description: string) => Type.Integer({ minimum: 0, maximum: 2_147_483_647, description });

/** A non-negative count (capacity, covers) that fits the database's integer. */
export const Count = (minimum: number, description: string) => Type.Integer({ minimum, maximum: 2_147_483_647, description });

/** A reference to a company or a brand in responses (spec 2.3, 2.4). */
export const Ref = Type.Object({ id: Type.String(), name: Type.String() });

/** Every content route accepts x-locale (spec 4.1); an invalid code is a 400 naming the header. */
export const LocaleHeaders = Type.Object({
  'x-locale': Type.Optional(
    Type.String({ format: 'iso-language', description: 'ISO 639-1 code; translated fields are answered in it, falling back to the base value' }),
  ),
});

export const OptionalNullable = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));

/** The body of link-venues / unlink-venues on channels and brands (spec 4.2, 4.4). */
export const VenueIdsBody = Type.Object({
  venues: Type.Array(Type.String({ maxLength: 64, description: 'venue id' }), {
    maxItems: 10_000,
    description: 'ids of venues of the calling partner; another partner\'s or an unknown id is a 403 and nothing changes',
  }),
});

/**
 * offset/limit of a content list (spec 4.1, 8): limit 0..50 (default 10), offset >= 0. The offset
 * is also capped, so a huge number is a 400 naming it rather than a database range error.
 */
export const ContentPage = () => ({
  ...pageQuery({ defaultLimit: 10, maxLimit: 50 }),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'records to skip (default 0)' })),
});
