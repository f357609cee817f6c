import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { AppError } from '../lib/errors.ts';
import { errorResponses } from './schemas.ts';

// Liveness answers while the process serves requests; readiness also needs the database.
export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Pick<Db, 'kysely'> }> = async (app, { db }) => {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'healthz',
        summary: 'Liveness: the process is up',
        description:
          'Answers 200 while the process serves requests, without touching the database. No credential and no rate ' +
          'limit: meant for load balancers and orchestrators.',
        tags: ['operations'],
        response: { 200: Type.Object({ status: Type.Literal('ok') }), ...errorResponses('platform', [400]) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'readyz',
        summary: 'Readiness: the database answers',
        description:
          'Answers 200 when the database answers a query, else 503 with Retry-After: take the process out of rotation ' +
          'until it is ready again. No credential and no rate limit.',
        tags: ['operations'],
        response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses('platform', [400, 503]) },
      },
    },
    async () => {
      try {
        await sql`SELECT 1`.execute(db.kysely);
      } catch {
        // The error handler adds Retry-After, as to every 503 (errors.ts errorHeaders).
        throw new AppError('unavailable', 'The database is not reachable.');
      }
      return { status: 'ready' as const };
    },
  );
};
