import Type from 'typebox';
import { Nullable, Str, Timestamp } from '../server/schemas.ts';

// DESIGN 8.1: an RMS partner's booking-services endpoint.

// An absolute https URL, as the document states it (issue 30); what it may point at (no private
// address, no query) is the outbound-URL guard's, which the service applies.
const BASE_URL_PATTERN = '^https://[^\\u0000\\s/?#]+[^\\u0000\\s]*$';

export const PutBookingServicesBody = Type.Object({
  baseUrl: Type.String({
    minLength: 1,
    maxLength: 2048,
    pattern: BASE_URL_PATTERN,
    'x-problem': 'must be an https URL',
    description: 'https base URL of your booking services (DESIGN 8.2); must answer GET {baseUrl}/healthcheck with 200 to the key below',
  }),
  apiKey: Type.String({
    minLength: 1,
    maxLength: 1024,
    pattern: '^[\\x21-\\x7e]+$',
    description: 'the key Tableside sends as `Authorization: Bearer <apiKey>`; stored sealed, never answered',
  }),
});
export type PutBookingServicesBody = Type.Static<typeof PutBookingServicesBody>;

export const HealthCheck = Type.Object({
  at: Timestamp,
  ok: Type.Boolean(),
  message: Str(500, { description: 'what the last healthcheck or call found' }),
});

export const BookingServices = Type.Object(
  {
    baseUrl: Type.String({ maxLength: 2048, pattern: BASE_URL_PATTERN, description: 'as saved (without trailing slashes)' }),
    apiKeySet: Type.Boolean({ description: 'always true once saved; the key itself is never answered' }),
    lastHealthCheck: Nullable(HealthCheck),
  },
  { description: "The partner's booking-services connection (DESIGN 8.1)." },
);
export type BookingServices = Type.Static<typeof BookingServices>;
