import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { AppError } from '../lib/errors.ts';
import { CUSTOM_FORMATS } from '../lib/json-schema.ts';
import type { TlsMaterial } from '../lib/tls.ts';
import { registerAuth, type Authenticator, type FailureThrottle } from './auth.ts';
import { registerErrorHandling, sendError, type ErrorMapping } from './errors.ts';
import { clientErrorHandler, connectHandler, frameworkError, MAX_PARAM_LENGTH, registerInputGuards } from './input-guards.ts';
import { healthRoutes } from './health.routes.ts';
import { createHttpsOnlyServer } from './https-only.ts';
import { loggableUrl } from './logger.ts';
import { registerMetrics } from './metrics.ts';
import { loadGuides } from './guides.ts';
import { registerOpenApi } from './openapi.ts';
import { buildCachedSerializer } from './serialization.ts';
import { validatorCompiler } from './validation.ts';

// The HTTP platform every feature's routes run on: one Fastify instance over the HTTPS-only server,
// with request ids, request logs, the error envelopes, the auth hook, body parsing, metrics, the
// OpenAPI document and the health routes. It knows no feature: the composition root (src/app)
// hands in how to check credentials and how the modules' own errors map to HTTP, then mounts the
// features' routes on the instance this returns.

export interface PlatformDeps {
  config: Pick<Config, 'trustProxy' | 'publicBaseUrl'>;
  db: Pick<Db, 'kysely' | 'pglite' | 'pool'>;
  tls: TlsMaterial;
  log: Logger;
  authenticator: Authenticator;
  /** Throttles failed authentications per client address (429 past the limit). */
  throttle: FailureThrottle;
  errorMappings: readonly ErrorMapping[];
  /** The OpenAPI 3.1 `webhooks` section (the events the service sends); the platform knows no event. */
  webhooks?: Record<string, unknown>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const BODY_LIMIT = 1024 * 1024;
/** The project's guides (docs/*.md), served beside the API reference. */
const GUIDES_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));

export async function createPlatform(deps: PlatformDeps): Promise<FastifyInstance> {
  const { config, db, tls, log } = deps;
  // Every path the API has, whatever the method, to tell 403 (method not offered) from 404.
  const paths = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  const seen = new Set<string>();
  const isKnownPath = (path: string) => paths.find('GET', path) !== null;

  const fastify = Fastify({
    loggerInstance: log,
    // One log line per request, written by the onResponse hook below (with the URL's secrets cut).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    // A caller's own request id is kept (so it can correlate), if it is a sane token.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    serverFactory: (handler) => createHttpsOnlyServer(tls, handler, { trustProxy: config.trustProxy }),
    // Requests that arrive while the server closes get a 503 from the hook below, in the envelope
    // (Fastify's own 503 has neither the envelope, x-request-id nor Retry-After).
    return503OnClosing: false,
    // The response serializer settles the unions left after serialization.ts (those that are not
    // "X or null") with an ajv of its own: it needs the service's format names (their enum or
    // pattern says what they accept; a serializer validates nothing).
    serializerOpts: { ajv: { formats: Object.fromEntries(Object.keys(CUSTOM_FORMATS).map((name) => [name, true])) } },
    schemaController: { compilersFactory: { buildSerializer: buildCachedSerializer } },
    // Router and parser errors in the envelope, and every parameter its schema accepts (ERR-07, LIM-22).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientErrorHandler(isKnownPath),
    // The HTTPS-only server and pino logger narrow Fastify's generics; the rest of the code
    // works with the plain instance type.
  }) as unknown as FastifyInstance;
  fastify.setValidatorCompiler(validatorCompiler);
  fastify.server.on('connect', connectHandler(isKnownPath));

  fastify.addHook('onRoute', (route) => {
    if (!seen.has(route.url)) {
      seen.add(route.url);
      paths.on('GET', route.url, () => {});
    }
  });
  registerErrorHandling(fastify, isKnownPath, deps.errorMappings);
  registerInputGuards(fastify);

  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  fastify.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.header('connection', 'close');
      // Retry-After comes with every 503 (errors.ts errorHeaders).
      return sendError(request, reply, new AppError('unavailable', 'The server is shutting down; retry the request (another replica or this one restarted will answer).'));
    }
    if (config.trustProxy) {
      const proto = request.headers['x-forwarded-proto'];
      const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
      if (first !== 'https') {
        reply.header('connection', 'close');
        return sendError(request, reply, new AppError('bad_request', 'This service only accepts HTTPS; the request reached it over plain HTTP and was not processed.'));
      }
    }
  });
  fastify.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: loggableUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
  });

  // Bodies are JSON, or a form on /oauth/token and the onboarding page; anything else is a 415.
  fastify.removeContentTypeParser('text/plain');
  await fastify.register(formbody, { bodyLimit: BODY_LIMIT });
  await registerOpenApi(fastify, { publicBaseUrl: config.publicBaseUrl, webhooks: deps.webhooks, guides: loadGuides(GUIDES_DIR) });
  const pglite = db.pglite as unknown as { Module?: { HEAPU8?: Uint8Array } } | undefined;
  registerMetrics(fastify, { embeddedDbMemory: pglite ? () => pglite.Module?.HEAPU8?.length ?? null : undefined, db });
  registerAuth(fastify, { auth: deps.authenticator, limiter: deps.throttle });
  await fastify.register(healthRoutes, { db });
  return fastify;
}
