import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { FailureThrottle } from '../server/auth.ts';
import { errorResponses } from '../server/schemas.ts';
import type { ChannelAccessService } from './access.service.ts';
import { registerChannelAuth } from './channel-auth.ts';

// Google's Booking Server API v3 under /v3/ (DESIGN 8.4b), for `google-v3` channels with HTTP Basic.

const common = { tags: ['booking-server-v3'], security: [{ channelBasic: [] }] };
const V3_ERRORS = [400, 401, 403, 429];

export const v3Routes: FastifyPluginAsyncTypebox<{ access: ChannelAccessService; limiter: FailureThrottle }> = async (app, { access, limiter }) => {
  registerChannelAuth(app, { access, limiter, scheme: 'basic', protocol: 'google-v3' });

  app.get('/v3/HealthCheck', {
    schema: {
      ...common, operationId: 'v3HealthCheck', summary: 'Booking Server v3 health check (200 when the server and your credentials work)',
      response: { 200: Type.Object({}), ...errorResponses('platform', V3_ERRORS) },
    },
  }, async () => ({}));
};
