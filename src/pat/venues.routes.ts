import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import type { VenueContexts } from './venue-context.ts';
import type { PatVenuesService } from './venues.service.ts';
import {
  CreatePatVenueBody, CreatedPatVenue, Features, ListPatVenuesQuery, PatTables, PatVenueList, PosTypeList, VenueParams,
} from './venues.schemas.ts';

const common = { tags: ['pay-at-table'], security: [{ accessToken: [] }] };

export const patVenuesRoutes: FastifyPluginAsyncTypebox<{
  venues: PatVenuesService;
  contexts: VenueContexts;
  posTypes: PosTypeRegistry;
}> = async (app, { venues, contexts, posTypes }) => {
  app.get(
    '/v1/pat/pos-types',
    {
      config: { auth: 'pat' },
      schema: {
        ...common,
        operationId: 'listPosTypes',
        summary: 'List the POS types a venue can be created with',
        description: 'The list is configuration and grows: do not hard-code it.',
        response: { 200: PosTypeList, ...errorResponses('pat', AUTH_ERRORS) },
      },
    },
    async () => ({ posTypes: posTypes.list().map((t) => ({ code: t.code, name: t.name })) }),
  );

  app.get(
    '/v1/pat/venues',
    {
      config: { auth: 'pat' },
      schema: {
        ...common,
        operationId: 'listPatVenues',
        summary: 'List the venues in the token’s scope',
        querystring: ListPatVenuesQuery,
        response: { 200: PatVenueList, ...errorResponses('pat', AUTH_ERRORS) },
      },
    },
    async (request) => venues.list(principalOf(request).partnerId, request.query),
  );

  app.post(
    '/v1/pat/venues',
    {
      config: { auth: 'pat' },
      schema: {
        ...common,
        operationId: 'createPatVenue',
        summary: 'Create a standalone venue and its onboarding link',
        description: 'The venue is in your scope at once; it has no POS connection until the restaurant completes onboarding.',
        body: CreatePatVenueBody,
        response: { 200: CreatedPatVenue, ...errorResponses('pat', [...AUTH_ERRORS, 413, 415]) },
      },
    },
    async (request) => venues.create(principalOf(request).partnerId, request.body),
  );

  app.get(
    '/v1/pat/venue/:venueId/features',
    {
      config: { auth: 'pat' },
      schema: {
        ...common,
        operationId: 'getVenueFeatures',
        summary: 'Pay-at-table capabilities of a venue',
        params: VenueParams,
        response: { 200: Features, ...errorResponses('pat', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => contexts.features(principalOf(request).partnerId, request.params.venueId),
  );

  app.get(
    '/v1/pat/venue/:venueId/tables',
    {
      config: { auth: 'pat' },
      schema: {
        ...common,
        operationId: 'listVenueTables',
        summary: 'Tables of a venue (ids are stable; names follow the POS)',
        params: VenueParams,
        response: { 200: PatTables, ...errorResponses('pat', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => venues.tables(principalOf(request).partnerId, request.params.venueId),
  );
};
