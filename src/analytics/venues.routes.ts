import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { errorResponses } from '../server/schemas.ts';
import type { AnalyticsVenuesService } from './venues.service.ts';
import { AnalyticsVenueList } from './venues.schemas.ts';

export const analyticsVenuesRoutes: FastifyPluginAsyncTypebox<{ venues: AnalyticsVenuesService }> = async (app, { venues }) => {
  app.get(
    '/v1/pos/partner/venues',
    {
      config: { auth: 'analytics' },
      schema: {
        operationId: 'listAnalyticsVenues',
        summary: 'Venues in scope that are available for analytics queries',
        description:
          'Venues in the token\'s scope with an active POS connection. A venue whose connection is suspended is temporarily unavailable and omitted (its closed orders still answer); an empty array means none.',
        tags: ['analytics'],
        security: [{ accessToken: [] }],
        response: { 200: AnalyticsVenueList, ...errorResponses('analytics', [401, 403, 429]) },
      },
    },
    async (request) => venues.listVenues(principalOf(request).partnerId),
  );
};
