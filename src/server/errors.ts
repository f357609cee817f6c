import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { AppError, STATUS_OF, type ErrorKind } from '../lib/errors.ts';
import { fieldProblems } from '../lib/json-schema.ts';
import { ERROR_MESSAGE_MAX, OAUTH_ERROR_CODES, type OAuthErrorCode } from './schemas.ts';

// One error handler for the whole service. It maps every error to an AppError (the service's own
// errors through the mappings the composition root registers, Fastify's by their codes) and renders
// it in the envelope of the API family the path belongs to:
//   /v1/pat, /v1/rms, others  {"error":{"code":<status>,"message":…,"details":…}}
//   /v1/pat 401               {"error":"invalid_token","error_description":…} + WWW-Authenticate
//   /v1/pos 400               details.form.errors maps each offending field to its problems
//   /oauth/token              RFC 6749 errors {"error":…,"error_description":…}
// 5xx bodies say nothing about internals; the log has the error.

export type Family = 'pat' | 'analytics' | 'rms' | 'oauth' | 'platform';

export function familyOf(url: string): Family {
  if (url.startsWith('/v1/pat/') || url === '/v1/pat') return 'pat';
  if (url.startsWith('/v1/pos/') || url === '/v1/pos') return 'analytics';
  if (url.startsWith('/v1/rms/') || url === '/v1/rms') return 'rms';
  if (url.startsWith('/oauth/')) return 'oauth';
  return 'platform';
}

const DEFAULT_MESSAGE: Record<number, string> = {
  400: 'The request is invalid.',
  401: 'Authentication failed.',
  403: 'Forbidden.',
  404: 'Not found.',
  405: 'This method is not allowed on this path.',
  406: 'Not acceptable.',
  408: 'The request took too long.',
  409: 'Conflict.',
  413: 'The request body is too large.',
  415: 'Unsupported content type.',
  422: 'The request cannot be processed.',
  429: 'Too many requests.',
  500: 'Internal server error.',
  502: 'Bad gateway.',
  503: 'Service unavailable.',
};

const KIND_OF_STATUS = Object.fromEntries(Object.entries(STATUS_OF).map(([kind, status]) => [status, kind])) as Record<
  number,
  ErrorKind
>;

/**
 * Turns an error a module throws (not an AppError) into the AppError it means over HTTP, or null
 * when it does not know the error. The platform knows no module's errors: the composition root
 * registers these (a POS that fails while a request needs it is a 502, say).
 */
export type ErrorMapping = (err: Error) => AppError | null;

/** Fastify's own errors (parsing, limits, validation) and mapped ones as AppErrors; anything unknown is internal. */
export function toAppError(err: FastifyError | AppError | Error, mappings: readonly ErrorMapping[] = []): AppError {
  if (err instanceof AppError) return err;
  for (const mapping of mappings) {
    const mapped = mapping(err);
    if (mapped) return mapped;
  }
  // A database restart or outage is a moment's unavailability the caller may retry, not a 500 (ERR-08).
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  const fe = err as FastifyError;
  if (fe.validation) {
    const problems = fieldProblems(fe.validation as any);
    return new AppError('validation', 'The request is invalid.', problems);
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is larger than the limit of 1 MiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'The Content-Type of the request is not supported; send application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('bad_request', 'The request body is empty but its Content-Type says JSON.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('bad_request', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('bad_request', 'The Content-Length of the request does not match its body.');
  }
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // A JSON syntax error from the body parser, a bad header, an aborted upload…
    const message = err instanceof SyntaxError ? 'The request body is not valid JSON.' : (DEFAULT_MESSAGE[status] ?? 'The request is invalid.');
    return new AppError(KIND_OF_STATUS[status] ?? 'bad_request', message);
  }
  return new AppError('internal', DEFAULT_MESSAGE[500]);
}

/** Seconds a client is asked to wait before retrying while the database is unavailable. */
export const DATABASE_RETRY_AFTER_S = 5;

export function databaseUnavailable(): AppError {
  return new AppError(
    'unavailable',
    'The service cannot reach its database just now; nothing was lost. Retry the request shortly; a payment retried ' +
      'with the same externalReference is never recorded twice.',
    null,
    { 'retry-after': String(DATABASE_RETRY_AFTER_S) },
  );
}

/** What the body says: no NUL (the document's pattern), at most ERROR_MESSAGE_MAX characters. */
function sendable(text: string): string {
  const clean = text.replace(/\u0000/g, '');
  return clean.length > ERROR_MESSAGE_MAX ? `${clean.slice(0, ERROR_MESSAGE_MAX - 1)}…` : clean;
}

/**
 * The body of an error in the envelope of the API family `path` belongs to (see the top of this
 * file); also used for answers written before Fastify sees a request (input-guards.ts).
 */
export function errorBody(family: Family, error: AppError): Record<string, unknown> {
  const status = error.status;
  if (family === 'pat' && status === 401) return { error: 'invalid_token', error_description: sendable(error.message) };
  if (family === 'oauth') {
    let description = error.message;
    if (error.kind === 'validation' && error.details) {
      description += ` ${Object.entries(error.details).map(([field, problems]) => `${field} ${(problems as string[]).join(', ')}`).join('; ')}.`;
    }
    const given = error.details?.oauthError;
    const code = OAUTH_ERROR_CODES.includes(given as OAuthErrorCode) ? (given as OAuthErrorCode) : oauthCode(status);
    return { error: code, error_description: sendable(description) };
  }
  let details = error.details;
  if (family === 'analytics' && error.kind === 'validation' && details) details = { form: { errors: details } };
  return { error: { code: status, message: sendable(error.message), details: details ?? null } };
}

/**
 * Headers an error answer carries besides the error's own: `Retry-After` on every 429 and 503 (so a
 * client always knows when to come back), `WWW-Authenticate` on a /v1/pat 401 (RFC 6750 3).
 */
export function errorHeaders(family: Family, error: AppError): Record<string, string> {
  const headers = { ...error.headers };
  if ((error.status === 429 || error.status === 503) && headers['retry-after'] === undefined) {
    headers['retry-after'] = String(DATABASE_RETRY_AFTER_S);
  }
  if (family === 'pat' && error.status === 401) {
    headers['www-authenticate'] = `Bearer error="invalid_token", error_description="${sendable(error.message).replace(/["\\]/g, "'")}"`;
  }
  return headers;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const family = familyOf(request.url);
  return reply.code(error.status).headers(errorHeaders(family, error)).send(errorBody(family, error));
}

function oauthCode(status: number): OAuthErrorCode {
  if (status === 401) return 'invalid_client';
  if (status === 429) return 'slow_down';
  if (status >= 500) return 'server_error';
  return 'invalid_request';
}

/**
 * A request no route serves: 403 when its path exists with other methods (spec 7.1, ERR-05), 404
 * when the path does not exist (DES-020). Neither repeats the path (ERR-07): it is the caller's input.
 */
export function unservedRequest(method: string, path: string, isKnownPath: (path: string) => boolean): AppError {
  const shown = /^[A-Z][A-Z0-9_-]{0,31}$/i.test(method) ? method.toUpperCase() : 'this';
  return path.startsWith('/') && isKnownPath(path)
    ? new AppError('forbidden', `The method ${shown} is not allowed on this path.`)
    : new AppError('not_found', `No route matches ${shown} on this path.`);
}

export function registerErrorHandling(app: FastifyInstance, isKnownPath: (path: string) => boolean, mappings: readonly ErrorMapping[] = []): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    // A request no route serves answers 403/404 whatever went wrong while reading it: Fastify
    // refuses a QUERY without a Content-Type (RFC 10008), or a body it cannot parse, before the
    // not-found handler runs; the method is not served either way (ERR-05).
    if (request.is404) return sendError(request, reply, unservedRequest(request.method, request.url.split('?')[0], isKnownPath));
    const appError = toAppError(err, mappings);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ status: appError.status, reason: appError.message }, 'request refused');
    return sendError(request, reply, appError);
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, unservedRequest(request.method, request.url.split('?')[0], isKnownPath)));
}
