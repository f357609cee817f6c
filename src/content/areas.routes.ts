import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { Area, AreaList, AreaParams, AreasParams, CreateAreaBody, ListAreasQuery, UpdateAreaBody } from './areas.schemas.ts';
import type { AreasService } from './areas.service.ts';
import { LocaleHeaders } from './content.schemas.ts';

const common = { tags: ['content'], security: [{ apiKey: [] }], headers: LocaleHeaders };
const WRITE_ERRORS = [...AUTH_ERRORS, 404, 413, 415];

export const areasRoutes: FastifyPluginAsyncTypebox<{ areas: AreasService }> = async (app, { areas }) => {
  app.get(
    '/v1/rms/venues/:venueId/areas',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'listAreas',
        summary: "List a venue's areas",
        description:
          'The areas of one of your venues, paged with offset and limit (0..50, default 10). An unknown venue, or another ' +
          "partner's, is a 404. x-locale (ISO 639-1) answers translated fields in that language, falling back to the base " +
          'value; an unknown code is a 400 naming the header. Auth: a content API key (`Authorization: Bearer tsk_…`); ' +
          '401 when it is missing, invalid or revoked, 403 when the partner has no content access.',
        params: AreasParams,
        querystring: ListAreasQuery,
        response: { 200: AreaList, ...errorResponses('rms', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => areas.list(principalOf(request).partnerId, request.params.venueId, request.query, request.headers['x-locale']),
  );

  app.post(
    '/v1/rms/venues/:venueId/areas',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'createArea',
        summary: 'Create an area in a venue',
        description:
          'Creates an area in one of your venues and answers it. The first area of a venue is its default unless ' +
          'isDefault false is sent; isDefault true makes it the default (the previous one stops being it). An externalId ' +
          'already used in the venue is a 409. A translation of name is at most 255 characters. Auth: a content API key ' +
          '(`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when the partner has no ' +
          'content access. An unknown venue is a 404.',
        params: AreasParams,
        body: CreateAreaBody,
        response: { 200: Area, ...errorResponses('rms', [...WRITE_ERRORS, 409]) },
      },
    },
    async (request) => areas.create(principalOf(request).partnerId, request.params.venueId, request.body, request.headers['x-locale']),
  );

  app.get(
    '/v1/rms/venues/:venueId/areas/:areaId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'getArea',
        summary: 'Get one area (localized with x-locale)',
        description:
          'One area of one of your venues. An unknown venue or area is a 404. x-locale (ISO 639-1) answers translated ' +
          'fields in that language, falling back to the base value; an unknown code is a 400 naming the header. Auth: a ' +
          'content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when the ' +
          'partner has no content access.',
        params: AreaParams,
        response: { 200: Area, ...errorResponses('rms', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) =>
      areas.get(principalOf(request).partnerId, request.params.venueId, request.params.areaId, request.headers['x-locale']),
  );

  app.put(
    '/v1/rms/venues/:venueId/areas/:areaId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'updateArea',
        summary: 'Update an area (fields given change, others are kept)',
        description:
          "Changes the fields given and keeps the others. isDefault true makes it the venue's default; false leaves the " +
          'venue without one if it was. An externalId already used in the venue is a 409; an unknown venue or area is a ' +
          '404. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 ' +
          'when the partner has no content access.',
        params: AreaParams,
        body: UpdateAreaBody,
        response: { 200: Area, ...errorResponses('rms', [...WRITE_ERRORS, 409]) },
      },
    },
    async (request) =>
      areas.update(principalOf(request).partnerId, request.params.venueId, request.params.areaId, request.body, request.headers['x-locale']),
  );
};
