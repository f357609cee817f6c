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
        description:
          'Your venues, ordered by name (case-insensitive), then id, paged with offset (0..1,000,000,000) and limit ' +
          '(0..50, default 10). filters[criteria] and filters[city] match a part, case-insensitively; ' +
          'filters[countryCode] is exact; filters[bookingChannel] / filters[notBookingChannel] keep the venues linked / ' +
          'not linked to that channel. x-locale (ISO 639-1) answers translated fields in that language, falling back to ' +
          'the base value; an unknown code is a 400 naming the header. Auth: a content API key (`Authorization: Bearer ' +
          'tsk_…`); 401 when it is missing, invalid or revoked, 403 when the partner has no content access.',
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
          'Creates a venue and answers it. externalId, name, countryCode, city and currency are required. Without ' +
          'company, a company is generated from the venue details. latitude and longitude are given together (JSON Schema ' +
          'dependentRequired): one without the other is a 400 naming the missing one, and a number paired with null is a ' +
          '400 too. paymentDefinition amounts have at most the decimals of the venue currency (EUR 2, JPY 0, KWD 3) and ' +
          'at most 999,999,999,999,999 minor units, else a 400 naming the amount; minCovers must not exceed maxCovers. An ' +
          'externalId you already use is a 409 whose details.venueId names that venue (to upsert, use PUT ' +
          '/v1/rms/venues/external/{externalId}). Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is ' +
          'missing, invalid or revoked, 403 when the partner has no content access. A body over 1 MiB is 413.',
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
        description:
          "One of your venues. Another partner's venue, or an unknown id, is a 404. x-locale (ISO 639-1) answers " +
          'translated fields in that language, falling back to the base value; an unknown code is a 400 naming the ' +
          'header. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, ' +
          '403 when the partner has no content access.',
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
        description:
          'Changes the fields given and keeps the others; null clears an optional field. latitude and longitude are given ' +
          'together (JSON Schema dependentRequired): one without the other is a 400 naming the missing one, and a number ' +
          'paired with null is a 400 too. paymentDefinition amounts have at most the decimals of the venue currency (EUR ' +
          '2, JPY 0, KWD 3) and at most 999,999,999,999,999 minor units, else a 400 naming the amount; minCovers must not ' +
          'exceed maxCovers. Changing currency keeps stored fee amounts only when they can be expressed in the new one. ' +
          "Another partner's venue, or an unknown id, is a 404; an externalId already used by another of your venues is a " +
          '409. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 ' +
          'when the partner has no content access.',
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
        description:
          'The venue you gave this externalId. None is a 404. x-locale (ISO 639-1) answers translated fields in that ' +
          'language, falling back to the base value; an unknown code is a 400 naming the header. Auth: a content API key ' +
          '(`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when the partner has no ' +
          'content access.',
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
          'Creates the venue when you have none with this externalId (then, externalId aside, the fields required by POST ' +
          '/v1/rms/venues are required), else changes the fields given and keeps the others. Response header ' +
          'x-venue-created tells which happened (true or false). latitude and longitude are given together (JSON Schema ' +
          'dependentRequired): one without the other is a 400 naming the missing one, and a number paired with null is a ' +
          '400 too. paymentDefinition amounts have at most the decimals of the venue currency (EUR 2, JPY 0, KWD 3) and ' +
          'at most 999,999,999,999,999 minor units, else a 400 naming the amount; minCovers must not exceed maxCovers. ' +
          'Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when ' +
          'the partner has no content access.',
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
