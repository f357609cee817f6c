import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, validationFailed, type FieldProblems } from '../lib/errors.ts';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { errorBody, errorHeaders, familyOf, sendError, unservedRequest } from './errors.ts';

// Input that must never reach a handler or the database, checked once for every route present and
// future (issue 15), so no route needs code of its own:
//   - text PostgreSQL cannot store (NUL) in a body, query or path parameter: 400 naming the field (ERR-06)
//   - URLs the router cannot decode, parameters longer than the router's limit: the envelope (ERR-07)
//   - requests Node's HTTP parser refuses (a NUL in a header, say): the envelope too (ERR-07)
//   - methods the service does not serve, including those Node's parser does not know (BREW) and
//     CONNECT (which Node hands to a 'connect' listener, not to Fastify): 403 on a path the API
//     has, 404 elsewhere, in the path's envelope (spec 7.1, ERR-05)
// No error body repeats the request's URL: it may carry what the caller should not see echoed.

/**
 * The router's limit on one path parameter, well above what any schema accepts (a 128-character
 * externalReference, percent-encoded as 4-byte UTF-8, is 1,536 characters), so every parameter
 * its schema accepts reaches validation (LIM-22) and a longer one is refused by the schema.
 */
export const MAX_PARAM_LENGTH = 2048;

export const NUL_PROBLEM = 'must not contain a NUL character (U+0000)';

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

/**
 * Whether `nulFields` would name anything, walking the same fields without writing their paths:
 * those paths and the key-value pairs were ~47 KB of the ~260 KB a 50-slot /v3 lookup allocated,
 * for a request that almost never holds a NUL (issue 28, sampled with collected objects).
 */
export function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (!value || typeof value !== 'object' || depth >= 64) return false;
  const isArray = Array.isArray(value);
  for (const key of Object.keys(value)) {
    if (!isArray && key.includes('\u0000')) return true;
    if (hasNul((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** The 400 for NULs anywhere in the parsed request, or null when there is none (ERR-06). */
export function nulProblems(request: Pick<FastifyRequest, 'params' | 'query' | 'body'>): AppError | null {
  const problems: FieldProblems = {};
  for (const part of [request.params, request.query, request.body]) {
    if (!hasNul(part)) continue;
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

/** Writes a whole answer on a socket Fastify does not handle, and closes it. */
function writeOnSocket(socket: Socket, status: number, headers: Record<string, string>, body: string): void {
  if (socket.writable) {
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}x-request-id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** An AppError answered on a socket, in the envelope of the family `path` belongs to. */
function answerOnSocket(socket: Socket, path: string, error: AppError): void {
  const family = familyOf(path);
  writeOnSocket(socket, error.status, errorHeaders(family, error), JSON.stringify(errorBody(family, error)));
}

/** The request line of a request Node's parser refused because of its method: `BREW /path HTTP/1.1`. */
const UNKNOWN_METHOD_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) (\/[^\s?#]*)[^\s]* HTTP\/1\.[01]\r?\n/;

/**
 * What Node's HTTP parser refuses never reaches Fastify's request handling: answer it in the
 * envelope. A method the parser does not know is still a method the API does not offer: 403 on a
 * path the API has, 404 elsewhere, like any other (ERR-05).
 */
export function clientErrorHandler(isKnownPath: (path: string) => boolean) {
  return (err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (err.code === 'HPE_INVALID_METHOD') {
      const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 4096).toString('latin1') : '';
      const line = UNKNOWN_METHOD_LINE.exec(raw);
      if (line) return answerOnSocket(socket, line[2], unservedRequest(line[1], line[2], isKnownPath));
    }
    const [status, message] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive.']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'The request headers are too large.']
          : [400, 'The request is malformed (its request line or a header could not be parsed).'];
    writeOnSocket(socket, status, {}, JSON.stringify({ error: { code: status, message, details: null } }));
  };
}

/**
 * CONNECT is never served (this is not a proxy): Node hands it to the server's 'connect' listeners
 * and, with none, drops the connection without a word. Answer it like any method not offered.
 */
export function connectHandler(isKnownPath: (path: string) => boolean) {
  return (req: IncomingMessage, socket: Socket): void => {
    const target = req.url ?? '';
    const path = target.startsWith('/') ? target.split('?')[0] : '';
    answerOnSocket(socket, path, unservedRequest('CONNECT', path, isKnownPath));
  };
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
