import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { AppError, rateLimited } from '../lib/errors.ts';
import { Int32, Str } from '../server/schemas.ts';
import type { AuthService } from './auth.service.ts';
import type { FailureLimiter } from './failure-limiter.ts';

// POST /oauth/token: the OAuth 2.0 client credentials grant (RFC 6749 4.4), as a form or a JSON
// body, with the client authenticated in the body or by HTTP Basic (RFC 6749 2.3.1).

const oauthError = (status: 'bad_request' | 'unauthorized', code: string, description: string) =>
  new AppError(status, description, { oauthError: code });

// Every field is optional in the schema: a missing grant_type or client is answered by the handler
// with the RFC 6749 error it deserves (invalid_request, unsupported_grant_type), not a generic 400.
// The limits are far above what is ever issued (tci_ + 16 characters, tcs_ + 43).
const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(Str(64, { description: 'must be client_credentials' })),
    client_id: Type.Optional(Str(256, { description: 'the client id (tci_…); or use HTTP Basic' })),
    client_secret: Type.Optional(Str(256, { description: 'the client secret (tcs_…); or use HTTP Basic' })),
    scope: Type.Optional(Str(1024, { description: 'ignored: a token carries the access of its partner' })),
  },
  { description: 'The same fields as a form (application/x-www-form-urlencoded, RFC 6749) or as JSON.' },
);

const TokenResponse = Type.Object({
  access_token: Type.String({ maxLength: 47, pattern: '^tat_[A-Za-z0-9_-]{43}$', description: 'tat_ and 43 base64url characters' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Int32(1, 31_536_000, { description: 'seconds until the token expires (ACCESS_TOKEN_TTL_S, 3600 by default)' }),
});

function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const match = header && /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  // RFC 6749 2.3.1: both parts are form-urlencoded before being joined.
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}

export const oauthRoutes: FastifyPluginAsyncTypebox<{ auth: AuthService; limiter: FailureLimiter }> = async (app, { auth, limiter }) => {
  app.post(
    '/oauth/token',
    {
      config: { rateLimited: true, responseHeaders: { 200: ['Cache-Control', 'Pragma'], 401: ['WWW-Authenticate'] } },
      schema: {
        operationId: 'issueAccessToken',
        summary: 'Exchange client credentials for an access token',
        description:
          'The OAuth 2.0 client credentials grant (RFC 6749 4.4): grant_type=client_credentials with client_id and ' +
          'client_secret in the body, as a form (application/x-www-form-urlencoded) or as JSON, or as HTTP Basic ' +
          '(then Basic wins over the body). Answers {access_token, token_type: Bearer, expires_in} with Cache-Control: ' +
          'no-store; the token is used as `Authorization: Bearer` on /v1/pat and /v1/pos until it expires. Errors are ' +
          'RFC 6749 bodies {error, error_description}: 400 invalid_request (a field missing or malformed), 400 ' +
          'unsupported_grant_type (another grant), 401 invalid_client (unknown client or wrong secret; with ' +
          'WWW-Authenticate: Basic when Basic was used), 429 after too many failed authentications from one address ' +
          '(see Retry-After). No other authentication.',
        tags: ['auth'],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: TokenRequest,
        response: {
          200: TokenResponse,
          400: Type.Unsafe({ $ref: 'OAuthError#' }),
          401: Type.Unsafe({ $ref: 'OAuthError#' }),
          429: Type.Unsafe({ $ref: 'OAuthError#' }),
        },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      if (body.grant_type === undefined) throw oauthError('bad_request', 'invalid_request', 'grant_type is required.');
      if (body.grant_type !== 'client_credentials') {
        throw oauthError('bad_request', 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
      }
      const basic = basicCredentials(request.headers.authorization);
      const clientId = basic?.id ?? body.client_id;
      const clientSecret = basic?.secret ?? body.client_secret;
      if (!clientId || !clientSecret) {
        throw oauthError('bad_request', 'invalid_request', 'client_id and client_secret are required.');
      }
      const issued = await auth.exchangeClientCredentials(clientId, clientSecret);
      if (!issued) {
        const wait = await limiter.retryAfter(request.ip);
        if (wait > 0) throw rateLimited('Too many failed authentications from this address; try again later.', wait);
        await limiter.record(request.ip);
        if (basic) reply.header('www-authenticate', 'Basic realm="tableside"');
        throw oauthError('unauthorized', 'invalid_client', 'Client authentication failed.');
      }
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return { access_token: issued.accessToken, token_type: 'Bearer' as const, expires_in: issued.expiresIn };
    },
  );
};
