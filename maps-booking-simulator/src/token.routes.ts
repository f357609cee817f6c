// POST /token: Google's OAuth 2.0 token endpoint for service accounts (RFC 7523 jwt-bearer grant).
// Answers `{access_token, expires_in, token_type}` for an assertion jwt.fns.ts accepts, else 400
// `{error, error_description}` in Google's words. Every request is logged with what its JWT claimed.

import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { TOKENS, entryOf, loggedHeaders, recordAnswers, track, type TokenRequest } from './calls.ts';
import { OAuthError } from './errors.ts';
import { checkAssertion, peekClaims } from './jwt.fns.ts';
import { answerScripted } from './respond.ts';
import type { ServerDeps } from './server.types.ts';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

type TokenForm = { grant_type?: unknown; assertion?: unknown };

export async function tokenRoutes(app: FastifyInstance, deps: ServerDeps): Promise<void> {
  const { accounts, tokens, log, clock, settings } = deps;
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  recordAnswers(app);

  app.addHook('onRequest', async (request) => {
    const entry: TokenRequest = {
      operation: 'token',
      method: request.method,
      path: request.url.split('?')[0],
      query: {},
      headers: loggedHeaders(request),
      body: undefined,
      grantType: null,
      claims: null,
      receivedAt: new Date(clock.now()).toISOString(),
      answer: null,
    };
    log.add(TOKENS, entry);
    track(request, entry);
  });
  app.addHook('preHandler', async (request) => {
    const entry = entryOf(request) as TokenRequest | undefined;
    const form = (request.body ?? {}) as TokenForm;
    if (!entry) return;
    entry.body = { grant_type: form.grant_type };
    entry.grantType = typeof form.grant_type === 'string' ? form.grant_type : null;
    entry.claims = typeof form.assertion === 'string' ? peekClaims(form.assertion) : null;
  });

  app.post<{ Body: TokenForm }>('/token', async (request, reply) => {
    if (await answerScripted(deps.script.take('token'), request, reply, deps)) return reply;
    const { grant_type: grantType, assertion } = request.body ?? {};
    if (grantType !== JWT_BEARER) throw new OAuthError('unsupported_grant_type', `Invalid grant_type: ${String(grantType ?? '')}`);
    if (typeof assertion !== 'string' || assertion === '') throw new OAuthError('invalid_request', 'Missing required parameter: assertion');
    const nowMs = clock.now();
    const claims = checkAssertion(assertion, {
      keyOf: (email) => accounts.get(email),
      audience: settings.tokenUri,
      nowSec: Math.floor(nowMs / 1000),
      skewSec: settings.clockSkewS,
    });
    const account = accounts.get(claims.iss)!;
    const accessToken = tokens.issue(account.clientEmail, account.partnerId, nowMs, settings.tokenLifetimeS);
    return reply.header('cache-control', 'no-store').send({ access_token: accessToken, expires_in: settings.tokenLifetimeS, token_type: 'Bearer' });
  });
}
