import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import type { EndpointsService } from './endpoints.service.ts';
import {
  CreateEndpointBody,
  DeliveryList,
  Endpoint,
  EndpointList,
  EndpointParams,
  EndpointWithSecret,
  ListQuery,
  RecoverBody,
  Recovered,
  RotatedSecret,
  TestResult,
  UpdateEndpointBody,
} from './webhooks.schemas.ts';

// /v1/webhooks (DESIGN 8.5): any partner, with its own API key or access token.

const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { accessToken: [] }];
const common = { tags: ['webhooks'], security };
const config = { auth: 'partner' as const };
const errors = (...extra: number[]) => errorResponses('platform', [...AUTH_ERRORS, ...extra]);
const PATH = '/v1/webhooks/endpoints';

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ endpoints: EndpointsService }> = async (app, { endpoints }) => {
  app.post(PATH, {
    config,
    schema: {
      ...common,
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description: 'Answers the endpoint with its signing secret (whsec_…), shown only here. 400 names `url` (not https, or a private address) or `events` (listing unknown types).',
      body: CreateEndpointBody,
      response: { 200: EndpointWithSecret, ...errors(413, 415) },
    },
  }, async (request) => endpoints.create(principalOf(request).partnerId, request.body));

  app.get(PATH, {
    config,
    schema: { ...common, operationId: 'listWebhookEndpoints', summary: "The partner's webhook endpoints", querystring: ListQuery, response: { 200: EndpointList, ...errors() } },
  }, async (request) => endpoints.list(principalOf(request).partnerId, { offset: request.query.offset ?? 0, limit: request.query.limit ?? 10 }));

  app.get(`${PATH}/:id`, {
    config,
    schema: { ...common, operationId: 'getWebhookEndpoint', summary: 'One webhook endpoint (never its secret)', params: EndpointParams, response: { 200: Endpoint, ...errors(404) } },
  }, async (request) => endpoints.get(principalOf(request).partnerId, request.params.id));

  app.put(`${PATH}/:id`, {
    config,
    schema: {
      ...common,
      operationId: 'updateWebhookEndpoint',
      summary: 'Change a webhook endpoint',
      description: 'Fields given are changed, others kept. `status: "enabled"` enables a disabled endpoint again.',
      params: EndpointParams,
      body: UpdateEndpointBody,
      response: { 200: Endpoint, ...errors(404, 413, 415) },
    },
  }, async (request) => endpoints.update(principalOf(request).partnerId, request.params.id, request.body));

  app.delete(`${PATH}/:id`, {
    config,
    schema: { ...common, operationId: 'deleteWebhookEndpoint', summary: 'Delete a webhook endpoint and its delivery log', params: EndpointParams, response: { 204: { type: 'null' }, ...errors(404) } },
  }, async (request, reply) => {
    await endpoints.remove(principalOf(request).partnerId, request.params.id);
    return reply.code(204).send(null);
  });

  app.post(`${PATH}/:id/rotate-secret`, {
    config,
    schema: {
      ...common,
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description: 'Answers the new secret once. For 24 h deliveries carry two signatures, one per secret, so either verifies.',
      params: EndpointParams,
      response: { 200: RotatedSecret, ...errors(404) },
    },
  }, async (request) => endpoints.rotateSecret(principalOf(request).partnerId, request.params.id));

  app.get(`${PATH}/:id/deliveries`, {
    config,
    schema: {
      ...common,
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log: one entry per attempt, newest first',
      params: EndpointParams,
      querystring: ListQuery,
      response: { 200: DeliveryList, ...errors(404) },
    },
  }, async (request) => endpoints.deliveries(principalOf(request).partnerId, request.params.id, { offset: request.query.offset ?? 0, limit: request.query.limit ?? 10 }));

  app.post(`${PATH}/:id/recover`, {
    config,
    schema: {
      ...common,
      operationId: 'recoverWebhookDeliveries',
      summary: 'Re-send what failed or was missed in a window',
      description: 'Re-sends at once the deliveries of [since, until] that did not succeed (retries still waiting included) and the events the endpoint was not sent; enables a disabled endpoint.',
      params: EndpointParams,
      body: RecoverBody,
      response: { 202: Recovered, ...errors(404, 413, 415) },
    },
  }, async (request, reply) => reply.code(202).send(await endpoints.recover(principalOf(request).partnerId, request.params.id, request.body)));

  app.post(`${PATH}/:id/test`, {
    config,
    schema: {
      ...common,
      operationId: 'testWebhookEndpoint',
      summary: 'Send a signed webhook.test event now',
      description: "Answers how the endpoint took it; the attempt is in the delivery log. A failing endpoint is a 200 with status failed, never retried.",
      params: EndpointParams,
      response: { 200: TestResult, ...errors(404) },
    },
  }, async (request) => endpoints.test(principalOf(request).partnerId, request.params.id));
};
