// The two Maps Booking API methods Tableside calls (DESIGN 8.7b): booking notifications and
// availability replace. Each call is logged before anything else (so a refused one shows what it
// carried), meets its scripted answer if one is set, then needs a live Bearer token issued to a
// service account of the partner in the URL, then a body api.fns.ts accepts.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkAvailabilityReplace, checkBookingNotification, type NotifiedBooking } from './api.fns.ts';
import { CALLS, entryOf, loggedHeaders, recordAnswers, track, type ApiCall } from './calls.ts';
import { GoogleApiError } from './errors.ts';
import { answerScripted } from './respond.ts';
import type { ServerDeps } from './server.types.ts';

export const NOTIFY_ROUTE = '/v1alpha/notification/partners/:partnerId/bookings/:bookingId';
// `::` is a literal colon for Fastify's router: the method's name is `availability:replace`.
export const REPLACE_ROUTE = '/v1alpha/inventory/partners/:partnerId/availability::replace';

type Params = { partnerId: string; bookingId?: string };
type MaskQuery = { updateMask?: string; update_mask?: string };

export async function apiRoutes(app: FastifyInstance, deps: ServerDeps): Promise<void> {
  const { tokens, log, clock, script } = deps;
  recordAnswers(app);

  app.addHook('onRequest', async (request) => {
    const params = request.params as Params;
    const check = tokens.check(request.headers.authorization, clock.now());
    const entry: ApiCall = {
      operation: request.routeOptions.url === NOTIFY_ROUTE ? 'notifyBooking' : 'replaceAvailability',
      method: request.method,
      path: request.url.split('?')[0],
      query: { ...(request.query as Record<string, string>) },
      headers: loggedHeaders(request),
      body: undefined,
      partnerId: params.partnerId,
      bookingId: params.bookingId ?? null,
      serviceAccount: check.token?.clientEmail ?? null,
      receivedAt: new Date(clock.now()).toISOString(),
      answer: null,
    };
    log.add(CALLS, entry);
    track(request, entry);
  });
  app.addHook('preHandler', async (request) => {
    const entry = entryOf(request);
    if (entry) entry.body = request.body;
  });

  /** A live token of this partner's service account, as Google requires of every call. */
  function authorize(request: FastifyRequest, partnerId: string): void {
    const check = tokens.check(request.headers.authorization, clock.now());
    if (!check.ok) throw new GoogleApiError(401);
    if (check.token.partnerId !== partnerId) throw new GoogleApiError(403, `The caller does not have permission: the service account is not linked to partner ${partnerId}`);
  }

  app.patch<{ Params: Required<Params>; Querystring: MaskQuery }>(NOTIFY_ROUTE, async (request, reply) => {
    if (await answerScripted(script.take('notifyBooking'), request, reply, deps)) return reply;
    const { partnerId, bookingId } = request.params;
    authorize(request, partnerId);
    const { booking, mask } = checkBookingNotification(partnerId, bookingId, request.query.updateMask ?? request.query.update_mask, request.body);
    return remember(deps.bookings, booking, mask);
  });

  app.post<{ Params: Params }>(REPLACE_ROUTE, async (request, reply) => {
    if (await answerScripted(script.take('replaceAvailability'), request, reply, deps)) return reply;
    authorize(request, request.params.partnerId);
    return { extendedServiceAvailability: checkAvailabilityReplace(request.body) };
  });
}

/** Bookings remembered at most; the least recently notified are forgotten first (a long sandbox run stays bounded). */
const MAX_BOOKINGS = 10_000;

/** What Google holds for the booking after the update: the masked fields replaced. */
function remember(bookings: Map<string, NotifiedBooking>, update: NotifiedBooking, mask: string[]): NotifiedBooking {
  const held: NotifiedBooking = { ...(bookings.get(update.name) ?? {}), name: update.name, merchantId: update.merchantId, serviceId: update.serviceId };
  for (const field of mask as Array<keyof NotifiedBooking>) (held as unknown as Record<string, unknown>)[field] = update[field];
  bookings.delete(update.name);
  bookings.set(update.name, held);
  if (bookings.size > MAX_BOOKINGS) bookings.delete(bookings.keys().next().value!);
  return held;
}
