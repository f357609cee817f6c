import createClient, { createQuerySerializer, type Middleware } from 'openapi-fetch';
import { authorizationFor, familyOf, TokenSource, type Credentials } from './auth.js';
import { templatePathSerializer } from './path.js';
import { backoffMs, DEFAULT_RETRY, isNetworkError, isRetrySafe, RETRY_STATUSES, retryAfterMs, sleep, type RetryOptions } from './retry.js';
import type { TablesideClient } from './types.js';

// createTablesideClient: an openapi-fetch client for the whole API with
//  - middleware (client.use) that sends each path family its credential and gives every booking
//    create an Idempotency-Key;
//  - a transport under it (the `fetch` openapi-fetch calls) that retries what is safe to retry and
//    replaces a refused access token once. It sits below the middleware so that every attempt is
//    the request exactly as it was first sent (same key, same body).

export interface TablesideClientOptions extends Credentials {
  /** e.g. `https://localhost:8443` (the sandbox of `npm start`). */
  baseUrl: string;
  /** A fetch to send requests with (default globalThis.fetch): to trust a private CA, trace, or test. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries of safe requests (see README); `false` turns them off. */
  retry?: Partial<RetryOptions> | false;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The clock token expiry is measured with (tests). */
  now?: () => number;
}

export function createTablesideClient(options: TablesideClientOptions): TablesideClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retry: RetryOptions = options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...(options.retry ?? {}) };
  const now = options.now ?? Date.now;

  const pathOf = (url: string) => {
    const { pathname } = new URL(url);
    return basePath && pathname.startsWith(basePath) ? pathname.slice(basePath.length) : pathname;
  };

  // This runs on every request, so the common read (a GET with no body) takes the short way: it is
  // safe without parsing its URL or looking at a body, and its token is read only when the client
  // can replace it (bench/sdk.ts measures the SDK's CPU per call against raw fetch).
  /** One logical request: its attempts, each a fresh copy of the request as first sent. */
  async function transport(request: Request, forceSafe = false): Promise<Response> {
    const method = request.method;
    const read = method === 'GET' || method === 'HEAD';
    let bearer: string | null = null;
    if (tokens.canRefresh) {
      const auth = request.headers.get('authorization');
      bearer = auth?.startsWith('Bearer ') ? auth.slice(7) : null;
    }
    const managed = bearer !== null && bearer === tokens.peek();
    const hasBody = !read && request.body !== null;
    const template = hasBody ? request.clone() : request;
    let safe = forceSafe || read;
    if (!safe) {
      const verdict = isRetrySafe(method, pathOf(request.url), request.headers, () => template.clone().text());
      safe = typeof verdict === 'boolean' ? verdict : await verdict;
    }
    if (!safe && !managed) return send(request);

    let attempt = 0;
    let refreshed = false;
    let current = request;
    let token = bearer;
    for (;;) {
      let response: Response;
      try {
        response = await send(current);
      } catch (err) {
        if (!safe || attempt >= retry.retries || !isNetworkError(err, request.signal)) throw err;
        await sleep(backoffMs(attempt++, retry), request.signal);
        current = withToken(copyOf(template, hasBody), token);
        continue;
      }
      if (response.status === 401 && managed && !refreshed) {
        refreshed = true;
        const next = await tokens.refresh(token!);
        if (next) {
          await response.body?.cancel();
          token = next;
          current = withToken(copyOf(template, hasBody), token);
          continue;
        }
      }
      if (safe && RETRY_STATUSES.has(response.status) && attempt < retry.retries) {
        const wait = retryAfterMs(response.headers.get('retry-after'), now()) ?? backoffMs(attempt, retry);
        if (wait > retry.maxRetryAfterMs) return response;
        await response.body?.cancel();
        await sleep(wait, request.signal);
        attempt++;
        current = withToken(copyOf(template, hasBody), token);
        continue;
      }
      return response;
    }
  }

  const tokens = new TokenSource({ baseUrl, credentials: options, send: (r) => transport(r, true), now });

  const idempotencyKey = (request: Request, schemaPath: string) => {
    if (request.method === 'POST' && schemaPath === '/v1/bc/bookings' && !request.headers.get('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
  };
  const credentials: Middleware = {
    // Not async: with a current token (the common case) nothing here waits, and a promise is made
    // only when a token has to be fetched first.
    onRequest({ request, schemaPath }) {
      idempotencyKey(request, schemaPath);
      if (request.headers.has('authorization')) return undefined;
      const value = authorizationFor(familyOf(schemaPath), options, tokens);
      if (value instanceof Promise) {
        return value.then((v) => {
          if (v) request.headers.set('authorization', v);
          return undefined;
        });
      }
      if (value) request.headers.set('authorization', value);
      return undefined;
    },
  };

  const client = createClient({
    baseUrl,
    fetch: (r: Request) => transport(r),
    headers: options.headers,
    // openapi-fetch's own serializers, made once: by default it makes the query serializer anew on
    // every call, and matches the path template with a regular expression on every call.
    querySerializer: createQuerySerializer(),
    pathSerializer: templatePathSerializer(),
  }) as unknown as TablesideClient;
  client.use(credentials);
  return client;
}

/** Another attempt of the request as first sent (a function, not a closure made on every call). */
function copyOf(template: Request, hasBody: boolean): Request {
  return hasBody ? template.clone() : new Request(template);
}

function withToken(request: Request, token: string | null): Request {
  if (token !== null) request.headers.set('authorization', `Bearer ${token}`);
  return request;
}
