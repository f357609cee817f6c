import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FailureThrottle } from '../server/auth.ts';
import { errorResponses } from '../server/schemas.ts';
import type { ChannelAccessService } from './access.service.ts';
import { channelOf, registerChannelAuth } from './channel-auth.ts';
import {
  BatchAvailabilityLookupRequest, BatchAvailabilityLookupResponse, BookingIdRequest, BookingResponse, CreateBookingRequest, Empty,
  GetBookingStatusResponse, ListBookingsRequest, ListBookingsResponse, UpdateBookingRequest,
} from './google-booking-server.schemas.ts';
import type { V3Service } from './google-booking-server.service.ts';

// Google's Booking Server API v3 under /v3/ (DESIGN 8.4b), for `google-v3` channels with HTTP Basic.

const common = { tags: ['booking-server-v3'], security: [{ channelBasic: [] }] };
const V3_ERRORS = [400, 401, 403, 404, 413, 415, 429];

export const v3Routes: FastifyPluginAsyncTypebox<{ v3: V3Service; access: ChannelAccessService; limiter: FailureThrottle }> = async (
  app,
  { v3, access, limiter },
) => {
  registerChannelAuth(app, { access, limiter, scheme: 'basic', protocol: 'google-v3' });
  const errors = errorResponses('platform', V3_ERRORS);

  app.get('/v3/HealthCheck', {
    schema: { ...common, operationId: 'v3HealthCheck', summary: 'Health check (200 when the server and your credentials work)',
      description: 'HTTP Basic credentials of a google-v3 channel. Answers {} when the service and the credentials work; 401 otherwise.', response: { 200: Empty, ...errors } },
  }, async () => ({}));

  // The 1.5 s promise counts from the request's arrival: authentication and parsing come out of the budget.
  app.post('/v3/BatchAvailabilityLookup', {
    schema: {
      ...common, operationId: 'v3BatchAvailabilityLookup', summary: 'Whether each slot time is available (answers within 1.5 s)',
      description:
        'HTTP Basic credentials of a google-v3 channel. `merchant_id` is the content venue id; a venue not linked to the channel is a 403. Each slot time is echoed with ' +
        'its int64 fields as strings and `available`: a slot of the reservation system (live within 1 s, else its snapshot) with a free spot, at least ' +
        "the company's minAdvanceBooking ahead, for service_id \"dining\" and resource_ids.party_size (default 2). Slot times whose lookup does not end " +
        'within the budget are unavailable.',
      body: BatchAvailabilityLookupRequest, response: { 200: BatchAvailabilityLookupResponse, ...errors },
    },
  }, async (request, reply) => v3.batchAvailabilityLookup(channelOf(request), request.body, Date.now() - reply.elapsedTime));

  app.post('/v3/CreateBooking', {
    schema: {
      ...common, operationId: 'v3CreateBooking', summary: 'Book a slot (idempotency_token: the same token answers the same response)',
      description:
        'HTTP Basic credentials of a google-v3 channel. `slot.resources.party_size` is required and `slot.service_id`, when given, must be "dining" (400 otherwise). ' +
        'Business failures are HTTP 200 with booking_failure.cause mapped from the reservation system\'s code; a reservation system that is not ' +
        'connected or does not answer is a 503 with Retry-After (retry with the same idempotency_token: it cannot book twice). 403 when the ' +
        'merchant is not linked to the channel.',
      body: CreateBookingRequest, response: { 200: BookingResponse, ...errorResponses('platform', [...V3_ERRORS, 409, 503]) },
    },
  }, async (request) => v3.createBooking(channelOf(request), request.body));

  app.post('/v3/UpdateBooking', {
    schema: {
      ...common, operationId: 'v3UpdateBooking', summary: 'Cancel a booking, or change its party size or time',
      description:
        'HTTP Basic credentials of a google-v3 channel. `booking.status` CANCELED cancels (BOOKING_ALREADY_CANCELLED, OUTSIDE_CANCELLATION_WINDOW as booking_failure); ' +
        'otherwise slot.start_sec and/or slot.resources.party_size change the booking; any other status than the current one is a 400. Business ' +
        "failures are HTTP 200 with booking_failure; a reservation system that does not answer is a 503. 403 for another channel's booking; 404 when unknown.",
      body: UpdateBookingRequest, response: { 200: BookingResponse, ...errorResponses('platform', [...V3_ERRORS, 409, 503]) },
    },
  }, async (request) => v3.updateBooking(channelOf(request), request.body));

  app.post('/v3/GetBookingStatus', {
    schema: {
      ...common, operationId: 'v3GetBookingStatus', summary: "A booking's status as Tableside holds it",
      description: 'HTTP Basic credentials of a google-v3 channel. No call to the reservation system. 403 for another channel\'s booking; 404 when unknown.',
      body: BookingIdRequest, response: { 200: GetBookingStatusResponse, ...errors },
    },
  }, async (request) => v3.getBookingStatus(channelOf(request), request.body.booking_id));

  app.post('/v3/ListBookings', {
    schema: {
      ...common, operationId: 'v3ListBookings', summary: "A user's bookings made through your channel",
      description: 'HTTP Basic credentials of a google-v3 channel. The bookings made with this user_id through the channel, newest first, at most 500.',
      body: ListBookingsRequest, response: { 200: ListBookingsResponse, ...errors },
    },
  }, async (request) => v3.listBookings(channelOf(request), request.body.user_id));
};
