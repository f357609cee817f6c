// Fastify assembly of the simulated Google: HTTPS listener, Google's error shapes, the token
// endpoint, the two Maps Booking API methods and the control API.

import Fastify, { type FastifyInstance } from 'fastify';
import type { TlsPair } from '../../pos-simulator/src/tls.ts';
import { apiRoutes } from './api.routes.ts';
import { controlRoutes } from './control.routes.ts';
import { GoogleApiError, OAuthError, googleErrorBody } from './errors.ts';
import { tokenRoutes } from './token.routes.ts';
import type { ServerDeps } from './server.types.ts';
import { lazyCompilers } from '../../pos-simulator/src/lazy-compilers.ts';

/** A request body Google accepts at most (the JSON of 1,000 availability records is far below it). */
const BODY_LIMIT = 8 * 1024 * 1024;

export type { ServerDeps, Settings } from './server.types.ts';

export function buildServer(tls: TlsPair, deps: ServerDeps, logger: boolean): FastifyInstance {
  const app = Fastify({
    https: { key: tls.key, cert: tls.cert },
    logger: logger ? { level: 'info', stream: process.stderr } : false,
    bodyLimit: BODY_LIMIT,
    // Closing must not wait for requests parked by a scripted hang, nor for keep-alive clients.
    forceCloseConnections: true,
    // Each route's schemas compiled on first use (lazy-compilers.ts).
    schemaController: { compilersFactory: lazyCompilers },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
  });

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof OAuthError) return reply.code(400).header('cache-control', 'no-store').send(error.body);
    if (error instanceof GoogleApiError) {
      if (error.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="https://accounts.google.com/"');
      return reply.code(error.statusCode).send(error.body);
    }
    const err = error as { statusCode?: number; message?: string };
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      // Unparsable JSON, a control body off its schema, a clock move the clock refuses.
      return reply.code(err.statusCode).send(googleErrorBody(err.statusCode, err.message ?? 'bad request'));
    }
    reply.log.error(error);
    return reply.code(500).send(googleErrorBody(500));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(googleErrorBody(404, `no method ${request.method} ${request.url.split('?')[0]}`)));

  app.register(async (scope) => tokenRoutes(scope, deps));
  app.register(async (scope) => apiRoutes(scope, deps));
  app.register(async (scope) => controlRoutes(scope, deps));
  return app;
}
