import Type, { type TSchema } from 'typebox';

// Shapes shared by every API family: the error envelopes (which are also the serializers of error
// responses, so they must match what the error handler sends) and small building blocks.

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.Integer({ description: 'the HTTP status' }),
      message: Type.String({ description: 'human-readable; may be shown to staff' }),
      details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
        description: 'for validation errors, each offending field mapped to a list of problems; otherwise null',
      }),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'The nested error envelope (spec 7.2).' },
);

export const OAuthError = Type.Object(
  {
    error: Type.String({ description: 'RFC 6750 / RFC 6749 error code, e.g. invalid_token' }),
    error_description: Type.String(),
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
  429: 'Too many failed authentications; see Retry-After.',
  502: 'POS forwarding failure.',
  503: 'The database is unavailable for a moment; retry after Retry-After seconds (a payment with the same externalReference).',
};

const ref = (id: string, description: string) => Type.Unsafe<unknown>({ $ref: `${id}#`, description });

/** Error responses of a route, for OpenAPI and serialization. On /v1/pat a 401 is OAuth style. */
export function errorResponses(family: 'pat' | 'analytics' | 'rms' | 'platform', statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    const description = DESCRIPTION[status] ?? 'Error.';
    out[status] = family === 'pat' && status === 401 ? ref('OAuthError', description) : ref('ErrorEnvelope', description);
  }
  return out;
}

/** Errors every authenticated route can answer besides its own (auth, body limits, throttling). */
export const AUTH_ERRORS = [400, 401, 403, 429];

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An ISO 8601 instant on the wire, always with its offset. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 with offset' });
