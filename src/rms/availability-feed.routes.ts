import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldProblems } from '../lib/errors.ts';
import { fieldProblems } from '../lib/json-schema.ts';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { validatorCompiler } from '../server/validation.ts';
import { FEED_BODY_LIMIT, FeedAccepted, FeedBody, FeedStatus } from './availability-feed.schemas.ts';
import { tooLarge, type FeedService } from './availability-feed.service.ts';

const common = { tags: ['rms'], security: [{ apiKey: [] }] };

/**
 * A shard's body as it arrives, unread (issue 28: a 14 MiB shard parsed whole cost the service
 * about 200 MiB of RSS over a 1,000,000-record feed). No enumerable field: the input guard's NUL
 * walk over `request.body` finds nothing here; the service applies it to what it reads.
 */
class FeedUpload {
  readonly #stream: Readable;
  constructor(stream: Readable) {
    this.#stream = stream;
  }
  get stream(): Readable {
    return this.#stream;
  }
}

/** The route's body schema, as Fastify would check it, on the body with `data` set aside ([]) and its records counted. */
const validateBody = validatorCompiler({ schema: FeedBody, httpPart: 'body', method: 'POST', url: '/v1/rms/availability-feed' }) as ((data: unknown) => boolean) & { errors?: unknown };
const MAX_RECORDS = (FeedBody.properties.data as { maxItems?: number }).maxItems!;
function checkBody(skeleton: unknown, records: number): FieldProblems | null {
  const problems = validateBody(skeleton) ? {} : fieldProblems(validateBody.errors as never);
  if (records > MAX_RECORDS) (problems.data ??= []).push(`must have at most ${MAX_RECORDS} items`);
  return Object.keys(problems).length > 0 ? problems : null;
}

/** Fastify's validator for every part of the request but the body, which the service checks as it reads it. */
const notTheBody: FastifySchemaCompiler<unknown> = (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route));

export const feedRoutes: FastifyPluginAsyncTypebox<{ feed: FeedService }> = async (app, { feed }) => {
  // In this plugin only: a JSON body is handed over unread (the service reads it as it arrives),
  // and no other type is taken (415; a form body was parsed and refused by the schema before).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', (request, payload, done) => {
    // A declared length over the limit is refused before a byte is read, as Fastify's parser does.
    if (Number(request.headers['content-length']) > FEED_BODY_LIMIT) return done(tooLarge(FEED_BODY_LIMIT), undefined);
    done(null, new FeedUpload(payload as Readable));
  });

  app.post(
    '/v1/rms/availability-feed',
    {
      config: { auth: 'rms' },
      // The one route past the 1 MiB default (DESIGN 9): a shard may carry tens of thousands of records.
      // The service enforces it as it reads (the body is not read by Fastify); this keeps it declared.
      bodyLimit: FEED_BODY_LIMIT,
      // The body schema stays in the route (the OpenAPI document is made from it) and is applied by
      // checkBody, with the same validator, to the body as read.
      validatorCompiler: notTheBody,
      schema: {
        ...common,
        operationId: 'postAvailabilityFeed',
        summary: 'Send one shard of your availability feed (body up to 32 MiB; shards in any order)',
        description:
          'RMS partner API key. `shard_number` counts from 0 and must be less than `total_shards`, which must be the same for every shard of a nonce ' +
          '(400 otherwise, and nothing of that nonce is kept). Records are checked one by one: a shard with invalid records is a 400 whose details ' +
          'name each record by index (data[12].partySize), at most 100 problems, and nothing of its nonce is kept (send every shard again). When every ' +
          "shard of a nonce has arrived, its records replace your previous snapshot in one transaction (`complete`, and an availability_feed.processed " +
          'webhook); a feed generated (`metadata.date`) before the current snapshot is `superseded`. A shard sent twice is a `duplicate`. ' +
          'A 409 on the last shard: records of earlier shards were lost by Tableside (a restart while the feed was incomplete); the snapshot is ' +
          'unchanged and nothing of that nonce is kept (send every shard again).',
        body: FeedBody,
        response: { 202: FeedAccepted, ...errorResponses('rms', [...AUTH_ERRORS, 409, 413, 415], {
          409: 'Records of earlier shards of this nonce were lost by Tableside; the snapshot is unchanged: send every shard again.',
          413: `Request body larger than ${FEED_BODY_LIMIT / 2 ** 20} MiB; nothing was processed.`,
          415: 'The body is not application/json.',
        }) },
      },
    },
    async (request, reply) => {
      const upload = request.body as unknown as FeedUpload | undefined;
      return reply.code(202).send(await feed.receive(principalOf(request).partnerId, upload?.stream, checkBody));
    },
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
