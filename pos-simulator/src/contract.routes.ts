// The partner contract (spec 4.6) and its payment extension (DESIGN 6.2): the routes the service
// calls. Every request is logged per venue (before auth, so a wrong key is visible in the log) and
// must carry the Bearer API key.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UNAUTHORIZED_BODY, bearerMatches } from './auth.ts';
import { distortOrder } from './broken.ts';
import {
  CreateOrderBody, OrderParams, OrdersQuery, PaymentForwardBody, PaymentParams, VenueParams,
} from './contract.schemas.ts';
import { badRequest, notFound } from './errors.ts';
import type { OrdersService } from './orders.service.ts';
import type { OversizedAnswers } from './oversized.ts';
import type { PaymentsService } from './payments.service.ts';
import type { LoggedRequest, RequestLog } from './request-log.ts';
import type { SimStore } from './store.ts';
import { parseIsoInstant } from './time.ts';
import type { SeatingFaultKnobs } from './seating-faults.ts';
import type { PosOrder } from './types.ts';
import type { VenuesService } from './venues.service.ts';

export interface ContractDeps {
  store: SimStore;
  log: RequestLog;
  venues: VenuesService;
  orders: OrdersService;
  payments: PaymentsService;
  /** Sockets of requests parked by the 'hang' behaviour, destroyed on close. */
  parked: Set<FastifyRequest>;
  /** The oversized-answer knob (DESIGN 8.8e): while set, every authorised call gets a huge 200. */
  oversized: OversizedAnswers;
  /** The seating fault knobs (DESIGN 8.8a): odd create answers, echoed ids, slow or held calls. */
  seatingFaults: SeatingFaultKnobs;
}

const logEntries = new WeakMap<FastifyRequest, LoggedRequest>();

function queryBound(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseIsoInstant(value);
  if (ms === null) throw badRequest(`${name} is not an ISO 8601 date or date-time (percent-encode a '+' offset as %2B)`);
  return ms;
}

export async function contractRoutes(app: FastifyInstance, deps: ContractDeps): Promise<void> {
  const { store, log, venues, orders, payments } = deps;
  const show = (o: PosOrder, venueId: string) => distortOrder(o, store.broken, venues.get(venueId).currency);

  app.addHook('onRequest', async (request, reply) => {
    const venueId = (request.params as { venueId?: string }).venueId ?? '';
    const entry: LoggedRequest = {
      method: request.method,
      path: request.url.split('?')[0],
      query: { ...(request.query as Record<string, string | string[]>) },
      headers: { ...request.headers },
      body: undefined,
      receivedAt: new Date(store.now()).toISOString(),
    };
    log.add(venueId, entry);
    logEntries.set(request, entry);
    // Deliberately broken mode 'no-auth': a POS that forgot to check the key.
    if (store.broken !== 'no-auth' && !bearerMatches(request.headers.authorization, store.apiKey)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send(UNAUTHORIZED_BODY);
    }
    // A valid key, but the restaurant withdrew the integration's access to this location.
    if (store.venue(venueId)?.accessRevoked) {
      return reply.code(403).send({ error: `access to venue ${venueId} was revoked by the restaurant` });
    }
    // Deferred payments whose time has come (also after a clock jump) are settled before any read.
    payments.settleDue();
  });
  app.addHook('preHandler', async (request, reply) => {
    const entry = logEntries.get(request);
    if (entry) entry.body = request.body;
    if (deps.oversized.answer(reply)) return reply;
    await deps.seatingFaults.before((request.params as { venueId?: string }).venueId ?? '');
  });
  app.addHook('onResponse', async (request, reply) => {
    const entry = logEntries.get(request);
    if (entry) entry.status = reply.statusCode;
  });

  app.get<{ Params: { venueId: string } }>('/venue/:venueId/tables', { schema: { params: VenueParams } }, async (request) => {
    const tables = venues.get(request.params.venueId).tables;
    // Deliberately broken mode: numeric-looking table ids answered as JSON numbers.
    if (store.broken === 'tables-numeric-ids') {
      return tables.map((t) => ({ id: /^\d+$/.test(t.id) ? Number(t.id) : t.id, name: t.name }));
    }
    return tables;
  });

  app.post<{ Params: { venueId: string }; Body: CreateOrderBody }>(
    '/venue/:venueId/orders',
    { schema: { params: VenueParams, body: CreateOrderBody } },
    async (request, reply) => {
      const { venueId } = request.params;
      const scripted = deps.seatingFaults.nextCreateAnswer(venueId);
      if (scripted === 'error503') return reply.code(503).send({ error: 'service unavailable' });
      if (scripted === 'error429') return reply.code(429).header('retry-after', '1').send({ error: 'too many requests' });
      const created = orders.createFromPartner(venueId, request.body, { echoId: deps.seatingFaults.echoes(venueId) });
      switch (scripted) {
        case 'empty': return reply.code(201).send();
        case 'not-json': return reply.code(200).type('text/plain').send('Created');
        case 'id-only': return reply.code(201).send({ id: created.id });
        case 'error503-after-create': return reply.code(503).send({ error: 'service unavailable' });
        case 'timeout-after-create':
          // Created, and never answered: the client times out. close() destroys the socket.
          deps.parked.add(request);
          request.raw.on('close', () => deps.parked.delete(request));
          return new Promise<never>(() => {});
        default:
      }
      // Deliberately broken mode: the create answer lacks checkNumber.
      const body = store.broken === 'create-missing-checknumber' ? { id: created.id } : created;
      return reply.code(201).send(body);
    },
  );

  app.get<{ Params: { venueId: string }; Querystring: { status?: 'open' | 'closed'; from?: string; until?: string } }>(
    '/venue/:venueId/orders',
    { schema: { params: VenueParams, querystring: OrdersQuery } },
    async (request) => {
      const { venueId } = request.params;
      const q = request.query;
      const from = queryBound(q.from, 'from');
      const until = queryBound(q.until, 'until');
      // Deliberately broken modes: a POS that ignores one of the list filters.
      const ignoreWindow = store.broken === 'ignore-window';
      const filter = {
        status: store.broken === 'ignore-status-filter' ? undefined : q.status,
        from: ignoreWindow ? undefined : from,
        until: ignoreWindow ? undefined : until,
      };
      return orders.list(venueId, filter).map((o) => show(o, venueId));
    },
  );

  app.get<{ Params: { venueId: string; orderId: string } }>(
    '/venue/:venueId/orders/:orderId',
    { schema: { params: OrderParams } },
    async (request) => {
      const { venueId, orderId } = request.params;
      const order = orders.get(venueId, orderId);
      // Deliberately broken mode: closed orders cannot be read back by id.
      if (store.broken === 'forget-closed' && order.status === 'closed') throw notFound(`order ${orderId}`);
      return show(order, venueId);
    },
  );

  app.post<{ Params: { venueId: string; orderId: string }; Body: PaymentForwardBody }>(
    '/venue/:venueId/orders/:orderId/payments',
    { schema: { params: OrderParams, body: PaymentForwardBody } },
    async (request, reply) => {
      const result = payments.forward(request.params.venueId, request.params.orderId, request.body);
      if (result.kind === 'answer') return reply.code(result.statusCode).send(result.body);
      // 'hang': never answer. close() destroys the socket, so the simulator still shuts down.
      deps.parked.add(request);
      request.raw.on('close', () => deps.parked.delete(request));
      return new Promise<never>(() => {});
    },
  );

  app.get<{ Params: { venueId: string; orderId: string; paymentId: string } }>(
    '/venue/:venueId/orders/:orderId/payments/:paymentId',
    { schema: { params: PaymentParams } },
    async (request, reply) => {
      const { venueId, orderId, paymentId } = request.params;
      const result = payments.status(venueId, orderId, paymentId);
      return reply.code(result.statusCode).send(result.body);
    },
  );
}
