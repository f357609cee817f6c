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
        description:
          'The codes and names of the POS systems a venue can be created with (posType of POST /v1/pat/venues). The list ' +
          'is configuration and grows: do not hard-code it. Auth: an access token (`Authorization: Bearer tat_…`, from ' +
          'POST /oauth/token) of a partner with pay-at-table access: a missing header is a 403; an invalid, expired or ' +
          'revoked token is a 401 in OAuth style (WWW-Authenticate: Bearer error="invalid_token"); a partner without ' +
          'pay-at-table access is a 403.',
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
        description:
          "The venues in the token's scope (those you created and those granted to you), paged with offset " +
          '(0..1,000,000,000) and limit (0..100, default 10); total counts every page. filters[name] and filters[city] ' +
          'match a part, case-insensitively; filters[countryCode] matches the ISO 3166-1 alpha-2 code exactly. An ' +
          'out-of-range offset or limit, or a filter with NUL, is a 400 naming it. Auth: an access token (`Authorization: ' +
          'Bearer tat_…`, from POST /oauth/token) of a partner with pay-at-table access: a missing header is a 403; an ' +
          'invalid, expired or revoked token is a 401 in OAuth style (WWW-Authenticate: Bearer error="invalid_token"); a ' +
          'partner without pay-at-table access is a 403.',
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
        description:
          'Creates a standalone venue and its onboarding link (onboarding.url, for the restaurant). The venue is in your ' +
          'scope at once; it has no POS connection until the restaurant completes onboarding. posType must be a code of ' +
          'GET /v1/pat/pos-types. A 400 names each invalid field (blank or NUL text, a country that is not ISO 3166-1 ' +
          'alpha-2, an unknown time zone or currency); a body over 1 MiB is 413. Auth: an access token (`Authorization: ' +
          'Bearer tat_…`, from POST /oauth/token) of a partner with pay-at-table access: a missing header is a 403; an ' +
          'invalid, expired or revoked token is a 401 in OAuth style (WWW-Authenticate: Bearer error="invalid_token"); a ' +
          'partner without pay-at-table access is a 403.',
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
        description:
          'What pay-at-table can do at the venue: billRetrieval (the bill is read live from the POS), paymentForwarding ' +
          '(payments are pushed to the POS) and paymentConfirmation (immediate: the payment answers confirmed or failed; ' +
          "deferred: it answers pending, then poll). A venue outside the token's scope, or an unknown venue id, is a 403 " +
          '(never a 404); a venue in scope with no active POS connection is a 404 ("no POS connection found"). Auth: an ' +
          'access token (`Authorization: Bearer tat_…`, from POST /oauth/token) of a partner with pay-at-table access: a ' +
          'missing header is a 403; an invalid, expired or revoked token is a 401 in OAuth style (WWW-Authenticate: ' +
          'Bearer error="invalid_token"); a partner without pay-at-table access is a 403.',
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
        description:
          "The venue's tables. They are refreshed from the POS when the stored list is older than POS_TABLES_TTL_S (30 s " +
          'by default); while the POS cannot be reached the stored list is answered. Ids are stable; names follow the ' +
          "POS. A venue outside the token's scope, or an unknown venue id, is a 403 (never a 404); a venue in scope with " +
          'no active POS connection is a 404 ("no POS connection found"). Auth: an access token (`Authorization: Bearer ' +
          'tat_…`, from POST /oauth/token) of a partner with pay-at-table access: a missing header is a 403; an invalid, ' +
          'expired or revoked token is a 401 in OAuth style (WWW-Authenticate: Bearer error="invalid_token"); a partner ' +
          'without pay-at-table access is a 403.',
        params: VenueParams,
        response: { 200: PatTables, ...errorResponses('pat', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => venues.tables(principalOf(request).partnerId, request.params.venueId),
  );
};
