import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { AppError, forbidden, rateLimited, unauthorized } from '../lib/errors.ts';

// Authentication of the three API families (spec 5). A route states what it needs in its config
// (`config: { auth: 'pat' }`); this hook runs before the body is read, so an unauthenticated
// request costs no parsing.
//   rms        API key        missing header 401, bad key 401, no rms access 403
//   pat        access token   missing header 403, bad token 401 (OAuth style), no pat access 403
//   analytics  access token   missing header 401, bad token 401, no analytics access 403
// The platform defines what a principal is and how each family answers; checking a credential is
// the auth module's (src/auth), handed in as an Authenticator by the composition root.

/** The API families a partner may have access to. */
export type AccessKind = 'rms' | 'pat' | 'analytics';
export const ACCESS_KINDS: readonly AccessKind[] = ['rms', 'pat', 'analytics'];

/** Who made a request, once authenticated. */
export interface Principal {
  partnerId: string;
  partnerName: string;
  access: AccessKind[];
  active: boolean;
}

export type AuthFailure = 'malformed' | 'unknown' | 'revoked' | 'expired';
export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; failure: AuthFailure };

export const FAILURE_MESSAGE: Record<AuthFailure, string> = {
  malformed: 'The credential is malformed.',
  unknown: 'The credential is not recognised.',
  revoked: 'The credential has been revoked.',
  expired: 'The access token has expired.',
};

/** A booking channel, once authenticated by its own API key (the webhooks API takes it, DESIGN 8.7a). */
export interface ChannelPrincipal {
  channelId: string;
  channelName: string;
}

export type ChannelAuthOutcome = { ok: true; channel: ChannelPrincipal } | { ok: false; failure: AuthFailure };

/** Checks a presented credential: an API key (rms) or an access token (pat, analytics). */
export interface Authenticator {
  authenticateKey(key: string): Promise<AuthOutcome>;
  authenticateToken(token: string): Promise<AuthOutcome>;
  /**
   * A booking channel's API key, for `partner-or-channel` routes; `malformed` when the credential is
   * not of a channel key's form (the hook then reads it as a partner's access token).
   */
  authenticateChannelKey?(key: string): Promise<ChannelAuthOutcome>;
}

/** Where an address stands against the failed-authentication limit. */
export interface ThrottleStatus {
  /** Failed authentications an address may make in the window. */
  limit: number;
  /** The window, in seconds. */
  windowS: number;
  /** Failures the address may still make now. */
  remaining: number;
  /** Seconds until `remaining` rises again (the oldest counted failure leaves the window); 0 when none counts. */
  resetS: number;
}

/** Throttles failed authentications per client address (for the whole fleet: src/auth/failure-limiter.ts). */
export interface FailureThrottle {
  /** Seconds the address must wait, or 0 when it may still fail. */
  retryAfter(address: string): Promise<number>;
  record(address: string): Promise<void>;
  status(address: string): Promise<ThrottleStatus>;
}

/**
 * `partner`: any partner with its own credential, an API key (`tsk_…`) or an access token
 * (`tat_…`). `partner-or-channel`: that, or a `tableside` booking channel's API key, as the webhooks
 * API takes (DESIGN 8.5, 8.7a). Missing header 401.
 */
export type AuthRequirement = AccessKind | 'partner' | 'partner-or-channel';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The booking channel of a `partner-or-channel` route called with a channel's key. */
    channelPrincipal: ChannelPrincipal | null;
  }
  interface FastifyContextConfig {
    auth?: AuthRequirement;
    /**
     * The route checks a credential itself and counts its failures against the throttle (the
     * OAuth token endpoint). Routes with `auth` or a `security` requirement count them already.
     */
    rateLimited?: boolean;
  }
}

/**
 * Whether the failed-authentication limit applies to a route: every route that takes a credential
 * (its `config.auth`, the `security` its schema declares, or `config.rateLimited`). Those routes
 * send the RateLimit headers on every response, and the OpenAPI document declares them there.
 */
export function isRateLimited(route: { config?: { auth?: unknown; rateLimited?: boolean } | null; schema?: unknown }): boolean {
  const security = (route.schema as { security?: unknown[] } | undefined)?.security;
  return Boolean(route.config?.auth || route.config?.rateLimited || (Array.isArray(security) && security.length > 0));
}

/**
 * The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers) for the failed-authentication
 * limit: the quota is failed authentications per client address; a request with a valid
 * credential uses none of it.
 */
export function rateLimitHeaders(status: ThrottleStatus): Record<string, string> {
  return {
    'ratelimit-limit': String(status.limit),
    'ratelimit-remaining': String(status.remaining),
    'ratelimit-reset': String(status.resetS),
    'ratelimit-policy': `${status.limit};w=${status.windowS}`,
  };
}

const ACCESS_NAME: Record<AccessKind, string> = {
  rms: 'content API',
  pat: 'pay-at-table',
  analytics: 'analytics',
};

/** The credential of an `Authorization: Bearer …` header; null when the header is absent. */
export function bearerOf(request: FastifyRequest): string | null | '' {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match ? match[1] : '';
}

/** The caller's partner; throws if the route was registered without `config.auth`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('internal', 'route used without authentication');
  return request.principal;
}

export function registerAuth(app: FastifyInstance, deps: { auth: Authenticator; limiter: FailureThrottle }): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('channelPrincipal', null);

  // On every answer of a rate-limited route, successes and refusals alike, after this request's
  // own failure (if any) was counted.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!isRateLimited(request.routeOptions)) return payload;
    try {
      reply.headers(rateLimitHeaders(await deps.limiter.status(request.ip)));
    } catch (err) {
      // The count is the fleet's, kept in the database (DES-031). While the database is unreachable
      // the answer goes without the headers (the document does not require them) instead of being
      // replaced by Fastify's fallback for the failed read (ERR-08: the 503 envelope, no address).
      if (!isDatabaseUnavailable(err)) throw err;
      request.log.warn({ err }, 'RateLimit headers left out: the failure count could not be read');
    }
    return payload;
  });

  const fail = async (request: FastifyRequest, error: AppError): Promise<never> => {
    const wait = await deps.limiter.retryAfter(request.ip);
    if (wait > 0) throw rateLimited('Too many failed authentications from this address; try again later.', wait);
    await deps.limiter.record(request.ip);
    throw error;
  };

  app.addHook('onRequest', async (request) => {
    const need = request.routeOptions.config?.auth;
    if (!need) return;
    const credential = bearerOf(request);
    if (credential === null) {
      const message = 'The Authorization header is missing; send Authorization: Bearer <credential>.';
      return fail(request, need === 'pat' ? forbidden(message) : unauthorized(message));
    }
    if (credential === '') return fail(request, unauthorized('The Authorization header must be of the form "Bearer <credential>".'));

    if (need === 'partner-or-channel' && deps.auth.authenticateChannelKey) {
      const channel = await deps.auth.authenticateChannelKey(credential);
      if (channel.ok) {
        request.channelPrincipal = channel.channel;
        return;
      }
      if (channel.failure !== 'malformed') return fail(request, unauthorized(`The channel API key is ${channel.failure === 'revoked' ? 'revoked' : 'invalid'}.`));
    }
    const anyPartner = need === 'partner' || need === 'partner-or-channel';
    const byKey = need === 'rms' || (anyPartner && credential.startsWith('tsk_'));
    const outcome = byKey ? await deps.auth.authenticateKey(credential) : await deps.auth.authenticateToken(credential);
    if (!outcome.ok) {
      const what = anyPartner ? 'credential' : byKey ? 'API key' : 'access token';
      const message = outcome.failure === 'expired' ? FAILURE_MESSAGE.expired : `The ${what} is ${outcome.failure === 'revoked' ? 'revoked' : 'invalid'}.`;
      return fail(request, unauthorized(message));
    }
    const principal = outcome.principal;
    if (need === 'partner' || need === 'partner-or-channel') {
      if (!principal.active) throw forbidden('This partner is not active.');
    } else if (!principal.active || !principal.access.includes(need)) {
      throw forbidden(`This partner has no active ${ACCESS_NAME[need]} access.`);
    }
    request.principal = principal;
  });
}
