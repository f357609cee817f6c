import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, validationFailed, type FieldProblems } from '../lib/errors.ts';
import { sendError } from './errors.ts';

// Input that must never reach a handler or the database, checked once for every route present and
// future (issue 15), so no route needs code of its own:
//   - text PostgreSQL cannot store (NUL) in a body, query or path parameter: 400 naming the field (ERR-06)
//   - URLs the router cannot decode, parameters longer than the router's limit: the envelope (ERR-07)
//   - requests Node's HTTP parser refuses (a NUL in a header, say): the envelope too (ERR-07)
// No error body repeats the request's URL: it may carry what the caller should not see echoed.

/**
 * The router's limit on one path parameter, well above what any schema accepts (a 128-character
 * externalReference, percent-encoded as 4-byte UTF-8, is 1,536 characters), so every parameter
 * its schema accepts reaches validation (LIM-22) and a longer one is refused by the schema.
 */
export const MAX_PARAM_LENGTH = 2048;

const NUL_PROBLEM = 'must not contain a NUL character (U+0000)';

/** Every field under `value` holding a NUL, by name (`items[0].sku`, keys included). */
export function nulFields(value: unknown, path = '', out: string[] = [], depth = 0): string[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push(path || 'body');
  } else if (value && typeof value === 'object' && depth < 64) {
    const isArray = Array.isArray(value);
    for (const [key, inner] of Object.entries(value)) {
      const name = isArray ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (!isArray && key.includes('\u0000')) out.push(name);
      nulFields(inner, name, out, depth + 1);
    }
  }
  return out;
}

/** The 400 for NULs anywhere in the parsed request, or null when there is none (ERR-06). */
export function nulProblems(request: Pick<FastifyRequest, 'params' | 'query' | 'body'>): AppError | null {
  const problems: FieldProblems = {};
  for (const part of [request.params, request.query, request.body]) {
    for (const field of nulFields(part)) problems[field] = [NUL_PROBLEM];
  }
  return Object.keys(problems).length ? validationFailed(problems) : null;
}

/** Router errors Fastify would otherwise answer in its own shape, echoing the URL. */
export function frameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', request.id);
  const error =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('bad_request', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`)
      : err.code === 'FST_ERR_BAD_URL'
        ? new AppError('bad_request', 'The URL is malformed: a path segment is not valid percent-encoding.')
        : new AppError('bad_request', 'The request is invalid.');
  request.log.info({ code: err.code }, 'request refused by the router');
  return sendError(request, reply, error);
}

/** What Node's HTTP parser refuses never reaches Fastify's request handling: answer it in the envelope. */
export function clientErrorHandler(err: NodeJS.ErrnoException & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request took too long to arrive.']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
        : [400, 'Bad Request', 'The request is malformed (its request line or a header could not be parsed).'];
  const body = JSON.stringify({ error: { code: status, message, details: null } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function registerInputGuards(app: FastifyInstance): void {
  // preValidation: after parsing, before schema validation and the handler; on every route.
  // The API's operations, i.e. every route in the OpenAPI document. Pages hidden from it (the
  // onboarding form, which answers its own HTML error for the same input) check their own fields.
  app.addHook('preValidation', async (request, reply) => {
    if ((request.routeOptions.schema as { hide?: boolean } | undefined)?.hide) return;
    const refused = nulProblems(request);
    if (refused) return sendError(request, reply, refused);
  });
}
