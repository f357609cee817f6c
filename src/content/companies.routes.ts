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
        description:
          'The companies of the calling partner, paged with offset (0..1,000,000,000) and limit (0..50, default 10); ' +
          'total counts every page. x-locale (ISO 639-1) answers translated fields in that language, falling back to the ' +
          'base value; an unknown code is a 400 naming the header. Auth: a content API key (`Authorization: Bearer ' +
          'tsk_…`); 401 when it is missing, invalid or revoked, 403 when the partner has no content access. Out-of-range ' +
          'offset or limit is a 400 naming it.',
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
        description:
          "One of your companies. Another partner's company, or an unknown id, is a 404. x-locale (ISO 639-1) answers " +
          'translated fields in that language, falling back to the base value; an unknown code is a 400 naming the ' +
          'header. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, ' +
          '403 when the partner has no content access.',
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
        description:
          'Creates a company owned by the calling partner and answers it (200). name, city and countryCode are required; ' +
          'fbInstallLink is generated and never accepted. translations sets translated description and bookingMessage per ' +
          'locale. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, ' +
          '403 when the partner has no content access. A 400 names each invalid field (e.g. a countryCode that is not ISO ' +
          '3166-1 alpha-2); a body over 1 MiB is 413.',
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
        description:
          'Changes the fields given and keeps the others; null clears an optional text. Answers exactly [true]. Another ' +
          "partner's company, or an unknown id, is a 404. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 " +
          'when it is missing, invalid or revoked, 403 when the partner has no content access. A 400 names each invalid ' +
          'field; a body over 1 MiB is 413.',
        params: CompanyParams,
        body: UpdateCompanyBody,
        response: { 200: UpdatedTrue, ...errorResponses('rms', [...WRITE_ERRORS, 404]) },
      },
    },
    async (request) => companies.update(principalOf(request).partnerId, request.params.companyId, request.body),
  );
};
