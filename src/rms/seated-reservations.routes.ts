import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import {
  PosConnectionAnswer, PosConnectionBody, PosTablesAnswer, ReservationAnswer, ReservationEvent, RmsVenueParams,
} from './seated-reservations.schemas.ts';
import type { RmsSeatingService } from './seated-reservations.service.ts';

// Seated reservations (DESIGN 8.3c), under the RMS partner's API key. The path's venue is the RMS's
// own id of it (DESIGN 8), unlike the content API's /v1/rms/venues/{venueId} (Tableside's id) at the
// same position: the parameter is named {externalId} so the document says which (issue 30).

const common = { tags: ['reservations'], security: [{ apiKey: [] }] };

export const rmsSeatingRoutes: FastifyPluginAsyncTypebox<{ seating: RmsSeatingService }> = async (app, { seating }) => {
  app.get(
    '/v1/rms/venues/:externalId/pos-tables',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'listVenuePosTables',
        summary: "The venue's POS tables, for your table matching",
        description:
          'RMS partner API key. {externalId} is your externalId of the venue; another partner\'s venue is a 403. The tables come from the POS ' +
          '(refreshed when the stored copy is older than POS_TABLES_TTL_S). 404 when no venue of yours has that externalId, or while the venue has ' +
          'no active POS connection.',
        params: RmsVenueParams,
        response: { 200: PosTablesAnswer, ...errorResponses('rms', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => seating.posTables(principalOf(request).partnerId, request.params.externalId),
  );

  app.post(
    '/v1/rms/venues/:externalId/pos-connection',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'connectVenuePos',
        summary: "An onboarding link that connects the venue to its POS location",
        description:
          'RMS partner API key. The same onboarding page as a pay-at-table venue: send the url to the restaurant, who connects its POS location ' +
          'there (a venue.onboarded webhook follows). 400 names `posType` when it is not a code of GET /v1/pat/pos-types; 404 when no venue of yours ' +
          'has that externalId; 409 when the venue is connected already.',
        params: RmsVenueParams,
        body: PosConnectionBody,
        response: { 200: PosConnectionAnswer, ...errorResponses('rms', [...AUTH_ERRORS, 404, 409, 413, 415]) },
      },
    },
    async (request) => seating.posConnection(principalOf(request).partnerId, request.params.externalId, request.body),
  );

  app.post(
    '/v1/rms/pos/reservations',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'postReservationEvent',
        summary: 'A reservation event: seated opens the POS order, once per booking',
        description:
          'RMS partner API key. When `status` is seated, `partySize`, `tables` and `date` are required (400 naming each missing one), every table must ' +
          'be one of GET …/pos-tables (400 naming `tables`), and `prepayment` may have at most the decimals of the venue currency (400). ' +
          'seated: the POS order is created once however often the event is sent (200 opened, then 200 unchanged with the same orderId); ' +
          'unknown SKUs are left out and listed in unknownSkus; a POS that cannot be reached gives 202 pending and is retried for an hour ' +
          '(outcome: webhook pos_order.opened or pos_order.failed). A POS that refuses the order is a 422 (recorded as pos_order.failed; send the ' +
          'event again to retry). 404 when no venue of yours has that externalId or it has no active POS connection. Any other status is recorded ' +
          'and answers 200 unchanged.',
        body: ReservationEvent,
        response: { 200: ReservationAnswer, 202: ReservationAnswer, ...errorResponses('rms', [...AUTH_ERRORS, 404, 413, 415, 422]) },
      },
    },
    async (request, reply) => {
      const answer = await seating.reservation(principalOf(request).partnerId, request.body);
      return reply.code(answer.httpStatus).send(answer.body);
    },
  );
};
