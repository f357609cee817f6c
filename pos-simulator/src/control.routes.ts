// The control API: what staff and the back office would do on a real POS (venues, tables, menu,
// walk-in orders, closing and voiding), plus test levers (behaviour knobs, clock, request log,
// broken modes, reset). Same Bearer key as the contract. Documented in docs/pos-partner-contract.md.

import type { FastifyInstance } from 'fastify';
import { UNAUTHORIZED_BODY, bearerMatches } from './auth.ts';
import type { BrokenMode } from './broken.ts';
import {
  AddItemsBody, Behaviour, BrokenBody, ClockBody, CloseBody, Menu, TableNameBody, Tables, VenueBody, VoidBody, WalkInBody,
  type AddItemsInput, type ClockInput, type VenueInput, type WalkInInput,
} from './control.schemas.ts';
import { badRequest, conflict } from './errors.ts';
import type { OrdersService } from './orders.service.ts';
import { oversizedRoutes, type OversizedAnswers } from './oversized.ts';
import type { PaymentsService } from './payments.service.ts';
import type { RequestLog } from './request-log.ts';
import { seatingFaultRoutes, type SeatingFaultKnobs } from './seating-faults.ts';
import type { SimStore } from './store.ts';
import { parseIsoInstant, type SimClock } from './time.ts';
import type { TableState, VenueBehaviour } from './types.ts';
import type { MenuInput, VenuesService } from './venues.service.ts';

export interface ControlDeps {
  store: SimStore;
  log: RequestLog;
  venues: VenuesService;
  orders: OrdersService;
  payments: PaymentsService;
  oversized: OversizedAnswers;
  seatingFaults: SeatingFaultKnobs;
}

type V = { venueId: string };
type VO = { venueId: string; orderId: string };

export async function controlRoutes(app: FastifyInstance, deps: ControlDeps): Promise<void> {
  const { store, log, venues, orders, payments } = deps;

  app.addHook('onRequest', async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, store.apiKey)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send(UNAUTHORIZED_BODY);
    }
    payments.settleDue();
  });

  // ---- venues, tables, menu, behaviour ----
  app.get('/_control/venues', async () => venues.list());
  app.post<{ Body: VenueInput }>('/_control/venues', { schema: { body: VenueBody } }, async (request, reply) => {
    if (request.body.id !== undefined && store.venue(request.body.id)) throw conflict(`venue ${request.body.id} exists`);
    return reply.code(201).send(venues.upsert(request.body));
  });
  app.put<{ Params: V; Body: VenueInput }>('/_control/venues/:venueId', { schema: { body: VenueBody } }, async (request) => {
    if (request.body.id !== undefined && request.body.id !== request.params.venueId) throw badRequest('body id differs from the path');
    return venues.upsert({ ...request.body, id: request.params.venueId });
  });
  app.get<{ Params: V }>('/_control/venues/:venueId', async (request) => venues.view(request.params.venueId));
  app.put<{ Params: V; Body: TableState[] }>('/_control/venues/:venueId/tables', { schema: { body: Tables } }, async (request) =>
    venues.setTables(request.params.venueId, request.body));
  app.put<{ Params: V & { tableId: string }; Body: { name: string } }>(
    '/_control/venues/:venueId/tables/:tableId', { schema: { body: TableNameBody } },
    async (request) => venues.putTable(request.params.venueId, request.params.tableId, request.body.name),
  );
  app.delete<{ Params: V & { tableId: string } }>('/_control/venues/:venueId/tables/:tableId', async (request, reply) => {
    venues.removeTable(request.params.venueId, request.params.tableId);
    return reply.code(204).send();
  });
  app.put<{ Params: V; Body: MenuInput[] }>('/_control/venues/:venueId/menu', { schema: { body: Menu } }, async (request) =>
    venues.setMenu(request.params.venueId, request.body));
  app.put<{ Params: V; Body: VenueBehaviour }>('/_control/venues/:venueId/behaviour', { schema: { body: Behaviour } }, async (request) =>
    venues.setBehaviour(request.params.venueId, request.body));

  // ---- orders as staff handle them ----
  app.post<{ Params: V; Body: WalkInInput }>('/_control/venues/:venueId/orders', { schema: { body: WalkInBody } }, async (request, reply) =>
    reply.code(201).send(orders.openWalkIn(request.params.venueId, request.body)));
  app.get<{ Params: VO }>('/_control/venues/:venueId/orders/:orderId', async (request) =>
    orders.get(request.params.venueId, request.params.orderId));
  app.post<{ Params: VO; Body: AddItemsInput }>('/_control/venues/:venueId/orders/:orderId/items', { schema: { body: AddItemsBody } }, async (request) =>
    orders.addItems(request.params.venueId, request.params.orderId, request.body));
  app.post<{ Params: VO; Body: { paymentMethod?: string } }>('/_control/venues/:venueId/orders/:orderId/close', { schema: { body: CloseBody } }, async (request) =>
    orders.close(request.params.venueId, request.params.orderId, request.body ?? {}));
  app.post<{ Params: VO; Body: { checkNumber?: string } }>('/_control/venues/:venueId/orders/:orderId/void', { schema: { body: VoidBody } }, async (request) =>
    orders.void(request.params.venueId, request.params.orderId, request.body ?? {}));

  // ---- request log ----
  app.get<{ Params: V }>('/_control/venues/:venueId/requests', async (request) => log.list(request.params.venueId));
  app.delete<{ Params: V }>('/_control/venues/:venueId/requests', async (request, reply) => {
    log.clear(request.params.venueId);
    return reply.code(204).send();
  });

  // ---- clock, broken modes, reset ----
  clockRoutes(app, store.clock, () => {
    store.save();
    payments.settleDue();
  });
  oversizedRoutes(app, deps.oversized);
  seatingFaultRoutes(app, deps.seatingFaults);
  app.get('/_control/broken', async () => ({ mode: store.broken }));
  app.put<{ Body: { mode: BrokenMode | null } }>('/_control/broken', { schema: { body: BrokenBody } }, async (request) => {
    store.setBroken(request.body.mode);
    return { mode: store.broken };
  });
  app.post('/_control/reset', async (_request, reply) => {
    payments.stop();
    store.reset();
    log.clear();
    deps.oversized.set(null);
    deps.seatingFaults.clear();
    return reply.code(204).send();
  });
}

/** GET/POST /_control/clock on a simulator clock; `changed` runs after every move (shared with the RMS simulator). */
export function clockRoutes(app: FastifyInstance, clock: SimClock, changed: () => void): void {
  const clockView = () => ({ now: new Date(clock.now()).toISOString(), frozen: clock.snapshot().frozenAt !== null });
  app.get('/_control/clock', async () => clockView());
  app.post<{ Body: ClockInput }>('/_control/clock', { schema: { body: ClockBody } }, async (request) => {
    const { set, advanceMs, frozen } = request.body;
    // Stop first, so `{ set, frozen: true }` stops exactly at `set`.
    if (frozen === true) clock.freeze(true);
    if (set !== undefined) {
      const ms = parseIsoInstant(set);
      if (ms === null) throw badRequest('set is not an ISO 8601 instant');
      clock.set(ms);
    }
    if (advanceMs !== undefined) clock.advance(advanceMs);
    if (frozen === false) clock.freeze(false);
    changed();
    return clockView();
  });
}
