import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { BookingServices, PutBookingServicesBody } from './booking-services.schemas.ts';
import type { BookingServicesService } from './booking-services.service.ts';

const common = { tags: ['rms'], security: [{ apiKey: [] }] };

export const bookingServicesRoutes: FastifyPluginAsyncTypebox<{ bookingServices: BookingServicesService }> = async (app, { bookingServices }) => {
  app.put(
    '/v1/rms/booking-services',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'putBookingServices',
        summary: 'Connect your booking services (checked with GET {baseUrl}/healthcheck before saving)',
        description:
          'RMS partner API key. Saves the https base URL of your booking services and the key Tableside sends them (sealed at rest, never answered), ' +
          'after GET {baseUrl}/healthcheck answered 200 to that key. 400 names `baseUrl` when the URL is not https, resolves to a loopback, private, ' +
          'link-local or metadata address, carries a query or fragment, or the healthcheck failed; nothing is saved then. Replaces an earlier connection.',
        body: PutBookingServicesBody,
        response: { 200: BookingServices, ...errorResponses('rms', [...AUTH_ERRORS, 413, 415]) },
      },
    },
    async (request) => bookingServices.put(principalOf(request).partnerId, request.body),
  );

  app.get(
    '/v1/rms/booking-services',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'getBookingServices',
        summary: 'Your booking-services connection (never the key)',
        description: 'RMS partner API key. The saved base URL and the last healthcheck: the one before saving, then what Tableside\'s calls found (a call that could not reach you, timed out, got a 5xx or had its key refused records ok false; the next call you answered, ok true). 404 until PUT /v1/rms/booking-services has connected them.',
        response: { 200: BookingServices, ...errorResponses('rms', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => bookingServices.get(principalOf(request).partnerId),
  );
};
