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
        description: 'Every id must be one of your venues, else 403 and nothing changes. Answers the brand.',
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
        description: 'Every id must be one of your venues, else 403 and nothing changes. Answers the brand.',
        params: BrandParams,
        body: VenueIdsBody,
        response: { 200: Brand, ...errorResponses('rms', [...WRITE_ERRORS, 404]) },
      },
    },
    async (request) => brands.unlinkVenues(principalOf(request).partnerId, request.params.brandId, request.body.venues),
  );
};
