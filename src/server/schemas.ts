import Type, { type TSchema, type TSchemaOptions } from 'typebox';
import { COUNTRY_CODES } from '../lib/iso/countries.ts';
import { CURRENCY_CODES } from '../lib/iso/currencies.ts';
import { ISO_DATE_OR_DATE_TIME_PATTERN } from '../lib/iso/datetimes.ts';
import { LANGUAGE_CODES } from '../lib/iso/languages.ts';
import { TIME_ZONE_NAMES } from '../lib/iso/timezone-names.ts';
import { CUSTOM_FORMATS } from '../lib/json-schema.ts';
import { MAX_MINOR } from '../lib/money.ts';

// Shapes shared by every API family: the error envelopes (which are also the serializers of error
// responses, so they must match what the error handler sends) and small building blocks.

/** PostgreSQL text cannot hold U+0000: no text the service takes or gives contains it (ERR-06). */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** The longest `message` (and OAuth `error_description`) the error handler sends; longer text is cut. */
export const ERROR_MESSAGE_MAX = 1000;
// Their pattern is NO_NUL_PATTERN: the error handler strips NULs from what it sends.

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.Integer({ format: 'int32', minimum: 400, maximum: 599, description: 'the HTTP status' }),
      message: Type.String({
        maxLength: ERROR_MESSAGE_MAX,
        pattern: NO_NUL_PATTERN,
        description: 'human-readable; may be shown to staff',
      }),
      details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
        description: 'for validation errors, each offending field mapped to a list of problems; otherwise null',
      }),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'The nested error envelope (spec 7.2).' },
);

/** Every `error` code an OAuth-style body can carry (RFC 6750 3.1 on /v1/pat, RFC 6749 5.2 on /oauth/token). */
export const OAUTH_ERROR_CODES = ['invalid_token', 'invalid_request', 'invalid_client', 'unsupported_grant_type', 'slow_down', 'server_error'] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export const OAuthError = Type.Object(
  {
    error: Type.String({ enum: [...OAUTH_ERROR_CODES], maxLength: 32, description: 'RFC 6750 / RFC 6749 error code, e.g. invalid_token' }),
    error_description: Type.String({ maxLength: ERROR_MESSAGE_MAX, pattern: NO_NUL_PATTERN, description: 'human-readable' }),
  },
  { $id: 'OAuthError', description: 'OAuth-style error body (RFC 6750 for 401 on /v1/pat; RFC 6749 on /oauth/token).' },
);

const DESCRIPTION: Record<number, string> = {
  400: 'Missing or invalid parameter; details maps each field to its problems.',
  401: 'Missing, invalid, expired or revoked credential.',
  402: 'Parameters valid but the request failed.',
  403: 'Forbidden: no access of this kind, venue out of scope, missing header on /v1/pat, or method not allowed.',
  404: 'Not found.',
  409: 'Conflict.',
  413: 'Request body larger than 1 MiB.',
  415: 'Unsupported Content-Type.',
  422: 'Unprocessable.',
  429: 'Too many failed authentications from this address; see Retry-After.',
  502: 'POS forwarding failure.',
  500: 'Internal error; the body says nothing about its cause (the log has it with the request id).',
  503: 'The database is unavailable for a moment, or the service is shutting down; retry after Retry-After seconds (a payment with the same externalReference).',
};

const ref = (id: string, description: string) => Type.Unsafe<unknown>({ $ref: `${id}#`, description });

/**
 * Error responses of a route, for OpenAPI and serialization. On /v1/pat a 401 is OAuth style.
 * `descriptions` replaces the generic wording where the route's differs (the feed's 32 MiB body limit).
 */
export function errorResponses(family: 'pat' | 'analytics' | 'rms' | 'platform', statuses: number[], descriptions: Record<number, string> = {}): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    const description = descriptions[status] ?? DESCRIPTION[status] ?? 'Error.';
    out[status] = family === 'pat' && status === 401 ? ref('OAuthError', description) : ref('ErrorEnvelope', description);
  }
  return out;
}

/** Errors every authenticated route can answer besides its own (auth, body limits, throttling). */
export const AUTH_ERRORS = [400, 401, 403, 429];

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An ISO 8601 instant on the wire, always with its offset. */
export const DateTime = (opts: TSchemaOptions = {}) => Type.String({ format: 'date-time', maxLength: 40, ...opts });
export const Timestamp = DateTime({ description: 'ISO 8601 with offset' });

// Building blocks that state a value's limits the way generic tools read them (issue 17): every
// string has a maxLength and a pattern, format or enum; every integer a format and both bounds;
// custom formats also carry the enum or pattern that says exactly what they accept. The request
// validator uses these same schemas, so the document cannot promise more or less than is enforced.

const NO_NUL_PROBLEM = 'must not contain the NUL character (\\u0000)';

/** A text of at most `maxLength` characters (no NUL). */
export const Str = (maxLength: number, opts: TSchemaOptions & { minLength?: number } = {}) =>
  Type.String({ maxLength, pattern: NO_NUL_PATTERN, 'x-problem': NO_NUL_PROBLEM, ...opts });

/** A UUID (the service's ids). */
export const Uuid = (opts: TSchemaOptions = {}) => Type.String({ format: 'uuid', maxLength: 36, ...opts });

/** A calendar day, YYYY-MM-DD. */
export const DateText = (opts: TSchemaOptions = {}) => Type.String({ format: 'date', maxLength: 10, ...opts });

/** An absolute URL the service gives out (links, logos): at most 2048 characters. */
export const UrlText = (opts: TSchemaOptions = {}) => Type.String({ format: 'uri', maxLength: 2048, ...opts });

// An e-mail address as a pattern, not `format: email`: the format means RFC 5321 to a generator
// (`0@com` is one) and something narrower to the validator, so the document said less than was
// enforced (issue 30). The pattern is exactly what is accepted: a dot-atom local part and a domain
// of at least two labels (an address a venue or a guest can be written to on the Internet).
export const EMAIL_PATTERN =
  "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$";

/** An e-mail address (local@domain.tld), at most `maxLength` characters. */
export const Email = (maxLength: number, opts: TSchemaOptions = {}) =>
  Type.String({ maxLength, pattern: EMAIL_PATTERN, 'x-problem': 'must be an e-mail address', ...opts });

/**
 * An amount of money on input, in the venue's currency. Its limits depend on the currency (its
 * decimals; 999,999,999,999,999 minor units), which the service checks (lib/money.ts parseAmount);
 * what holds whatever the currency is stated here: the largest is 999,999,999,999,999 (a currency
 * without decimals), so a generator never reaches for amounts no currency takes.
 */
export const MoneyIn = (opts: TSchemaOptions & { minimum?: number; exclusiveMinimum?: number } = {}) =>
  Type.Number({ maximum: MAX_MINOR, ...opts });

/** A 32-bit integer between the bounds. */
export const Int32 = (minimum: number, maximum: number, opts: TSchemaOptions = {}) =>
  Type.Integer({ format: 'int32', minimum, maximum, ...opts });

/** A 64-bit integer between the bounds (bounds stay within JavaScript's safe integers). */
export const Int64 = (minimum: number, maximum: number, opts: TSchemaOptions = {}) =>
  Type.Integer({ format: 'int64', minimum, maximum, ...opts });

/** The largest value of PostgreSQL's `integer`. */
export const INT32_MAX = 2_147_483_647;

const isoCode = (format: keyof typeof CUSTOM_FORMATS, values: readonly string[], maxLength: number) => (opts: TSchemaOptions = {}) =>
  Type.String({ format, enum: [...values], maxLength, 'x-problem': CUSTOM_FORMATS[format].problem, ...opts });

/** ISO 3166-1 alpha-2, as the standard writes it ("ES"). */
export const CountryCode = isoCode('iso-country', COUNTRY_CODES, 2);
/** ISO 4217, as the standard writes it ("EUR"). */
export const CurrencyCode = isoCode('iso-currency', CURRENCY_CODES, 3);
/** ISO 639-1, lowercase ("fr"). */
export const LanguageCode = isoCode('iso-language', LANGUAGE_CODES, 2);
/** An IANA time zone name ("Europe/Madrid"), from the list the service knows. */
export const TimeZone = isoCode('iana-timezone', TIME_ZONE_NAMES, 64);

/** An ISO 8601 date ("2026-01-15") or date-time, with or without offset (analytics bounds). */
export const DateOrDateTime = (opts: TSchemaOptions = {}) =>
  Type.String({
    format: 'iso-date-or-date-time',
    pattern: ISO_DATE_OR_DATE_TIME_PATTERN,
    maxLength: 40,
    'x-problem': CUSTOM_FORMATS['iso-date-or-date-time'].problem,
    ...opts,
  });
