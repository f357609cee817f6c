import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { FEED_BODY_LIMIT, FeedAccepted, FeedBody, FeedStatus } from './availability-feed.schemas.ts';
import type { FeedService } from './availability-feed.service.ts';

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
        description:
          'RMS partner API key. `shard_number` counts from 0 and must be less than `total_shards`, which must be the same for every shard of a nonce ' +
          '(400 otherwise, and nothing of that nonce is kept). Records are checked one by one: a shard with invalid records is a 400 whose details ' +
          'name each record by index (data[12].partySize), at most 100 problems, and nothing of its nonce is kept (send every shard again). When every ' +
          "shard of a nonce has arrived, its records replace your previous snapshot in one transaction (`complete`, and an availability_feed.processed " +
          'webhook); a feed generated (`metadata.date`) before the current snapshot is `superseded`. A shard sent twice is a `duplicate`.',
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
        description:
          'RMS partner API key. The complete snapshot channels are answered from when your booking services do not answer within 1 s (its nonce, ' +
          'generation date, record and venue counts, completion time; nulls and zeros before the first complete feed), and the feeds still missing ' +
          'shards (a feed with no shard for a day is forgotten).',
        response: { 200: FeedStatus, ...errorResponses('rms', AUTH_ERRORS) },
      },
    },
    async (request) => feed.status(principalOf(request).partnerId),
  );
};
