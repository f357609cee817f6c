import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { FailureThrottle } from '../server/auth.ts';
import { errorResponses } from '../server/schemas.ts';
import type { ChannelAccessService } from './access.service.ts';
import { channelOf, registerChannelAuth } from './channel-auth.ts';
import type { FeedsService } from './feeds.service.ts';

// GET /v1/feeds/{channelId}/{merchants|services|availability} (DESIGN 8.4c): the latest feed, for
// the google-v3 channel itself with its Basic credentials.

const FeedParams = Type.Object({
  channelId: Type.String({ maxLength: 64, description: 'your channel id' }),
  kind: Type.Union([Type.Literal('merchants'), Type.Literal('services'), Type.Literal('availability')]),
});

const FeedDocument = Type.Object({
  metadata: Type.Object({
    processing_instruction: Type.String(), shard_number: Type.Integer(), total_shards: Type.Integer(), nonce: Type.String(), generation_timestamp: Type.Integer(),
  }),
}, { additionalProperties: true, description: "Google's feed JSON: merchant[], service[] or service_availability[{availability[]}]" });

export const feedsRoutes: FastifyPluginAsyncTypebox<{ feeds: FeedsService; access: ChannelAccessService; limiter: FailureThrottle }> = async (
  app,
  { feeds, access, limiter },
) => {
  registerChannelAuth(app, { access, limiter, scheme: 'basic', protocol: 'google-v3' });
  app.get('/v1/feeds/:channelId/:kind', {
    schema: {
      tags: ['booking-server-v3'], security: [{ channelBasic: [] }], operationId: 'getChannelFeed',
      summary: 'The latest merchant, services or availability feed of your channel (unsharded)',
      params: FeedParams, response: { 200: FeedDocument, ...errorResponses('platform', [400, 401, 403, 429]) },
    },
  }, async (request) => feeds.latest(channelOf(request), request.params.channelId, request.params.kind));
};
