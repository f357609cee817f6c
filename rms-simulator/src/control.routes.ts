// The control API: what staff and the back office do on a real RMS (venues and their engine
// settings, confirming, seating, …), plus test levers (failure knobs, clock, request log, broken
// modes, where and what to send Tableside, reset). Same Bearer key as the contract. Documented in
// docs/rms-partner-contract.md ("Control API").

import type { FastifyInstance } from 'fastify';
import { bearerMatches } from '../../pos-simulator/src/auth.ts';
import { clockRoutes } from '../../pos-simulator/src/control.routes.ts';
import { oversizedRoutes, type OversizedAnswers } from '../../pos-simulator/src/oversized.ts';
import type { RequestLog } from '../../pos-simulator/src/request-log.ts';
import { STAFF_ACTIONS, type StaffAction } from './bookings.fns.ts';
import type { BookingsService } from './bookings.service.ts';
import type { BrokenMode } from './broken.ts';
import { LOG_KEY, emptyBodyIsEmptyObject, type RmsLoggedRequest } from './contract.routes.ts';
import {
  BrokenBody, FailuresBody, FeedPushBody, NotifyBody, SeatBody, TargetBody, VenueBody,
  type FailuresInput, type FeedPushInput, type NotifyInput, type SeatInput, type TargetInput, type VenueInput,
} from './control.schemas.ts';
import { RmsError, notFound } from './errors.ts';
import type { Failures } from './failures.ts';
import type { Outbound } from './outbound.ts';
import type { RmsStore } from './store.ts';
import type { VenuesService } from './venues.service.ts';

export interface ControlDeps {
  store: RmsStore;
  log: RequestLog;
  venues: VenuesService;
  bookings: BookingsService;
  failures: Failures;
  outbound: Outbound;
  oversized: OversizedAnswers;
}

type V = { venueId: string };
type B = { id: string };

export async function controlRoutes(app: FastifyInstance, deps: ControlDeps): Promise<void> {
  const { store, log, venues, bookings, failures, outbound } = deps;

  app.addHook('onRequest', async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, store.apiKey)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: { code: 'unauthorized', message: 'missing or invalid Authorization: Bearer <apiKey>' } });
    }
  });

  // ---- venues and their bookings ----
  app.get('/_control/venues', async () => venues.list());
  app.post<{ Body: VenueInput }>('/_control/venues', { schema: { body: VenueBody } }, async (request, reply) =>
    reply.code(201).send(venues.create(request.body)));
  app.get<{ Params: V }>('/_control/venues/:venueId', async (request) => venues.get(request.params.venueId));
  app.put<{ Params: V; Body: VenueInput }>('/_control/venues/:venueId', { schema: { body: VenueBody } }, async (request) =>
    venues.put(request.params.venueId, request.body));
  app.get<{ Params: V }>('/_control/venues/:venueId/bookings', async (request) => bookings.list(request.params.venueId));
  app.put<{ Params: V; Body: FailuresInput }>('/_control/venues/:venueId/failures', { schema: { body: FailuresBody } }, async (request) => {
    venues.get(request.params.venueId);
    return { knobs: failures.setVenue(request.params.venueId, request.body) };
  });

  // ---- staff actions ----
  app.get<{ Params: B }>('/_control/bookings/:id', async (request) => bookings.view(request.params.id));
  app.post<{ Params: B; Body: SeatInput | undefined }>('/_control/bookings/:id/seat', { schema: { body: SeatBody }, preValidation: emptyBodyIsEmptyObject }, async (request) =>
    bookings.staff(request.params.id, 'seat', request.body ?? {}));
  for (const action of STAFF_ACTIONS.filter((a) => a !== 'seat')) {
    app.post<{ Params: B }>(`/_control/bookings/:id/${action}`, async (request) => bookings.staff(request.params.id, action as StaffAction));
  }
  app.post<{ Params: B }>('/_control/bookings/:id/deposit-paid', async (request) => bookings.markDepositPaid(request.params.id));

  // ---- failure knobs ----
  app.get('/_control/failures', async () => failures.view());
  app.put<{ Body: FailuresInput }>('/_control/failures', { schema: { body: FailuresBody } }, async (request) =>
    ({ knobs: failures.setGlobal(request.body) }));

  // ---- request log ----
  app.get<{ Querystring: { venueId?: string; operation?: string } }>('/_control/requests', async (request) => {
    const { venueId, operation } = request.query;
    return (log.list(LOG_KEY) as RmsLoggedRequest[])
      .filter((e) => (venueId === undefined || e.venueId === venueId) && (operation === undefined || e.operation === operation));
  });
  app.delete('/_control/requests', async (_request, reply) => {
    log.clear();
    return reply.code(204).send();
  });

  // ---- what is sent to Tableside ----
  const targetView = () => (store.target ? { tablesideUrl: store.target.tablesideUrl, apiKeySet: true, caSet: store.target.ca !== null } : null);
  app.get('/_control/tableside', async () => ({ target: targetView() }));
  app.put<{ Body: TargetInput }>('/_control/tableside', { schema: { body: TargetBody } }, async (request) => {
    store.setTarget({ tablesideUrl: request.body.tablesideUrl, apiKey: request.body.apiKey, ca: request.body.ca ?? null });
    return { target: targetView() };
  });
  app.delete('/_control/tableside', async (_request, reply) => {
    store.setTarget(null);
    return reply.code(204).send();
  });
  app.get('/_control/outbound', async () => outbound.log());
  app.delete('/_control/outbound', async (_request, reply) => {
    outbound.clear();
    return reply.code(204).send();
  });
  app.post<{ Body: FeedPushInput }>('/_control/feed/push', { schema: { body: FeedPushBody } }, async (request) => {
    if (!store.target) throw new RmsError(409, 'no_target', 'no Tableside target is configured (PUT /_control/tableside)');
    for (const id of request.body.venueIds ?? []) venues.get(id);
    return outbound.pushFeed(request.body);
  });
  app.post<{ Body: NotifyInput }>('/_control/notify', { schema: { body: NotifyBody } }, async (request) => {
    if (!store.target) throw new RmsError(409, 'no_target', 'no Tableside target is configured (PUT /_control/tableside)');
    const booking = bookings.bookingOf(request.body.bookingId);
    const entry = outbound.notify(booking, request.body.action ?? (booking.status === 'canceled' ? 'cancel' : 'update'));
    if (!entry) throw notFound('Tableside target');
    return { webhookId: entry.id, body: entry.body };
  });

  // ---- clock, broken modes, reset ----
  clockRoutes(app, store.clock, () => store.save());
  oversizedRoutes(app, deps.oversized);
  app.get('/_control/broken', async () => ({ mode: store.broken }));
  app.put<{ Body: { mode: BrokenMode | null } }>('/_control/broken', { schema: { body: BrokenBody } }, async (request) => {
    store.setBroken(request.body.mode);
    return { mode: store.broken };
  });
  app.post('/_control/reset', async (_request, reply) => {
    store.reset();
    log.clear();
    outbound.clear();
    deps.oversized.set(null);
    return reply.code(204).send();
  });
}
