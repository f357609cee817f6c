import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import type { EndpointsService } from './endpoints.service.ts';
import type { EndpointOwner } from './webhooks.fns.ts';
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

// /v1/webhooks (DESIGN 8.5): any partner, with its own API key or access token, and any `tableside`
// booking channel with its channel API key (8.7a: its endpoints receive the events of its bookings).

const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { accessToken: [] }, { channelKey: [] }];
const common = { tags: ['webhooks'], security };
const config = { auth: 'partner-or-channel' as const };

/** Whose endpoints the caller manages: its channel's, when it called with a channel key, else its partner's. */
function ownerOf(request: FastifyRequest): EndpointOwner {
  if (request.channelPrincipal) return { kind: 'channel', id: request.channelPrincipal.channelId };
  return { kind: 'partner', id: principalOf(request).partnerId };
}
const errors = (...extra: number[]) => errorResponses('platform', [...AUTH_ERRORS, ...extra]);
const PATH = '/v1/webhooks/endpoints';

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ endpoints: EndpointsService }> = async (app, { endpoints }) => {
  app.post(PATH, {
    config,
    schema: {
      ...common,
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description: 'Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). Answers the endpoint with its signing secret (whsec_…), shown only here. 400 names `url` (not https, or a loopback, private, link-local or metadata address) or `events` (empty, naming a type twice, or listing unknown types; for a booking channel, any type but its booking events).',
      body: CreateEndpointBody,
      response: { 200: EndpointWithSecret, ...errors(413, 415) },
    },
  }, async (request) => endpoints.create(ownerOf(request), request.body));

  app.get(PATH, {
    config,
    schema: { ...common, operationId: 'listWebhookEndpoints', summary: "The partner's webhook endpoints", description: 'Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). Your endpoints as `{total, data}` pages (offset/limit; out of range is a 400), never their secrets.', querystring: ListQuery, response: { 200: EndpointList, ...errors() } },
  }, async (request) => endpoints.list(ownerOf(request), { offset: request.query.offset ?? 0, limit: request.query.limit ?? 10 }));

  app.get(`${PATH}/:id`, {
    config,
    schema: { ...common, operationId: 'getWebhookEndpoint', summary: 'One webhook endpoint (never its secret)', description: 'Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). 404 when you have no endpoint with that id (another partner\'s included).', params: EndpointParams, response: { 200: Endpoint, ...errors(404) } },
  }, async (request) => endpoints.get(ownerOf(request), request.params.id));

  app.put(`${PATH}/:id`, {
    config,
    schema: {
      ...common,
      operationId: 'updateWebhookEndpoint',
      summary: 'Change a webhook endpoint',
      description: 'Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). Fields given are changed, others kept. `status: "enabled"` enables a disabled endpoint again. 400 names `url` or `events` as on create; 404 when you have no endpoint with that id.',
      params: EndpointParams,
      body: UpdateEndpointBody,
      response: { 200: Endpoint, ...errors(404, 413, 415) },
    },
  }, async (request) => endpoints.update(ownerOf(request), request.params.id, request.body));

  app.delete(`${PATH}/:id`, {
    config,
    schema: { ...common, operationId: 'deleteWebhookEndpoint', summary: 'Delete a webhook endpoint and its delivery log', description: 'Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). Nothing more is sent to it. 404 when you have no endpoint with that id.', params: EndpointParams, response: { 204: { type: 'null' }, ...errors(404) } },
  }, async (request, reply) => {
    await endpoints.remove(ownerOf(request), request.params.id);
    return reply.code(204).send(null);
  });

  app.post(`${PATH}/:id/rotate-secret`, {
    config,
    schema: {
      ...common,
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description: 'Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). Answers the new secret once. For 24 h deliveries carry two signatures, one per secret, so either verifies. 404 when you have no endpoint with that id.',
      params: EndpointParams,
      response: { 200: RotatedSecret, ...errors(404) },
    },
  }, async (request) => endpoints.rotateSecret(ownerOf(request), request.params.id));

  app.get(`${PATH}/:id/deliveries`, {
    config,
    schema: {
      ...common,
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log: one entry per attempt, newest first',
      description: 'Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). Every attempt to deliver to this endpoint, with the answer it got, as `{total, data}` pages. 404 when you have no endpoint with that id.',
      params: EndpointParams,
      querystring: ListQuery,
      response: { 200: DeliveryList, ...errors(404) },
    },
  }, async (request) => endpoints.deliveries(ownerOf(request), request.params.id, { offset: request.query.offset ?? 0, limit: request.query.limit ?? 10 }));

  app.post(`${PATH}/:id/recover`, {
    config,
    schema: {
      ...common,
      operationId: 'recoverWebhookDeliveries',
      summary: 'Re-send what failed or was missed in a window',
      description: 'Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). Re-sends at once the deliveries of [since, until] that did not succeed (retries still waiting included) and the events the endpoint was not sent, at most 5000 of each per call; enables a disabled endpoint. 400 when `since` is in the future or `until` is before `since`; 404 when you have no endpoint with that id.',
      params: EndpointParams,
      body: RecoverBody,
      response: { 202: Recovered, ...errors(404, 413, 415) },
    },
  }, async (request, reply) => reply.code(202).send(await endpoints.recover(ownerOf(request), request.params.id, request.body)));

  app.post(`${PATH}/:id/test`, {
    config,
    schema: {
      ...common,
      operationId: 'testWebhookEndpoint',
      summary: 'Send a signed webhook.test event now',
      description: "Your own API key or access token (any partner), or your channel API key (a `tableside` booking channel). Answers how the endpoint took it; the attempt is in the delivery log. A failing endpoint is a 200 with status failed, never retried. 404 when you have no endpoint with that id.",
      params: EndpointParams,
      response: { 200: TestResult, ...errors(404) },
    },
  }, async (request) => endpoints.test(ownerOf(request), request.params.id));
};
