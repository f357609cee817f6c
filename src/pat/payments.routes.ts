import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { OrderParams, Payment, PaymentParams, SubmitPaymentBody } from './payments.schemas.ts';
import type { PaymentsService } from './payments.service.ts';

const common = { tags: ['pay-at-table'], security: [{ accessToken: [] }] };

export const paymentsRoutes: FastifyPluginAsyncTypebox<{ payments: PaymentsService }> = async (app, { payments }) => {
  app.post(
    '/v1/pat/venue/:venueId/order/:orderId/payment',
    {
      config: { auth: 'pat', responseHeaders: { 200: ['X-Idempotent-Replay'], 202: ['X-Idempotent-Replay'] } },
      schema: {
        ...common,
        operationId: 'submitPayment',
        summary: 'Submit a guest payment',
        description:
          '200 with the payment when confirmed or failed; 202 with status pending (deferred venues) — then poll the status ' +
          'endpoint about once a second. The same externalReference with the same payload replays the current state ' +
          '(header X-Idempotent-Replay: true). A venue whose POS connection is suspended answers 404 to a new payment ' +
          'but still replays one already made.',
        params: OrderParams,
        body: SubmitPaymentBody,
        response: {
          200: Payment,
          202: Payment,
          ...errorResponses('pat', [...AUTH_ERRORS, 404, 409, 413, 415, 422, 502]),
        },
      },
    },
    async (request, reply) => {
      const { venueId, orderId } = request.params;
      const result = await payments.submit(principalOf(request).partnerId, venueId, orderId, request.body);
      if (result.replay) reply.header('x-idempotent-replay', 'true');
      return reply.code(result.statusCode).send(result.payment);
    },
  );

  app.get(
    '/v1/pat/venue/:venueId/order/:orderId/payment/:externalReference',
    {
      config: { auth: 'pat' },
      schema: {
        ...common,
        operationId: 'getPayment',
        summary: 'Payment status by externalReference',
        description:
          'Answers 200 for any existing payment, whatever its status; a failed payment is reported in the body. ' +
          'Also while the venue\'s POS connection is suspended.',
        params: PaymentParams,
        response: { 200: Payment, ...errorResponses('pat', [...AUTH_ERRORS, 404]) },
      },
    },
    async (request) => {
      const { venueId, orderId, externalReference } = request.params;
      return payments.status(principalOf(request).partnerId, venueId, orderId, externalReference);
    },
  );
};
