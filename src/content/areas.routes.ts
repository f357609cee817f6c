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
        params: AreaParams,
        body: UpdateAreaBody,
        response: { 200: Area, ...errorResponses('rms', [...WRITE_ERRORS, 409]) },
      },
    },
    async (request) =>
      areas.update(principalOf(request).partnerId, request.params.venueId, request.params.areaId, request.body, request.headers['x-locale']),
  );
};
