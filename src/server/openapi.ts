import swagger from '@fastify/swagger';
import { compressDocument } from './compress-document.ts';
import { registerLazySwaggerUi } from './docs-ui.ts';
import { guidesMarkdown, registerGuides, type Guide } from './guides.ts';
import type { FastifyInstance } from 'fastify';
import { isRateLimited } from './auth.ts';
import { familyOf } from './errors.ts';
import { ErrorEnvelope, OAuthError } from './schemas.ts';

// The OpenAPI document is generated from the same TypeBox schemas that validate requests and
// serialize responses, served at /openapi.json, with Swagger UI at /docs. On top of what each route
// declares, the platform declares what it does for every route (knowing no feature):
//   - a 400 (the input guards), a 500 and a 503 on every operation, in the envelope of the path's family;
//   - the headers it sends: x-request-id on every response, the RateLimit headers on every response
//     of a rate-limited route (auth.ts), Retry-After on 429 and 503, WWW-Authenticate on the 401s
//     that carry it (/v1/pat's RFC 6750 401, the routes of an HTTP Basic scheme);
//   - the headers a route sends itself, which it names in `config.responseHeaders` from the one
//     registry below (RESPONSE_HEADERS), e.g. `config: { responseHeaders: { 200: ['x-venue-created'] } }`.

/** OpenAPI Header Objects, by the name a route gives in `config.responseHeaders`. */
export const RESPONSE_HEADERS = {
  'x-request-id': {
    description:
      "The request's id, on every response: the caller's own X-Request-Id when it is 1-128 characters of " +
      '[A-Za-z0-9._:-], else a generated UUID. Quote it when asking about a request.',
    required: true,
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying (RFC 9110 10.2.3).',
    required: true,
    // The failure throttle's window is 60 s; the database and shutdown answers ask for 5 s.
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 60 },
  },
  'WWW-Authenticate': {
    description:
      'The authentication challenge (RFC 9110 11.6.1). Always on a /v1/pat 401 (`Bearer error="invalid_token", ' +
      'error_description="…"`, RFC 6750 3) and on a 401 of an HTTP Basic route (`Basic realm="…"`); on a /oauth/token ' +
      '401 only when the client authenticated with HTTP Basic.',
    required: false,
    schema: { type: 'string', maxLength: 1100, pattern: '^(Bearer|Basic) ' },
  },
  // The failed-authentication limit (AUTH_FAILURE_LIMIT_PER_MIN, which config.ts bounds to 1..1,000,000).
  // Not `required`: a request the router refuses before any route runs (a malformed URL, an over-long
  // path parameter: ERR-07, LIM-22) is answered without them; every answer of the route carries them.
  'RateLimit-Limit': {
    description:
      'Failed authentications this client address may make in the window (AUTH_FAILURE_LIMIT_PER_MIN). ' +
      'Requests with a valid credential use none of it and are never limited.',
    required: false,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 1_000_000 },
  },
  'RateLimit-Remaining': {
    description: 'Failed authentications this client address may still make now; past them a failing attempt gets 429.',
    required: false,
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until RateLimit-Remaining rises again (the oldest counted failure leaves the window); 0 when none counts.',
    required: false,
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 60 },
  },
  'RateLimit-Policy': {
    description: 'The policy: `<limit>;w=60`, failed authentications per client address in a sliding 60-second window.',
    required: false,
    schema: { type: 'string', maxLength: 12, pattern: '^[0-9]{1,7};w=60$' },
  },
  'X-Idempotent-Replay': {
    description:
      'Present (`true`) when this answer replays an earlier request with the same idempotency key (a payment: the same ' +
      'externalReference and payload); nothing new was done.',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  'x-venue-created': {
    description: '`true` when the call created the venue, `false` when it updated the existing one.',
    required: true,
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  'Cache-Control': {
    description: 'The answer holds a credential: not to be stored (RFC 6749 5.1).',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
  Pragma: {
    description: 'The answer holds a credential: not to be stored (RFC 6749 5.1).',
    required: true,
    schema: { type: 'string', enum: ['no-cache'] },
  },
} as const;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Headers the route itself sends, by status, declared in the document from RESPONSE_HEADERS. */
    responseHeaders?: Partial<Record<number, readonly ResponseHeaderName[]>>;
  }
}

const RATE_LIMIT_HEADERS: ResponseHeaderName[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];

/** The document's tags: every operation has one of these. */
export const TAGS = [
  { name: 'content', description: 'Content API (/v1/rms, API key): booking channels, companies, brands, venues, areas and their translations.' },
  { name: 'pay-at-table', description: 'Pay-at-table API (/v1/pat, access token): venues, POS types, tables, bills and payments.' },
  { name: 'analytics', description: "Analytics API (/v1/pos, access token): the partner's venues and their closed orders." },
  { name: 'auth', description: 'OAuth 2.0 client credentials: exchange a client id and secret for an access token.' },
  { name: 'operations', description: 'Liveness and readiness probes for the operator and load balancers (no credential).' },
  { name: 'reservations', description: 'Seated reservations (/v1/rms, API key): the POS tables of a venue, its POS connection, reservations seated on the POS.' },
  { name: 'rms', description: 'What a reservation system (RMS) partner tells Tableside (/v1/rms, API key): its booking services, booking notices and availability feed.' },
  { name: 'channels', description: 'Booking channel API (/v1/bc, channel API key): linked venues, availability and bookings.' },
  { name: 'booking-server-v3', description: "Google's Booking Server API v3 (/v3, HTTP Basic) and the channel's merchant, service and availability feeds (/v1/feeds)." },
  { name: 'webhooks', description: "Outbound webhooks (/v1/webhooks, the partner's API key or access token): endpoints, secrets, the delivery log, recovery." },
];

const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Content API key (`tsk_` and 256 random bits, an opaque string) from the operator, sent as `Authorization: Bearer`. ' +
      'It does not expire; the operator revokes it (`tableside key revoke`). Also accepted on /v1/webhooks.',
  },
  channelKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Booking channel API key (`tbc_…`, an opaque random string) from `tableside channel create --protocol tableside`, sent as `Authorization: Bearer`.',
  },
  channelBasic: {
    type: 'http',
    scheme: 'basic',
    description:
      "A google-v3 channel's username and password (random), from `tableside channel create --protocol google-v3`. " +
      "Google's Booking Server API v3 mandates HTTP Basic; the service is HTTPS only.",
  },
  accessToken: {
    type: 'oauth2',
    description:
      'Access token (`tat_` and 256 random bits): an opaque random string, not a JWT, looked up by its SHA-256 hash on ' +
      'every request, so the JWT best current practices (RFC8725) do not apply: no JWT is issued or accepted. Obtained ' +
      'with the OAuth 2.0 client credentials grant at POST /oauth/token (RFC 6749 4.4) or from the operator CLI; it ' +
      'expires after ACCESS_TOKEN_TTL_S seconds (default 3600, 1 hour; `expires_in` says how long) and can be revoked. ' +
      'The grant issues no refresh token (RFC 6749 4.4.3): ask for a new token before the old one expires. Also ' +
      'accepted on /v1/webhooks.',
    flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } },
  },
} as const;

type Json = Record<string, any>;
const ANNOTATION = 'x-tableside-response-headers';

const errorRef = (id: 'ErrorEnvelope' | 'OAuthError', description: string) => ({ $ref: `${id}#`, description });
const GENERIC_ERRORS: Record<number, string> = {
  // The input guards (input-guards.ts) run on every operation: a NUL in any parameter or field, a
  // malformed URL or an over-long path parameter is a 400 whatever the route declares.
  400: 'The request is invalid (e.g. a NUL character in a parameter, a malformed URL); details names the field.',
  500: 'Internal error; the body says nothing of its cause (the log has it, under the request id).',
  413: 'The request body is larger than 1 MiB; nothing was processed.',
  415: 'The Content-Type of the body is not one the operation accepts (application/json; a form on /oauth/token).',
  503: 'The database is unavailable for a moment, or the server is shutting down: retry after Retry-After seconds ' +
    '(a payment with the same externalReference, a booking with the same idempotency key: never recorded twice).',
};

/** Whether an operation's security requirement uses an HTTP Basic scheme (its 401 carries the challenge). */
function usesBasic(security: unknown): boolean {
  if (!Array.isArray(security)) return false;
  return security.some((requirement) =>
    Object.keys(requirement ?? {}).some((name) => {
      const scheme = (SECURITY_SCHEMES as Record<string, { type: string; scheme?: string }>)[name];
      return scheme?.type === 'http' && scheme.scheme === 'basic';
    }),
  );
}

/**
 * @fastify/swagger `transform`: a route's schema as the document shows it, with the platform's own
 * responses added and, per status, the names of the headers its responses carry (turned into
 * header objects by `declareHeaders`). The route's own schema, which validates and serializes, is
 * not changed.
 */
function documentRoute({ schema, url, route }: { schema: Json; url: string; route: Json }): { schema: Json; url: string } {
  if (!schema || schema.hide) return { schema, url };
  const family = familyOf(url);
  const body = family === 'oauth' ? 'OAuthError' : 'ErrorEnvelope';
  const response: Json = { ...(schema.response ?? {}) };
  for (const [status, description] of Object.entries(GENERIC_ERRORS)) {
    // Body limits and content types apply to the operations that take a body.
    if ((status === '413' || status === '415') && !schema.body) continue;
    response[status] ??= errorRef(body, description);
  }

  const rateLimited = isRateLimited({ config: route.config, schema });
  const own: Partial<Record<string, readonly ResponseHeaderName[]>> = route.config?.responseHeaders ?? {};
  const headers: Record<string, ResponseHeaderName[]> = {};
  for (const status of Object.keys(response)) {
    const names: ResponseHeaderName[] = ['x-request-id'];
    if (rateLimited) names.push(...RATE_LIMIT_HEADERS);
    if (status === '429' || status === '503') names.push('Retry-After');
    if (status === '401' && (family === 'pat' || usesBasic(schema.security))) names.push('WWW-Authenticate');
    for (const name of own[status] ?? []) if (!names.includes(name)) names.push(name);
    headers[status] = names;
  }
  return { schema: { ...schema, response, [ANNOTATION]: headers }, url };
}

/** @fastify/swagger `transformObject`: header objects where `documentRoute` named them; tags. */
function declareHeaders(doc: Json): Json {
  doc.components = { ...doc.components, headers: RESPONSE_HEADERS };
  for (const operations of Object.values<Json>(doc.paths ?? {})) {
    for (const operation of Object.values<Json>(operations)) {
      const named: Record<string, ResponseHeaderName[]> | undefined = operation?.[ANNOTATION];
      if (!named) continue;
      delete operation[ANNOTATION];
      for (const [status, names] of Object.entries(named)) {
        const response = operation.responses?.[status];
        if (!response) continue;
        response.headers = {
          ...response.headers,
          ...Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])),
        };
      }
    }
  }
  return doc;
}

export interface OpenApiOptions {
  publicBaseUrl: string;
  /** The OpenAPI 3.1 `webhooks` section: the events the service sends, handed in by the composition root. */
  webhooks?: Record<string, unknown>;
  /** The guides of docs/, linked from the document's description and served under /docs/guides. */
  guides?: readonly Guide[];
}

export async function registerOpenApi(app: FastifyInstance, opts: OpenApiOptions): Promise<void> {
  app.addSchema(ErrorEnvelope);
  app.addSchema(OAuthError);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tableside partner API',
        version: '1',
        description:
          'Content API (/v1/rms, API key), pay-at-table API (/v1/pat, access token), analytics API (/v1/pos, access ' +
          'token), booking channels (/v1/bc, /v3, /v1/feeds) and outbound webhooks (/v1/webhooks). HTTPS only. Errors use ' +
          'the envelope {"error":{"code","message","details"}}; a 401 on /v1/pat and every error of /oauth/token are ' +
          'OAuth-style {"error","error_description"}. Every response carries x-request-id.' +
          (opts.guides?.length ? `\n\n## Guides\n\n${guidesMarkdown(opts.guides)}\n\nA typed TypeScript client: the SDK \`@tableside/sdk\` (sdk/README.md in the repository).` : ''),
        contact: { name: 'The operator of this Tableside server', url: `${opts.publicBaseUrl}/docs` },
      },
      // OWASP API9: the audience of the server is stated (partners reach it: not internal).
      servers: [{ url: opts.publicBaseUrl, 'x-internal': false } as { url: string }],
      tags: TAGS,
      components: { securitySchemes: SECURITY_SCHEMES as unknown as Record<string, never> },
      ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
    },
    transform: documentRoute as never,
    transformObject: (document) => declareHeaders((document as { openapiObject: Json }).openapiObject),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
  });
  registerLazySwaggerUi(app, '/docs');
  registerGuides(app, opts.guides ?? []);
  compressDocument(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
