import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { FailureLimiter } from '../auth/failure-limiter.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { JobDefinition } from '../db/jobs.ts';
import type { Clock } from '../lib/clock.ts';
import type { TlsMaterial } from '../lib/tls.ts';
import { PosClients } from '../pos/pos-clients.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import { RmsClients } from '../rms/rms-client.ts';
import type { Authenticator } from '../server/auth.ts';
import { createPlatform } from '../server/platform.ts';
import { ERROR_MAPPINGS } from './errors.ts';
import { mountRoutes } from './routes.ts';
import { buildServices, type Services } from './services.ts';
import { webhookDocument } from '../webhooks/events.schemas.ts';

// The HTTP service assembled: the services (services.ts) on the platform (src/server), with every
// feature's routes mounted (routes.ts).

export interface AppDeps {
  config: Config;
  db: Db;
  clock: Clock;
  tls: TlsMaterial;
  log: Logger;
  posTypes: PosTypeRegistry;
}

export interface App {
  fastify: FastifyInstance;
  services: Services;
  /** Durable job kinds the features run (registered on the process's JobRunner). */
  jobs: Record<string, JobDefinition<any>>;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db, clock, tls, log, posTypes } = deps;
  const posClients = new PosClients({ timeoutMs: config.posTimeoutMs });
  const rmsClients = new RmsClients({ timeoutMs: config.rmsTimeoutMs, allowPrivate: config.allowPrivateTargets });
  const { services, jobs } = buildServices({ config, db, clock, log, posTypes, posClients, rmsClients });
  const limiter = new FailureLimiter(db.kysely, config.authFailureLimitPerMin);
  const fastify = await createPlatform({
    config, db, tls, log, authenticator: withChannelKeys(services), throttle: limiter, errorMappings: ERROR_MAPPINGS,
    // The document's OpenAPI 3.1 `webhooks` section: one entry per event type the service sends.
    webhooks: webhookDocument(),
  });
  fastify.addHook('onClose', async () => posClients.close());
  fastify.addHook('onClose', async () => rmsClients.close());
  fastify.addHook('onClose', async () => services.googleRtu.close());
  await mountRoutes(fastify, services, { posTypes, limiter });
  return { fastify, services, jobs };
}

/**
 * The platform's authenticator: partners' credentials (src/auth), and a `tableside` booking channel's
 * API key where a route takes either (the webhooks API, DESIGN 8.7a). A google-v3 channel has no API
 * key, only Basic credentials, so it never authenticates here.
 */
function withChannelKeys(services: Services): Authenticator {
  const { auth, channelAccess } = services;
  return {
    authenticateKey: (key) => auth.authenticateKey(key),
    authenticateToken: (token) => auth.authenticateToken(token),
    async authenticateChannelKey(key) {
      const outcome = await channelAccess.authenticateKey(key);
      if (!outcome.ok) return outcome;
      if (outcome.channel.protocol !== 'tableside') return { ok: false, failure: 'unknown' };
      return { ok: true, channel: { channelId: outcome.channel.id, channelName: outcome.channel.name } };
    },
  };
}
