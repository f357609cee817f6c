import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope, OAuthError } from './schemas.ts';

// The OpenAPI document is generated from the same TypeBox schemas that validate requests and
// serialize responses, served at /openapi.json, with Swagger UI at /docs.

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  app.addSchema(ErrorEnvelope);
  app.addSchema(OAuthError);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tableside partner API',
        version: '1',
        description:
          'Content API (/v1/rms, API key), pay-at-table API (/v1/pat, access token) and analytics API ' +
          '(/v1/pos, access token). HTTPS only. Errors use the envelope {"error":{"code","message","details"}}.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Content API key (tsk_…), issued by the operator.' },
          channelKey: { type: 'http', scheme: 'bearer', description: 'Booking channel API key (tbc_…), from `tableside channel create --protocol tableside`.' },
          channelBasic: { type: 'http', scheme: 'basic', description: 'A google-v3 channel\'s username and password, from `tableside channel create --protocol google-v3`.' },
          accessToken: {
            type: 'oauth2',
            description: 'Access token (tat_…) from POST /oauth/token (client credentials) or the operator CLI.',
            flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } },
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
