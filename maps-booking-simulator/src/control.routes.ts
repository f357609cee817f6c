// The control API: what a test (or the sandbox) does to the simulated Google: register or generate
// service accounts, set the token lifetime, script answers, read the calls and token requests it
// received and the bookings Google holds, move the clock, reset. The control key may do all of it;
// the read-only key may only read the logs and the bookings (the sandbox hands that one out).

import type { FastifyInstance } from 'fastify';
import { bearerMatches } from '../../pos-simulator/src/auth.ts';
import { clockRoutes } from '../../pos-simulator/src/control.routes.ts';
import type { GenerateInput, RegisterInput } from './accounts.ts';
import { CALLS, TOKENS, type ApiCall, type TokenRequest } from './calls.ts';
import { GenerateBody, RegisterBody, ScriptBody, SettingsBody, type ScriptInput, type SettingsInput } from './control.schemas.ts';
import { GoogleApiError } from './errors.ts';
import type { ServerDeps } from './server.types.ts';

const READABLE = ['/_control/calls', '/_control/tokens', '/_control/bookings'];

export async function controlRoutes(app: FastifyInstance, deps: ServerDeps): Promise<void> {
  const { accounts, tokens, script, log, settings, bookings } = deps;

  app.addHook('onRequest', async (request) => {
    const { authorization } = request.headers;
    if (bearerMatches(authorization, deps.keys.control)) return;
    const readOnly = request.method === 'GET' && READABLE.includes(request.url.split('?')[0]);
    if (readOnly && bearerMatches(authorization, deps.keys.read)) return;
    throw new GoogleApiError(401, 'missing or invalid Authorization: Bearer <control key>');
  });

  // ---- service accounts ----
  app.get('/_control/service-accounts', async () => accounts.list());
  app.post<{ Body: RegisterInput }>('/_control/service-accounts', { schema: { body: RegisterBody } }, async (request, reply) =>
    reply.code(201).send(accounts.register(request.body)));
  app.post<{ Body: GenerateInput }>('/_control/service-accounts/generate', { schema: { body: GenerateBody } }, async (request, reply) =>
    reply.code(201).send(await accounts.generate(request.body, settings.tokenUri)));
  app.delete<{ Params: { email: string } }>('/_control/service-accounts/:email', async (request, reply) => {
    if (!accounts.remove(request.params.email)) throw new GoogleApiError(404, `no service account ${request.params.email}`);
    tokens.revokeAll(request.params.email);
    return reply.code(204).send();
  });

  // ---- tokens ----
  app.get('/_control/settings', async () => ({ tokenLifetimeS: settings.tokenLifetimeS, clockSkewS: settings.clockSkewS }));
  app.put<{ Body: SettingsInput }>('/_control/settings', { schema: { body: SettingsBody } }, async (request) => {
    Object.assign(settings, request.body);
    return { tokenLifetimeS: settings.tokenLifetimeS, clockSkewS: settings.clockSkewS };
  });
  app.post('/_control/tokens/revoke', async () => ({ revoked: tokens.revokeAll() }));

  // ---- scripted answers ----
  app.get('/_control/script', async () => script.list());
  app.post<{ Body: ScriptInput }>('/_control/script', { schema: { body: ScriptBody } }, async (request) =>
    script.add(request.body.operation, request.body.answer, request.body.count ?? 1));
  app.delete('/_control/script', async (_request, reply) => {
    script.clear();
    return reply.code(204).send();
  });

  // ---- what was received ----
  app.get<{ Querystring: { operation?: string; partnerId?: string } }>('/_control/calls', async (request) => {
    const { operation, partnerId } = request.query;
    return (log.list(CALLS) as ApiCall[]).filter((c) => (operation === undefined || c.operation === operation) && (partnerId === undefined || c.partnerId === partnerId));
  });
  app.get('/_control/tokens', async () => log.list(TOKENS) as TokenRequest[]);
  app.delete('/_control/calls', async (_request, reply) => {
    log.clear();
    return reply.code(204).send();
  });
  app.get('/_control/bookings', async () => [...bookings.values()]);

  // ---- clock, reset ----
  clockRoutes(app, deps.clock, () => undefined);
  app.post('/_control/reset', async (_request, reply) => {
    accounts.clear();
    tokens.clear();
    script.clear();
    log.clear();
    bookings.clear();
    return reply.code(204).send();
  });
}
