import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import {
  Company,
  CompanyList,
  CompanyParams,
  CreateCompanyBody,
  ListCompaniesQuery,
  UpdateCompanyBody,
  UpdatedTrue,
} from './companies.schemas.ts';
import type { CompaniesService } from './companies.service.ts';
import { LocaleHeaders } from './content.schemas.ts';

const common = { tags: ['content'], security: [{ apiKey: [] }], headers: LocaleHeaders };
const WRITE_ERRORS = [...AUTH_ERRORS, 413, 415];

export const companiesRoutes: FastifyPluginAsyncTypebox<{ companies: CompaniesService }> = async (app, { companies }) => {
  app.get(
    '/v1/rms/company',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'listCompanies',
        summary: "List the partner's companies",
        querystring: ListCompaniesQuery,
        response: { 200: CompanyList, ...errorResponses('rms', AUTH_ERRORS) },
      },
    },
    async (request) => companies.list(principalOf(request).partnerId, request.query, request.headers['x-locale']),
  );

  app.get(
    '/v1/rms/company/:companyId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'getCompany',
        summary: 'Get one company',
        params: CompanyParams,
        response: { 200: Company, ...errorResponses('rms', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => companies.get(principalOf(request).partnerId, request.params.companyId, request.headers['x-locale']),
  );

  app.post(
    '/v1/rms/company',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'createCompany',
        summary: 'Create a company',
        body: CreateCompanyBody,
        response: { 200: Company, ...errorResponses('rms', WRITE_ERRORS) },
      },
    },
    async (request) => companies.create(principalOf(request).partnerId, request.body, request.headers['x-locale']),
  );

  app.put(
    '/v1/rms/company/:companyId',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'updateCompany',
        summary: 'Update a company (fields given change, others are kept); answers [true]',
        params: CompanyParams,
        body: UpdateCompanyBody,
        response: { 200: UpdatedTrue, ...errorResponses('rms', [...WRITE_ERRORS, 404]) },
      },
    },
    async (request) => companies.update(principalOf(request).partnerId, request.params.companyId, request.body),
  );
};
