import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, forbidden, rateLimited } from '../lib/errors.ts';
import { bearerOf, type FailureThrottle } from '../server/auth.ts';
import { basicCredentials, type ChannelAccessService } from './access.service.ts';
import type { ChannelIdentity, ChannelProtocol } from './access.repository.ts';

// Authentication of booking channels (DESIGN 8.4), registered inside the channel plugins only, so
// the platform's partner hook never sees these paths. /v1/bc takes a `tableside` channel's API key
// (`Authorization: Bearer`), /v3 and the feeds a `google-v3` channel's Basic credentials; a failure
// on a Basic path answers 401 with `WWW-Authenticate: Basic` (CHN-11). Failed attempts count
// against the same per-address limit as partners' credentials.

declare module 'fastify' {
  interface FastifyRequest {
    channel: ChannelIdentity | null;
  }
}

const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="Tableside booking server", charset="UTF-8"' };

export function channelOf(request: FastifyRequest): ChannelIdentity {
  if (!request.channel) throw new AppError('internal', 'channel route used without channel authentication');
  return request.channel;
}

export function registerChannelAuth(
  app: FastifyInstance,
  deps: { access: ChannelAccessService; limiter: FailureThrottle; scheme: 'key' | 'basic'; protocol: ChannelProtocol },
): void {
  if (!app.hasRequestDecorator('channel')) app.decorateRequest('channel', null);
  const challenge = deps.scheme === 'basic' ? BASIC_CHALLENGE : {};
  const fail = async (request: FastifyRequest, message: string): Promise<never> => {
    const wait = await deps.limiter.retryAfter(request.ip);
    if (wait > 0) throw rateLimited('Too many failed authentications from this address; try again later.', wait);
    await deps.limiter.record(request.ip);
    throw new AppError('unauthorized', message, null, challenge);
  };

  app.addHook('onRequest', async (request) => {
    let outcome;
    if (deps.scheme === 'key') {
      const key = bearerOf(request);
      if (key === null) return fail(request, 'The Authorization header is missing; send Authorization: Bearer <channel API key>.');
      if (key === '') return fail(request, 'The Authorization header must be of the form "Bearer <channel API key>".');
      outcome = await deps.access.authenticateKey(key);
    } else {
      const basic = basicCredentials(request.headers.authorization);
      if (!basic) return fail(request, 'Send the channel\'s credentials with HTTP Basic authentication.');
      outcome = await deps.access.authenticateBasic(basic.username, basic.password);
    }
    if (!outcome.ok) return fail(request, outcome.failure === 'revoked' ? 'The channel credential has been revoked.' : 'The channel credential is invalid.');
    if (outcome.channel.protocol !== deps.protocol) {
      throw forbidden(`This channel speaks ${outcome.channel.protocol}; this API is for ${deps.protocol} channels.`);
    }
    request.channel = outcome.channel;
  });
}
