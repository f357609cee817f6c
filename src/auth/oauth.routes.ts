import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { AppError, rateLimited } from '../lib/errors.ts';
import type { AuthService } from './auth.service.ts';
import type { FailureLimiter } from './failure-limiter.ts';

// POST /oauth/token: the OAuth 2.0 client credentials grant (RFC 6749 4.4), as a form or a JSON
// body, with the client authenticated in the body or by HTTP Basic (RFC 6749 2.3.1).

const oauthError = (status: 'bad_request' | 'unauthorized', code: string, description: string) =>
  new AppError(status, description, { oauthError: code });

const TokenRequest = Type.Object({
  grant_type: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
});

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'seconds' }),
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
          'grant_type=client_credentials with client_id and client_secret in the body (form or JSON) or as HTTP Basic. ' +
          'The token is used as `Authorization: Bearer` on /v1/pat and /v1/pos.',
        tags: ['auth'],
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
        const wait = limiter.retryAfter(request.ip);
        if (wait > 0) throw rateLimited('Too many failed authentications from this address; try again later.', wait);
        limiter.record(request.ip);
        if (basic) reply.header('www-authenticate', 'Basic realm="tableside"');
        throw oauthError('unauthorized', 'invalid_client', 'Client authentication failed.');
      }
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return { access_token: issued.accessToken, token_type: 'Bearer' as const, expires_in: issued.expiresIn };
    },
  );
};
