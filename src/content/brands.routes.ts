import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { Brand, BrandList, BrandParams, CreateBrandBody, ListBrandsQuery, UpdateBrandBody } from './brands.schemas.ts';
import type { BrandsService } from './brands.service.ts';
import { LocaleHeaders, VenueIdsBody } from './content.schemas.ts';

const common = { tags: ['content'], security: [{ apiKey: [] }], headers: LocaleHeaders };
const WRITE_ERRORS = [...AUTH_ERRORS, 413, 415];

export const brandsRoutes: FastifyPluginAsyncTypebox<{ brands: BrandsService }> = async (app, { brands }) => {
  app.get(
    '/v1/rms/brands',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'listBrands',
        summary: "List the partner's brands",
        description:
          'The brands of the calling partner, paged with offset (0..1,000,000,000) and limit (0..50, default 10); total ' +
          'counts every page. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or ' +
          'revoked, 403 when the partner has no content access.',
        querystring: ListBrandsQuery,
        response: { 200: BrandList, ...errorResponses('rms', AUTH_ERRORS) },
      },
    },
    async (request) => brands.list(principalOf(request).partnerId, request.query),
  );

  app.get(
    '/v1/rms/brands/:brandId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'getBrand',
        summary: 'Get one brand',
        description:
          "One of your brands. Another partner's brand, or an unknown id, is a 404. Auth: a content API key " +
          '(`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when the partner has no ' +
          'content access.',
        params: BrandParams,
        response: { 200: Brand, ...errorResponses('rms', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => brands.get(principalOf(request).partnerId, request.params.brandId),
  );

  app.post(
    '/v1/rms/brands',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'createBrand',
        summary: 'Create a brand in one of your companies',
        description:
          'Creates a brand in one of your companies and answers it. company must be one of yours (else a 400 naming ' +
          'company). widgetLegalText and bookingApproach are stored for the booking widget and never answered. Auth: a ' +
          'content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when the ' +
          'partner has no content access. A 400 names each invalid field; a body over 1 MiB is 413.',
        body: CreateBrandBody,
        response: { 200: Brand, ...errorResponses('rms', WRITE_ERRORS) },
      },
    },
    async (request) => brands.create(principalOf(request).partnerId, request.body),
  );

  app.put(
    '/v1/rms/brands/:brandId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'updateBrand',
        summary: 'Update a brand (name mandatory; other fields change only when given)',
        description:
          "name is required; the other fields change only when given (null clears logo). Another partner's brand, or an " +
          'unknown id, is a 404. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid ' +
          'or revoked, 403 when the partner has no content access. A 400 names each invalid field.',
        params: BrandParams,
        body: UpdateBrandBody,
        response: { 200: Brand, ...errorResponses('rms', [...WRITE_ERRORS, 404]) },
      },
    },
    async (request) => brands.update(principalOf(request).partnerId, request.params.brandId, request.body),
  );

  app.put(
    '/v1/rms/brands/:brandId/link-venues',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'linkBrandVenues',
        summary: "Put venues under a brand (and under the brand's company)",
        description:
          "Puts the venues under this brand and under the brand's company. Every id must be one of your venues, else 403 " +
          'naming each refused position and nothing changes. Answers the brand. An unknown brand is a 404. Auth: a ' +
          'content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when the ' +
          'partner has no content access.',
        params: BrandParams,
        body: VenueIdsBody,
        response: { 200: Brand, ...errorResponses('rms', [...WRITE_ERRORS, 404]) },
      },
    },
    async (request) => brands.linkVenues(principalOf(request).partnerId, request.params.brandId, request.body.venues),
  );

  app.put(
    '/v1/rms/brands/:brandId/unlink-venues',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'unlinkBrandVenues',
        summary: 'Take venues out of a brand',
        description:
          'Takes the venues out of this brand (they keep their company). Every id must be one of your venues, else 403 ' +
          'naming each refused position and nothing changes. Answers the brand. An unknown brand is a 404. Auth: a ' +
          'content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when the ' +
          'partner has no content access.',
        params: BrandParams,
        body: VenueIdsBody,
        response: { 200: Brand, ...errorResponses('rms', [...WRITE_ERRORS, 404]) },
      },
    },
    async (request) => brands.unlinkVenues(principalOf(request).partnerId, request.params.brandId, request.body.venues),
  );
};
