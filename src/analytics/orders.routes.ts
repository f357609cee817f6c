import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { fieldProblems } from '../lib/json-schema.ts';
import { principalOf } from '../server/auth.ts';
import { errorResponses } from '../server/schemas.ts';
import type { AnalyticsOrdersService } from './orders.service.ts';
import { ClosedOrderList, ClosedOrdersQuery, VenueParams } from './orders.schemas.ts';

export const analyticsOrdersRoutes: FastifyPluginAsyncTypebox<{ orders: AnalyticsOrdersService }> = async (app, { orders }) => {
  app.get(
    '/v1/pos/venue/:venueId/order',
    {
      config: { auth: 'analytics' },
      // Query problems go to the service, which adds the window rules and answers one 400 naming
      // every offending field (after the 404/403 venue checks).
      attachValidation: true,
      schema: {
        operationId: 'listClosedOrders',
        summary: "A venue's closed orders, most recent close first",
        description:
          'Closed orders whose close time is within from..until (both inclusive), most recent close first, paged with ' +
          'offset and limit (1..100, default 50), from the stored history: it answers while the POS is down. A date-only ' +
          "from is 00:00:00.000 and a date-only until 23:59:59.999 of that day in the venue's time zone (UTC when it has " +
          'none); a date-time without an offset is read in that time zone too. Rules a schema cannot state: until must ' +
          'not be before from, and after resolving both bounds until - from is at most 31 × 24 hours; either breach is a ' +
          '400 naming both fields. A 400 lists each offending field in error.details.form.errors. An unknown venue is a ' +
          "404; an existing venue outside the token's scope is a 403. Auth: an access token (`Authorization: Bearer " +
          'tat_…`, from POST /oauth/token) of a partner with analytics access: a missing, invalid, expired or revoked ' +
          'token is a 401; a partner without analytics access is a 403.',
        tags: ['analytics'],
        security: [{ accessToken: [] }],
        params: VenueParams,
        querystring: ClosedOrdersQuery,
        response: { 200: ClosedOrderList, ...errorResponses('analytics', [400, 401, 403, 404, 429]) },
      },
    },
    async (request) =>
      orders.listClosedOrders(
        principalOf(request).partnerId,
        request.params.venueId,
        request.query,
        request.validationError ? fieldProblems((request.validationError as { validation?: never[] }).validation ?? []) : {},
      ),
  );
};
