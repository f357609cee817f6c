// The booking-services contract (DESIGN 8.2): the routes Tableside calls. Every request is logged
// (before auth, so a wrong key is visible in the log), must carry the Bearer key (/healthcheck
// too: BKG-36), and then meets the failure knobs before the RMS answers.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerMatches } from '../../pos-simulator/src/auth.ts';
import type { OversizedAnswers } from '../../pos-simulator/src/oversized.ts';
import type { LoggedRequest, RequestLog } from '../../pos-simulator/src/request-log.ts';
import { distortBooking } from './broken.ts';
import type { BookingsService } from './bookings.service.ts';
import {
  AvailabilityQuery, BookingParams, CancelBookingBody, CreateBookingBody, SearchQuery, UpdateBookingBody,
} from './contract.schemas.ts';
import { badRequest, refused } from './errors.ts';
import { isBusiness, type Failures } from './failures.ts';
import type { RmsStore } from './store.ts';
import type { Operation } from './types.ts';
import { addDays } from './zoned.fns.ts';

/** A contract call as the simulator received it (the control API's request log). */
export interface RmsLoggedRequest extends LoggedRequest {
  operation: Operation;
  /** The venue the call concerns (query, body, or the booking's venue); null when unknown. */
  venueId: string | null;
  /** The lagMs knob holds this call's answer, already built (what it read is fixed): when it began waiting. */
  laggingSince?: string;
}

export const LOG_KEY = 'contract';

export interface ContractDeps {
  store: RmsStore;
  log: RequestLog;
  bookings: BookingsService;
  failures: Failures;
  /** Requests parked by the 'hang' knob, destroyed on close. */
  parked: Set<FastifyRequest>;
  /** Resolves after ms, or at once when the simulator closes. */
  sleep(ms: number): Promise<void>;
  /** The oversized-answer knob (DESIGN 8.8e): while set, every authorised call gets a huge 200. */
  oversized: OversizedAnswers;
}

/** The cancel body is optional: no body at all reads as `{}`. */
export async function emptyBodyIsEmptyObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

const entries = new WeakMap<FastifyRequest, RmsLoggedRequest>();
/** Requests the lagMs knob answers late: their answer is computed on arrival, sent this many ms later. */
const lagged = new WeakMap<FastifyRequest, number>();
/** Requests the 'act-then-hang' knob holds once they have acted. */
const actThenHang = new WeakSet<FastifyRequest>();

function operationOf(method: string, route: string): Operation {
  if (route === '/healthcheck') return 'healthcheck';
  if (route === '/availability') return 'availability';
  if (route === '/bookings/search') return 'search';
  if (route === '/booking') return 'create';
  if (route.endsWith('/cancel')) return 'cancel';
  return method === 'PUT' ? 'update' : 'read';
}

export async function contractRoutes(app: FastifyInstance, deps: ContractDeps): Promise<void> {
  const { store, log, bookings, failures } = deps;
  const broken = (mode: string) => store.broken === mode;

  app.addHook('onRequest', async (request, reply) => {
    const operation = operationOf(request.method, request.routeOptions.url ?? '');
    const query = { ...(request.query as Record<string, string>) };
    const bookingId = (request.params as { id?: string }).id;
    const entry: RmsLoggedRequest = {
      operation,
      venueId: query.venueId ?? (bookingId !== undefined ? store.booking(bookingId)?.venueId ?? null : null),
      method: request.method,
      path: request.url.split('?')[0],
      query,
      headers: { ...request.headers },
      body: undefined,
      receivedAt: new Date(store.now()).toISOString(),
    };
    log.add(LOG_KEY, entry);
    entries.set(request, entry);
    // Deliberately broken mode: /healthcheck forgot to check the key.
    if (operation === 'healthcheck' && broken('no-auth-healthcheck')) return;
    if (!bearerMatches(request.headers.authorization, store.apiKey)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({
        error: { code: 'unauthorized', message: 'missing or invalid Authorization: Bearer <apiKey>' },
      });
    }
  });
  app.addHook('preHandler', async (request, reply) => {
    const entry = entries.get(request);
    if (!entry) return;
    entry.body = request.body;
    const bodyVenue = (request.body as { venueId?: unknown } | undefined)?.venueId;
    if (entry.venueId === null && typeof bodyVenue === 'string') entry.venueId = bodyVenue;
    if (deps.oversized.answer(reply)) return reply;
  });
  // The lagMs knob: the handler has read (or acted) and built its answer; it reaches the caller late.
  app.addHook('onSend', async (request) => {
    const ms = lagged.get(request);
    if (!ms) return;
    const entry = entries.get(request);
    if (entry) entry.laggingSince = new Date(store.now()).toISOString();
    await deps.sleep(ms);
  });
  app.addHook('onResponse', async (request, reply) => {
    const entry = entries.get(request);
    if (entry) entry.status = reply.statusCode;
  });

  /** The failure knobs for this call: true when they answered it (5xx, garbage) or never will (hang). */
  async function knobs(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const entry = entries.get(request);
    if (!entry) return false;
    const k = failures.take(entry.operation, entry.venueId);
    if (!k) return false;
    if (k.slowMs > 0) await deps.sleep(k.slowMs);
    if (k.lagMs > 0) lagged.set(request, k.lagMs);
    if (k.mode === 'error5xx') {
      await reply.code(503).send({ error: { code: 'unavailable', message: 'simulated RMS failure (failure knob error5xx)' } });
      return true;
    }
    if (k.mode === 'garbage') {
      await reply.code(200).header('content-type', 'application/json').send('{"id": <html>Internal proxy error');
      return true;
    }
    if (k.mode === 'status') {
      const status = k.status ?? 503;
      if (status === 401) reply.header('www-authenticate', 'Bearer');
      if (status === 429) reply.header('retry-after', '1');
      await reply.code(status).send({ error: { code: `http_${status}`, message: `simulated RMS answer ${status} (failure knob status)` } });
      return true;
    }
    if (k.mode === 'hang') await park(request);
    if (k.mode === 'act-then-hang') actThenHang.add(request);
    if (k.force402 !== null && isBusiness(entry.operation)) throw refused(k.force402, 'forced by the simulator (failure knob force402)');
    return false;
  }

  /** Never answer; close() destroys the socket, so the simulator still shuts down. */
  async function park(request: FastifyRequest): Promise<never> {
    deps.parked.add(request);
    request.raw.on('close', () => deps.parked.delete(request));
    return new Promise<never>(() => {});
  }

  /** After acting: the 'act-then-hang' knob loses the answer (the RMS did it; the caller never hears). */
  async function answered<T>(request: FastifyRequest, answer: T): Promise<T> {
    if (actThenHang.has(request)) await park(request);
    return answer;
  }

  const view = (id: string) => distortBooking(bookings.view(id), store.broken);

  app.get('/healthcheck', async (request, reply) => {
    if (await knobs(request, reply)) return reply;
    return { status: 'ok' };
  });

  app.get<{ Querystring: AvailabilityQuery }>('/availability', { schema: { querystring: AvailabilityQuery } }, async (request, reply) => {
    if (await knobs(request, reply)) return reply;
    const answer = bookings.availabilityOf(request.query);
    if (broken('slots-outside-date')) {
      // Deliberately broken: the next day's first seatings are listed under this date.
      const next = bookings.availabilityOf({ ...request.query, date: addDays(request.query.date, 1) });
      answer.slotData = [...answer.slotData, ...next.slotData.slice(0, 2)];
    }
    if (broken('slot-fields-wrong-types')) {
      return { ...answer, slotData: answer.slotData.map((s) => ({ ...s, totalSpots: String(s.totalSpots), openSpots: String(s.openSpots), deposit: String(s.deposit) })) };
    }
    return answer;
  });

  app.post<{ Body: CreateBookingBody }>('/booking', { schema: { body: CreateBookingBody } }, async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw badRequest('the Idempotency-Key header is required on POST /booking (1-255 characters)', { 'Idempotency-Key': ['required'] });
    }
    if (await knobs(request, reply)) return reply;
    const answer = await answered(request, bookings.create(key, request.body));
    if (answer.replayed) reply.header('idempotent-replayed', 'true');
    return reply.code(answer.statusCode).send(answer.body);
  });

  app.get<{ Params: { id: string } }>('/booking/:id', { schema: { params: BookingParams } }, async (request, reply) => {
    if (await knobs(request, reply)) return reply;
    return view(request.params.id);
  });

  app.put<{ Params: { id: string }; Body: UpdateBookingBody }>(
    '/booking/:id', { schema: { params: BookingParams, body: UpdateBookingBody } },
    async (request, reply) => {
      if (await knobs(request, reply)) return reply;
      return answered(request, bookings.update(request.params.id, request.body));
    },
  );

  app.put<{ Params: { id: string }; Body: CancelBookingBody | undefined }>(
    '/booking/:id/cancel', { schema: { params: BookingParams, body: CancelBookingBody }, preValidation: emptyBodyIsEmptyObject },
    async (request, reply) => {
      if (await knobs(request, reply)) return reply;
      const answer = await answered(request, bookings.cancel(request.params.id, request.body ?? {}));
      return broken('cancelled-spelling') ? { ...answer, status: 'cancelled' } : answer;
    },
  );

  app.get<{ Querystring: SearchQuery }>('/bookings/search', { schema: { querystring: SearchQuery } }, async (request, reply) => {
    if (await knobs(request, reply)) return reply;
    const answer = bookings.search(request.query);
    return { ...answer, data: answer.data.map((b) => distortBooking(b, store.broken)) };
  });
}

