import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FailureThrottle } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import type { ChannelAccessService } from './access.service.ts';
import {
  AvailabilityQuery, BcAvailability, BcBooking, BcPageQuery, BcVenueList, BookingParams, ChangeBookingBody, CreateBookingBody,
  IdempotencyHeaders, VenueParams,
} from './channel-api.schemas.ts';
import type { ChannelApiService } from './channel-api.service.ts';
import { channelOf, registerChannelAuth } from './channel-auth.ts';

// The channel API, /v1/bc (DESIGN 8.4a), for `tableside` channels with their API key.

const common = { tags: ['channels'], security: [{ channelKey: [] }] };
const BUSINESS = [...AUTH_ERRORS, 402];

export const bcRoutes: FastifyPluginAsyncTypebox<{ api: ChannelApiService; access: ChannelAccessService; limiter: FailureThrottle }> = async (
  app,
  { api, access, limiter },
) => {
  registerChannelAuth(app, { access, limiter, scheme: 'key', protocol: 'tableside' });

  app.get('/v1/bc/venues', {
    schema: {
      ...common, operationId: 'bcListVenues', summary: 'The venues linked to your channel',
      description: 'Channel API key (a `tableside` channel). The venues you may book, by name, as `{total, data}` pages (offset/limit; out of range is a 400).',
      querystring: BcPageQuery, response: { 200: BcVenueList, ...errorResponses('platform', AUTH_ERRORS) },
    },
  }, async (request) => api.venues(channelOf(request), { offset: request.query.offset ?? 0, limit: request.query.limit ?? 10 }));

  app.get('/v1/bc/venues/:venueId/availability', {
    schema: {
      ...common, operationId: 'bcAvailability',
      summary: "A venue's bookable slots for a date and party size (live from the reservation system, else its latest snapshot)",
      description:
        'Channel API key (a `tableside` channel). Asks the venue\'s reservation system (1 s), else answers its latest availability snapshot (`source`); slots ' +
        "starting sooner than the company's minAdvanceBooking are left out, deposits are decimals in the venue's currency (a venue without a " +
        'currency cannot take a deposit: its slots that need one are left out). 403 when the venue is ' +
        'not linked to your channel; 402 `rms_not_connected` when its reservation system has not connected, `rms_unavailable` when it does not ' +
        'answer and no snapshot holds that date and party size, or its own refusal code (in error.details.code).',
      params: VenueParams, querystring: AvailabilityQuery, response: { 200: BcAvailability, ...errorResponses('platform', BUSINESS) },
    },
  }, async (request, reply) => api.availability(channelOf(request), request.params.venueId, request.query.date, request.query.partySize, Date.now() - reply.elapsedTime));

  app.post('/v1/bc/bookings', {
    config: { responseHeaders: { 200: ['X-Idempotent-Replay'] } },
    schema: {
      ...common, operationId: 'bcCreateBooking', summary: 'Book a slot (Idempotency-Key required)',
      description:
        'Channel API key (a `tableside` channel). The same Idempotency-Key and body answer the same booking and book nothing more; the same key with another ' +
        'body is a 409. A slot starting sooner than the company\'s minAdvanceBooking is 402 `outside_booking_window` and nothing reaches the ' +
        'reservation system. Business failures are 402 with the slug in error.details.code (slot_unavailable, party_size_out_of_range, ' +
        'outside_booking_window, payment_required, payment_failed, rms_not_connected, rms_unavailable, …); after `rms_unavailable` retry with the ' +
        'same key (the create is sent again under it, for up to 15 minutes, and cannot book twice; details.bookingId names it). When the ' +
        'reservation system has not settled it within 15 minutes the booking is given up: the same key answers `rms_unavailable` with ' +
        'details.final true from then on, and a booking of it found at the reservation system is cancelled (book again with a new key). ' +
        'A repeat of a key answers what the first request got even once the venue is unlinked, with the header X-Idempotent-Replay: true (as /v1/pat payments). 403 when the venue is not linked to your ' +
        'channel; 422 `no_currency` (in error.details.code) at a venue without a currency for a paymentToken or a slot that needs a deposit (it cannot take one).',
      headers: IdempotencyHeaders, body: CreateBookingBody, response: { 200: BcBooking, ...errorResponses('platform', [...BUSINESS, 409, 413, 415, 422]) },
    },
  }, async (request, reply) => {
    const { booking, replay } = await api.create(channelOf(request), request.headers['idempotency-key'], request.body);
    if (replay) reply.header('x-idempotent-replay', 'true');
    return booking;
  });

  app.get('/v1/bc/bookings/:bookingId', {
    schema: {
      ...common, operationId: 'bcGetBooking', summary: "One of your channel's bookings, as Tableside holds it (no call to the reservation system)",
      description: 'Channel API key (a `tableside` channel). Kept current by the reservation system\'s update notices. 403 for a booking made through another channel; 404 when unknown.',
      params: BookingParams, response: { 200: BcBooking, ...errorResponses('platform', [...AUTH_ERRORS, 404]) },
    },
  }, async (request) => api.get(channelOf(request), request.params.bookingId));

  app.put('/v1/bc/bookings/:bookingId', {
    schema: {
      ...common, operationId: 'bcChangeBooking', summary: 'Change the party size or the start of a booking',
      description:
        'Channel API key (a `tableside` channel). Fields given are changed through the reservation system, others kept. A new start sooner than the company\'s ' +
        'minAdvanceBooking is 402 `outside_booking_window`; a cancelled booking is 402 `booking_not_modifiable`; other refusals are 402 with the ' +
        "reservation system's code in error.details.code. 403 for another channel's booking; 404 when unknown.",
      params: BookingParams, body: ChangeBookingBody, response: { 200: BcBooking, ...errorResponses('platform', [...BUSINESS, 404, 409]) },
    },
  }, async (request) => api.change(channelOf(request), request.params.bookingId, request.body));

  app.put('/v1/bc/bookings/:bookingId/cancel', {
    schema: {
      ...common, operationId: 'bcCancelBooking', summary: 'Cancel a booking (a cancelled one answers 402 booking_already_cancelled)',
      description:
        'Channel API key (a `tableside` channel). A booking starting sooner than the company\'s minAdvanceBookingCancelling is 402 `outside_cancellation_window` ' +
        "and nothing reaches the reservation system. A cancelled booking, or one another request is cancelling at the same time, is 402 " +
        "`booking_already_cancelled` (one cancel succeeds, never two). 403 for another channel's booking; 404 when unknown.",
      params: BookingParams, response: { 200: BcBooking, ...errorResponses('platform', [...BUSINESS, 404, 409]) },
    },
  }, async (request) => api.cancel(channelOf(request), request.params.bookingId));
};
