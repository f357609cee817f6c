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
          'Closed orders whose close time is within from..until (both inclusive, at most 31 × 24 hours apart), from the stored history: it answers while the POS is down. ' +
          'A 400 lists each offending field in error.details.form.errors. An unknown venue is 404; an existing venue outside the token\'s scope is 403.',
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
