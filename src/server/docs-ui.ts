import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

// Swagger UI at /docs, built at its first request rather than at every start (issue 28): running
// @fastify/swagger-ui's plugin loads @fastify/static, glob and send and registers a route per asset,
// ~0.1 s of CPU in a restart's profile, for a page most processes never serve. The plugin runs in a
// private Fastify instance of its own; /docs and /docs/* of the service hand each request to it
// (`inject`, no socket) and send its answer, so the service's own hooks (x-request-id, the
// document's compression, the error envelope of a 404) apply as they did to the plugin's routes.

/** Headers of the private instance's answer the service's reply sets itself. */
const OWN_HEADERS = new Set(['content-length', 'connection', 'date', 'keep-alive', 'transfer-encoding']);

export function registerLazySwaggerUi(app: FastifyInstance, routePrefix: string): void {
  let ui: Promise<FastifyInstance> | null = null;
  const build = async (): Promise<FastifyInstance> => {
    const docs = Fastify();
    // What the plugin needs of the instance it runs in (its declared dependency, @fastify/swagger):
    // the `swagger` decorator, here the service's own document.
    const serviceDocument = fp(async (instance: FastifyInstance) => {
      instance.decorate('swagger', ((opts?: { yaml?: boolean }) => app.swagger(opts as never)) as never);
    }, { name: '@fastify/swagger' });
    await docs.register(serviceDocument);
    await docs.register(swaggerUi, { routePrefix, staticCSP: true });
    await docs.ready();
    return docs;
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const docs = await (ui ??= build().catch((err) => {
      ui = null;
      throw err;
    }));
    const answer = await docs.inject({ method: 'GET', url: request.url, headers: request.headers });
    if (answer.statusCode === 404) return reply.callNotFound();
    if (answer.statusCode >= 500) throw new Error(`Swagger UI answered ${answer.statusCode}`);
    for (const [name, value] of Object.entries(answer.headers)) {
      if (!OWN_HEADERS.has(name) && value !== undefined) reply.header(name, value);
    }
    reply.code(answer.statusCode);
    // The document as text (compress-document.ts compresses /docs/json's string payload); assets as bytes.
    const json = /^application\/json/.test(String(answer.headers['content-type'] ?? ''));
    if (answer.rawPayload.length === 0) return reply.send(); // a redirect or a 304: no body, no type of ours
    return reply.send(json ? answer.payload : answer.rawPayload);
  };
  app.get(routePrefix, { schema: { hide: true } }, handler);
  app.get(`${routePrefix}/*`, { schema: { hide: true } }, handler);
}
