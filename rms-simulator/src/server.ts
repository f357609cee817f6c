// Fastify assembly of the reference RMS: HTTPS listener, the error envelope, contract and control routes.

import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TlsPair } from '../../pos-simulator/src/tls.ts';
import { contractRoutes, type ContractDeps } from './contract.routes.ts';
import { controlRoutes, type ControlDeps } from './control.routes.ts';
import { RmsError } from './errors.ts';
import { lazyCompilers } from '../../pos-simulator/src/lazy-compilers.ts';

/** What the routes run on: each route group declares what it uses. */
export type ServerDeps = ContractDeps & ControlDeps;

interface AjvError { instancePath?: string; message?: string; params?: { missingProperty?: string } }

/** Ajv errors -> {field: [problems]}, the field named as the caller wrote it (e.g. `contact.email`). */
function fieldProblems(errors: AjvError[]): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  for (const e of errors) {
    const path = (e.instancePath ?? '').split('/').filter(Boolean);
    if (e.params?.missingProperty) path.push(e.params.missingProperty);
    const field = path.join('.') || 'body';
    (details[field] ??= []).push(e.message ?? 'invalid');
  }
  return details;
}

export function buildServer(tls: TlsPair, deps: ServerDeps, logger: boolean, http2 = false): FastifyInstance {
  const options = {
    // Logs go to stderr so `rms-sim --json` keeps stdout for its one line.
    logger: logger ? { level: 'info', stream: process.stderr } : false,
    bodyLimit: 1024 * 1024,
    // Closing must not wait for requests parked by the 'hang' knob, nor for keep-alive clients.
    forceCloseConnections: true,
    // Each route's schemas compiled on first use (lazy-compilers.ts).
    schemaController: { compilersFactory: lazyCompilers },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
  };
  // With http2, HTTP/2 is offered by ALPN and HTTP/1.1 still answers clients that do not ask for it;
  // the routes use nothing of the request and reply that differs between the two.
  const app: FastifyInstance = http2
    ? (Fastify({ ...options, http2: true, https: { allowHTTP1: true, key: tls.key, cert: tls.cert } }) as unknown as FastifyInstance)
    : Fastify({ ...options, https: { key: tls.key, cert: tls.cert } });
  if (http2) closeEveryConnection(app);

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof RmsError) {
      // Deliberately broken mode: 402s in a flat envelope.
      if (error.statusCode === 402 && deps.store.broken === 'flat-402-envelope') return reply.code(402).send({ error: error.code });
      return reply.code(error.statusCode).send(error.body);
    }
    const err = error as { validation?: AjvError[]; validationContext?: string; statusCode?: number; message?: string };
    if (err.validation) {
      return reply.code(400).send({ error: { code: 'invalid_request', message: err.message ?? 'invalid request', details: fieldProblems(err.validation) } });
    }
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ error: { code: 'invalid_request', message: err.message ?? 'bad request' } });
    }
    reply.log.error(error);
    return reply.code(500).send({ error: { code: 'internal', message: 'internal error' } });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` } }));

  app.register(async (scope) => contractRoutes(scope, deps));
  app.register(async (scope) => controlRoutes(scope, deps));
  return app;
}

/**
 * forceCloseConnections for the HTTP/2 server: Fastify closes its HTTP/2 sessions gracefully and, for
 * the HTTP/1.1 connections it also serves, tracks only those that sent `Connection: keep-alive` (an
 * HTTP/2 server has no closeAllConnections), so an idle kept-alive client would hold the close.
 */
function closeEveryConnection(app: FastifyInstance): void {
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', async () => {
    for (const socket of sockets) socket.destroy();
  });
}
