import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { renderPage } from './onboarding.page.ts';
import type { OnboardingService } from './onboarding.service.ts';

// GET/POST /onboarding/{requestId}?t=<secret>: no service credentials; the secret in the link is
// the authorisation (DESIGN 6.5). Pages are HTML, never cached, never framed.

const Params = Type.Object({ requestId: Type.String() });
const Query = Type.Object({ t: Type.Optional(Type.String()) });
const Form = Type.Object({ posVenueId: Type.Optional(Type.String()), t: Type.Optional(Type.String()) });

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export const onboardingRoutes: FastifyPluginAsyncTypebox<{ onboarding: OnboardingService }> = async (app, { onboarding }) => {
  const action = (requestId: string, t?: string) => `/onboarding/${encodeURIComponent(requestId)}?t=${encodeURIComponent(t ?? '')}`;

  app.get(
    '/onboarding/:requestId',
    {
      schema: {
        hide: true,
        operationId: 'onboardingPage',
        summary: 'Onboarding page for a restaurant (HTML)',
        params: Params,
        querystring: Query,
      },
    },
    async (request, reply) => {
      const { requestId } = request.params;
      const { status, page } = await onboarding.show(requestId, request.query.t, action(requestId, request.query.t));
      return reply.code(status).headers(HEADERS).send(renderPage(page));
    },
  );

  app.post(
    '/onboarding/:requestId',
    {
      schema: {
        hide: true,
        operationId: 'onboardingSubmit',
        summary: 'Connect the POS location (HTML form post)',
        params: Params,
        querystring: Query,
        body: Form,
      },
    },
    async (request, reply) => {
      const { requestId } = request.params;
      const t = request.query.t ?? request.body?.t;
      const { status, page } = await onboarding.submit(requestId, t, request.body?.posVenueId, action(requestId, t));
      return reply.code(status).headers(HEADERS).send(renderPage(page));
    },
  );
};
