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
          'Records a guest payment on the order of a bill and forwards it to the POS. Answers 200 with the payment when ' +
          'confirmed or failed; 202 with status pending (deferred venues): then poll GET …/payment/{externalReference} ' +
          'about once a second. The same externalReference with the same payload replays the current state (response ' +
          'header X-Idempotent-Replay: true); with another payload, or on another order, it is a 409. Rules a schema ' +
          'cannot state: tip must not exceed amount; amount and tip have at most the decimals of the venue currency (EUR ' +
          '2, JPY 0, KWD 3) and at most 999,999,999,999,999 minor units; each breach is a 400 naming the field. A closed ' +
          'or voided order is a 422; an unknown order is a 404; a POS that refuses or cannot be reached on an immediate ' +
          'venue is a 502 and nothing is recorded. A venue whose POS connection is suspended answers 404 to a new payment ' +
          "but still replays one already made. A venue outside the token's scope is a 403. Auth: an access token " +
          '(`Authorization: Bearer tat_…`, from POST /oauth/token) of a partner with pay-at-table access: a missing ' +
          'header is a 403; an invalid, expired or revoked token is a 401 in OAuth style (WWW-Authenticate: Bearer ' +
          'error="invalid_token"); a partner without pay-at-table access is a 403.',
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
          'The payment submitted with this externalReference on this order, whatever its status (a failed payment is ' +
          "reported in the body, with its failureCode). Also answers while the venue's POS connection is suspended. An " +
          "unknown externalReference or order is a 404; a venue outside the token's scope is a 403. Auth: an access token " +
          '(`Authorization: Bearer tat_…`, from POST /oauth/token) of a partner with pay-at-table access: a missing ' +
          'header is a 403; an invalid, expired or revoked token is a 401 in OAuth style (WWW-Authenticate: Bearer ' +
          'error="invalid_token"); a partner without pay-at-table access is a 403.',
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
