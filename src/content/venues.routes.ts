import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { LocaleHeaders } from './content.schemas.ts';
import type { VenuesService } from './venues.service.ts';
import { CreateVenueBody, ExternalIdParams, ListVenuesQuery, UpdateVenueBody, Venue, VenueList, VenueParams } from './venues.schemas.ts';

const common = { tags: ['content'], security: [{ apiKey: [] }], headers: LocaleHeaders };
const WRITE_ERRORS = [...AUTH_ERRORS, 413, 415];

export const venuesRoutes: FastifyPluginAsyncTypebox<{ venues: VenuesService }> = async (app, { venues }) => {
  app.get(
    '/v1/rms/venues',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'listVenues',
        summary: "List the partner's venues",
        description: 'Ordered by name (case-insensitive), then id. filters[criteria] and filters[city] match a part, case-insensitively.',
        querystring: ListVenuesQuery,
        response: { 200: VenueList, ...errorResponses('rms', AUTH_ERRORS) },
      },
    },
    async (request) => venues.list(principalOf(request).partnerId, request.query, request.headers['x-locale']),
  );

  app.post(
    '/v1/rms/venues',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'createVenue',
        summary: 'Create a venue',
        description:
          'Without company, a company is generated from the venue details. An externalId you already use is a 409 whose ' +
          'details.venueId names that venue (to upsert, use PUT /v1/rms/venues/external/{externalId}).',
        body: CreateVenueBody,
        response: { 200: Venue, ...errorResponses('rms', [...WRITE_ERRORS, 409]) },
      },
    },
    async (request) => venues.create(principalOf(request).partnerId, request.body, request.headers['x-locale']),
  );

  app.get(
    '/v1/rms/venues/:venueId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'getVenue',
        summary: 'Get one venue',
        params: VenueParams,
        response: { 200: Venue, ...errorResponses('rms', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => venues.get(principalOf(request).partnerId, request.params.venueId, request.headers['x-locale']),
  );

  app.put(
    '/v1/rms/venues/:venueId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'updateVenue',
        summary: 'Update a venue (fields given change, others are kept)',
        params: VenueParams,
        body: UpdateVenueBody,
        response: { 200: Venue, ...errorResponses('rms', [...WRITE_ERRORS, 404, 409]) },
      },
    },
    async (request) => venues.update(principalOf(request).partnerId, request.params.venueId, request.body, request.headers['x-locale']),
  );

  app.get(
    '/v1/rms/venues/external/:externalId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'getVenueByExternalId',
        summary: 'Get one venue by your own id of it',
        params: ExternalIdParams,
        response: { 200: Venue, ...errorResponses('rms', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => venues.getByExternalId(principalOf(request).partnerId, request.params.externalId, request.headers['x-locale']),
  );

  app.put(
    '/v1/rms/venues/external/:externalId',
    {
      config: { auth: 'rms', responseHeaders: { 200: ['x-venue-created'] } },
      schema: {
        ...common,
        operationId: 'upsertVenueByExternalId',
        summary: 'Create or update the venue with this externalId (idempotent; for syncs)',
        description:
          'Creates the venue when you have none with this externalId (then externalId aside, the fields required by ' +
          'POST /v1/rms/venues are required), else changes the fields given and keeps the others. Header ' +
          'x-venue-created tells which happened.',
        params: ExternalIdParams,
        body: UpdateVenueBody,
        response: { 200: Venue, ...errorResponses('rms', [...WRITE_ERRORS]) },
      },
    },
    async (request, reply) => {
      const { venue, created } = await venues.upsertByExternalId(
        principalOf(request).partnerId,
        request.params.externalId,
        request.body,
        request.headers['x-locale'],
      );
      reply.header('x-venue-created', String(created));
      return venue;
    },
  );
};
