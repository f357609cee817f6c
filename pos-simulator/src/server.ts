// Fastify assembly of the simulator: HTTPS listener, JSON errors, contract and control routes.

import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { controlRoutes } from './control.routes.ts';
import { contractRoutes, type ContractDeps } from './contract.routes.ts';
import { SimError } from './errors.ts';
import type { TlsPair } from './tls.ts';
import { lazyCompilers } from './lazy-compilers.ts';

/** What the routes run on: the contract's dependencies are all of them. */
export type ServerDeps = ContractDeps;

export function buildServer(tls: TlsPair, deps: ServerDeps, logger: boolean): FastifyInstance {
  const app = Fastify({
    https: { key: tls.key, cert: tls.cert },
    // Logs go to stderr so `pos-sim --json` keeps stdout for its one line.
    logger: logger ? { level: 'info', stream: process.stderr } : false,
    bodyLimit: 1024 * 1024,
    // Closing must not wait for requests parked by the 'hang' behaviour, nor for keep-alive clients.
    forceCloseConnections: true,
    // Each route's schemas compiled on first use (lazy-compilers.ts).
    schemaController: { compilersFactory: lazyCompilers },
    ajv: {
      // Strict types, like a careful POS: "2" is not a quantity. Unknown fields are kept, not stripped.
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true },
    },
  });

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof SimError) return reply.code(error.statusCode).send(error.body);
    const err = error as { validation?: unknown; statusCode?: number; message?: string };
    if (err.validation) return reply.code(400).send({ error: err.message ?? 'invalid request', details: err.validation });
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ error: err.message ?? 'bad request' });
    }
    reply.log.error(error);
    return reply.code(500).send({ error: 'internal error' });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ error: `no route ${request.method} ${request.url.split('?')[0]}` }));

  app.register(async (scope) => contractRoutes(scope, deps));
  app.register(async (scope) => controlRoutes(scope, deps));
  return app;
}

/** Listens on host:port (default 127.0.0.1, any free port) and answers the https base URL (shared with the RMS simulator). */
export async function listenLocal(app: FastifyInstance, host = '127.0.0.1', port = 0): Promise<string> {
  await app.listen({ port, host });
  const { port: bound } = app.server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return `https://${urlHost}:${bound}`;
}
