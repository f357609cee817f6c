import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { FEED_BODY_LIMIT, FeedAccepted, FeedBody, FeedStatus } from './feed.schemas.ts';
import type { FeedService } from './feed.service.ts';

const common = { tags: ['rms'], security: [{ apiKey: [] }] };

export const feedRoutes: FastifyPluginAsyncTypebox<{ feed: FeedService }> = async (app, { feed }) => {
  app.post(
    '/v1/rms/availability-feed',
    {
      config: { auth: 'rms' },
      // The one route past the 1 MiB default (DESIGN 9): a shard may carry tens of thousands of records.
      bodyLimit: FEED_BODY_LIMIT,
      schema: {
        ...common,
        operationId: 'postAvailabilityFeed',
        summary: 'Send one shard of your availability feed (body up to 32 MiB; shards in any order)',
        body: FeedBody,
        response: { 202: FeedAccepted, ...errorResponses('rms', [...AUTH_ERRORS, 413, 415]) },
      },
    },
    async (request, reply) => reply.code(202).send(await feed.receive(principalOf(request).partnerId, request.body)),
  );

  app.get(
    '/v1/rms/availability-feed',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'getAvailabilityFeed',
        summary: 'Your current availability snapshot and any feed still missing shards',
        response: { 200: FeedStatus, ...errorResponses('rms', AUTH_ERRORS) },
      },
    },
    async (request) => feed.status(principalOf(request).partnerId),
  );
};
