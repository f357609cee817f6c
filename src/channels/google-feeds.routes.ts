import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { FailureThrottle } from '../server/auth.ts';
import { MAX_UNIX_SECONDS } from '../rms/rms-client.fns.ts';
import { errorResponses, Int32, Int64, Str, Uuid } from '../server/schemas.ts';
import type { ChannelAccessService } from './access.service.ts';
import { channelOf, registerChannelAuth } from './channel-auth.ts';
import type { FeedsService } from './google-feeds.service.ts';

// GET /v1/feeds/{channelId}/{merchants|services|availability} (DESIGN 8.4c): the latest feed, for
// the google-v3 channel itself with its Basic credentials.

const FeedParams = Type.Object({
  channelId: Str(64, { description: 'your channel id' }),
  kind: Type.Union([Type.Literal('merchants'), Type.Literal('services'), Type.Literal('availability')]),
});

const FeedDocument = Type.Object({
  metadata: Type.Object({
    processing_instruction: Type.Enum(['PROCESS_AS_COMPLETE']),
    shard_number: Int32(0, 0, { description: 'served unsharded: always 0' }),
    total_shards: Int32(1, 1, { description: 'served unsharded: always 1' }),
    nonce: Uuid({ description: 'a new nonce for every feed served' }),
    generation_timestamp: Int64(0, MAX_UNIX_SECONDS, { description: 'when the feed was built, Unix seconds' }),
  }),
}, {
  additionalProperties: true,
  description:
    "Google's feed JSON besides its metadata: merchants `merchant[]` ({merchant_id, name, category, url?, geo}), services `service[]` " +
    '({merchant_id, service_id "dining", name, description}), availability `service_availability[{availability[]}]` (one record per start x party ' +
    'size: {merchant_id, service_id, start_sec, duration_sec, spots_total, spots_open, resources:{party_size}}, 30 days ahead).',
});

export const feedsRoutes: FastifyPluginAsyncTypebox<{ feeds: FeedsService; access: ChannelAccessService; limiter: FailureThrottle }> = async (
  app,
  { feeds, access, limiter },
) => {
  registerChannelAuth(app, { access, limiter, scheme: 'basic', protocol: 'google-v3' });
  app.get('/v1/feeds/:channelId/:kind', {
    schema: {
      tags: ['booking-server-v3'], security: [{ channelBasic: [] }], operationId: 'getChannelFeed',
      summary: 'The latest merchant, services or availability feed of your channel (unsharded)',
      description:
        "The google-v3 channel's HTTP Basic credentials. Built now from the complete availability snapshots of the venues linked to the " +
        'channel (party sizes up to 10 unless the venue\'s maxCovers says otherwise, at most 20), in one shard. 403 for another channel\'s feeds; ' +
        '400 when the channel is not a google-v3 one.',
      params: FeedParams, response: { 200: FeedDocument, ...errorResponses('platform', [400, 401, 403, 429]) },
    },
  }, async (request, reply) => {
    // Streamed (DESIGN 8.8e): the document's JSON, written as the client reads it. Fastify sends a
    // stream as it is (the 200 schema above documents it; it serialises only objects).
    const feed = await feeds.latest(channelOf(request), request.params.channelId, request.params.kind);
    return reply.type('application/json; charset=utf-8').send(feed as never);
  });
};
