import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { NoticeAccepted, NoticeBody, NoticeHeaders } from './notices.schemas.ts';
import type { NoticesService } from './notices.service.ts';

export const noticesRoutes: FastifyPluginAsyncTypebox<{ notices: NoticesService }> = async (app, { notices }) => {
  app.post(
    '/v1/rms/notifications',
    {
      config: { auth: 'rms' },
      schema: {
        tags: ['rms'],
        security: [{ apiKey: [] }],
        operationId: 'postNotification',
        summary: 'Tell Tableside a booking changed (202 at once; Tableside re-reads GET /booking/{entityId})',
        description:
          'RMS partner API key. A notice is a trigger, not the truth: Tableside records it, answers 202 at once and re-reads the booking from your ' +
          'GET /booking/{entityId}, so repeated or out-of-order notices converge. One of `entityId` or `entity_id` is required (400 naming entityId otherwise). ' +
          'The same `webhook-id` header, or the same body within 24 h while the first is still waiting, answers `duplicate`. A notice about a booking ' +
          'Tableside does not know is stored and acknowledged, never an error. An unknown `entity` is a 400.',
        headers: NoticeHeaders,
        body: NoticeBody,
        response: { 202: NoticeAccepted, ...errorResponses('rms', [...AUTH_ERRORS, 413, 415]) },
      },
    },
    async (request, reply) => {
      const answer = await notices.receive(principalOf(request).partnerId, request.headers['webhook-id'] ?? null, request.body);
      return reply.code(202).send(answer);
    },
  );
};
