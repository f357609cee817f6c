import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
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
          "The venues in the token's scope with an active POS connection, by name (not paged; at most 100,000). A venue " +
          'whose connection is suspended is temporarily unavailable and omitted (its closed orders still answer); an ' +
          'empty array means none. Auth: an access token (`Authorization: Bearer tat_…`, from POST /oauth/token) of a ' +
          'partner with analytics access: a missing, invalid, expired or revoked token is a 401; a partner without ' +
          'analytics access is a 403.',
        tags: ['analytics'],
        security: [{ accessToken: [] }],
        response: { 200: AnalyticsVenueList, ...errorResponses('analytics', AUTH_ERRORS) },
      },
    },
    async (request) => venues.listVenues(principalOf(request).partnerId),
  );
};
