import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FailureThrottle } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import type { ChannelAccessService } from './access.service.ts';
import {
  AvailabilityQuery, BcAvailability, BcBooking, BcPageQuery, BcVenueList, BookingParams, ChangeBookingBody, CreateBookingBody,
  IdempotencyHeaders, VenueParams,
} from './bc.schemas.ts';
import type { ChannelApiService } from './bc.service.ts';
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
      querystring: BcPageQuery, response: { 200: BcVenueList, ...errorResponses('platform', AUTH_ERRORS) },
    },
  }, async (request) => api.venues(channelOf(request), { offset: request.query.offset ?? 0, limit: request.query.limit ?? 10 }));

  app.get('/v1/bc/venues/:venueId/availability', {
    schema: {
      ...common, operationId: 'bcAvailability',
      summary: "A venue's bookable slots for a date and party size (live from the reservation system, else its latest snapshot)",
      params: VenueParams, querystring: AvailabilityQuery, response: { 200: BcAvailability, ...errorResponses('platform', BUSINESS) },
    },
  }, async (request) => api.availability(channelOf(request), request.params.venueId, request.query.date, request.query.partySize));

  app.post('/v1/bc/bookings', {
    schema: {
      ...common, operationId: 'bcCreateBooking', summary: 'Book a slot (Idempotency-Key required)',
      headers: IdempotencyHeaders, body: CreateBookingBody, response: { 200: BcBooking, ...errorResponses('platform', [...BUSINESS, 409, 413, 415]) },
    },
  }, async (request) => api.create(channelOf(request), request.headers['idempotency-key'], request.body));

  app.get('/v1/bc/bookings/:bookingId', {
    schema: {
      ...common, operationId: 'bcGetBooking', summary: "One of your channel's bookings, as Tableside holds it (no call to the reservation system)",
      params: BookingParams, response: { 200: BcBooking, ...errorResponses('platform', [...AUTH_ERRORS, 404]) },
    },
  }, async (request) => api.get(channelOf(request), request.params.bookingId));

  app.put('/v1/bc/bookings/:bookingId', {
    schema: {
      ...common, operationId: 'bcChangeBooking', summary: 'Change the party size or the start of a booking',
      params: BookingParams, body: ChangeBookingBody, response: { 200: BcBooking, ...errorResponses('platform', [...BUSINESS, 404, 409]) },
    },
  }, async (request) => api.change(channelOf(request), request.params.bookingId, request.body));

  app.put('/v1/bc/bookings/:bookingId/cancel', {
    schema: {
      ...common, operationId: 'bcCancelBooking', summary: 'Cancel a booking (a cancelled one answers 402 booking_already_cancelled)',
      params: BookingParams, response: { 200: BcBooking, ...errorResponses('platform', [...BUSINESS, 404, 409]) },
    },
  }, async (request) => api.cancel(channelOf(request), request.params.bookingId));
};
