import { Ajv2020 } from 'ajv/dist/2020.js';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { FailureLimiter } from '../../src/auth/failure-limiter.ts';
import { createLogger } from '../../src/server/logger.ts';
import { registerOpenApi, RESPONSE_HEADERS } from '../../src/server/openapi.ts';
import { createPlatform } from '../../src/server/platform.ts';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import { testTls, type HttpResponse } from '../helpers/http.ts';

// What the platform declares in the document for every operation (issue 17), and that the errors it
// sends itself match what it declares: status, body schema, headers.

type Json = Record<string, any>;
let app: TestApp;
let partner: TestPartner;
let doc: Json;

beforeAll(async () => {
  app = await startTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MIN: '3' } });
  partner = await app.newPartner(['rms', 'pat', 'analytics']);
  doc = (await app.http.get('/openapi.json')).body;
});
afterAll(async () => {
  await app?.close();
});

const operations = () =>
  Object.entries<Json>(doc.paths).flatMap(([path, ops]) => Object.entries<Json>(ops).map(([method, op]) => ({ path, method, op, where: `${method} ${path}` })));
const headerNames = (response: Json) => Object.keys(response.headers ?? {});
const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];

describe('the document', () => {
  it('[DES-010] states its contact, its server audience, and defines every tag an operation uses, with a description', () => {
    expect(doc.info.contact).toEqual({ name: expect.any(String), url: expect.stringMatching(/^https:\/\/.+\/docs$/) });
    expect(doc.servers).toEqual([{ url: app.url.replace('127.0.0.1', 'localhost'), 'x-internal': false }]);
    expect(doc.tags.map((t: Json) => t.name).sort()).toEqual(
      ['analytics', 'auth', 'booking-server-v3', 'channels', 'content', 'operations', 'pay-at-table', 'reservations', 'rms', 'webhooks'].sort(),
    );
    for (const tag of doc.tags) expect(tag.description, tag.name).toBeTruthy();
    const defined = new Set(doc.tags.map((t: Json) => t.name));
    for (const { op, where } of operations()) {
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const tag of op.tags) expect(defined.has(tag), `${where}: ${tag}`).toBe(true);
    }
  });

  it('[DES-010] a path parameter says whose id it is: the seating paths take {externalId} (the RMS\'s id), the content paths {venueId} (Tableside\'s)', () => {
    for (const path of ['/v1/rms/venues/{externalId}/pos-tables', '/v1/rms/venues/{externalId}/pos-connection']) {
      const op = Object.values<Json>(doc.paths[path] ?? {})[0];
      expect(op?.parameters?.map((p: Json) => p.name), path).toEqual(['externalId']);
    }
    expect(Object.keys(doc.paths).filter((p) => /\/v1\/rms\/venues\/\{venueId\}\/pos-/.test(p))).toEqual([]);
  });

  it('[DES-010] rules that only descriptions stated are the schemas\' (issue 30): what a generator reads is what the validator enforces', () => {
    const body = (path: string, method = 'post') => doc.paths[path][method].requestBody.content['application/json'].schema;
    const resolve = (schema: Json): Json => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
    // Google CreateBooking: the party size and the guest's names are required, the service is "dining".
    const create = resolve(body('/v3/CreateBooking'));
    const slot = resolve(create.properties.slot);
    expect(slot.required).toContain('resources');
    expect(resolve(slot.properties.resources).required).toContain('party_size');
    expect(resolve(slot.properties.service_id).enum).toEqual(['dining']); // a const, as the document writes it
    expect(resolve(create.properties.user_information).required).toEqual(expect.arrayContaining(['given_name', 'family_name']));
    // Webhook endpoints: an https URL (or the sandbox's loopback http), at least one type of the catalogue, each once.
    const endpoint = resolve(body('/v1/webhooks/endpoints'));
    expect(new RegExp(endpoint.properties.url.pattern).test('https://hooks.example.com/t')).toBe(true);
    expect(new RegExp(endpoint.properties.url.pattern).test('ftp://hooks.example.com/t')).toBe(false);
    expect(endpoint.properties.events).toMatchObject({ minItems: 1, uniqueItems: true });
    expect(endpoint.properties.events.items.enum).toContain('payment.confirmed');
    // Booking services: an https base URL.
    const services = resolve(body('/v1/rms/booking-services', 'put'));
    expect(new RegExp(services.properties.baseUrl.pattern).test('http://rms.example.com')).toBe(false);
    expect(new RegExp(services.properties.baseUrl.pattern).test('https://rms.example.com/api')).toBe(true);
    // Notices: entityId or entity_id; a channel's change: partySize or start.
    expect(resolve(body('/v1/rms/notifications')).anyOf).toEqual([{ required: ['entityId'] }, { required: ['entity_id'] }]);
    expect(resolve(body('/v1/bc/bookings/{bookingId}', 'put')).anyOf).toEqual([{ required: ['partySize'] }, { required: ['start'] }]);
    // The availability feed's generation time: ISO 8601 with an offset, or Unix seconds.
    const feedDate = new RegExp(resolve(body('/v1/rms/availability-feed')).properties.metadata.properties.date.pattern);
    for (const ok of ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00.123+01:00', '1767225600']) expect(feedDate.test(ok), ok).toBe(true);
    for (const bad of ['yesterday', '2026-03-01', '2026-03-01T10:00:00']) expect(feedDate.test(bad), bad).toBe(false);
    // Money: the largest amount any currency takes.
    expect(resolve(body('/v1/pat/venue/{venueId}/order/{orderId}/payment')).properties.amount.maximum).toBe(999_999_999_999_999);
  });

  it('[DES-010] the access token is described as it is: opaque (not a JWT), client credentials, 1 hour, no refresh token', () => {
    const scheme = doc.components.securitySchemes.accessToken;
    expect(scheme.flows).toEqual({ clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } });
    expect(scheme.description).toMatch(/opaque/);
    expect(scheme.description).toMatch(/not a JWT/);
    expect(scheme.description).toMatch(/RFC8725/);
    expect(scheme.description).toMatch(/1 hour/);
    expect(scheme.description).toMatch(/no refresh token/);
    expect(doc.components.securitySchemes.channelBasic).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('every operation declares a 400, a 500 and a 503 in its family envelope, x-request-id on every response, Retry-After on 429 and 503', () => {
    for (const { path, op, where } of operations()) {
      const body = path.startsWith('/oauth/') ? '#/components/schemas/OAuthError' : '#/components/schemas/ErrorEnvelope';
      for (const status of ['400', '500', '503']) {
        expect(op.responses[status]?.content?.['application/json']?.schema?.$ref, `${where} ${status}`).toBe(body);
      }
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        expect(response.headers?.['x-request-id'], `${where} ${status}`).toEqual({ $ref: '#/components/headers/x-request-id' });
        if (status === '429' || status === '503') expect(headerNames(response), `${where} ${status}`).toContain('Retry-After');
      }
    }
    for (const [name, header] of Object.entries<Json>(doc.components.headers)) {
      expect(header, name).toEqual(RESPONSE_HEADERS[name as keyof typeof RESPONSE_HEADERS]);
    }
  });

  it('[DES-031] the RateLimit headers on every response of every credential-taking operation (and /oauth/token), none on the health probes', () => {
    for (const { path, op, where } of operations()) {
      const limited = (op.security?.length ?? 0) > 0 || path === '/oauth/token';
      if (path === '/healthz' || path === '/readyz') expect(limited, where).toBe(false);
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (limited) expect(headerNames(response), `${where} ${status}`).toEqual(expect.arrayContaining(RATE_LIMIT));
        else expect(headerNames(response), `${where} ${status}`).not.toContain('RateLimit-Limit');
      }
      if (limited) expect(Object.keys(op.responses), where).toContain('429');
    }
  });

  it('WWW-Authenticate on the 401s that send it: /v1/pat (RFC 6750), the HTTP Basic routes, /oauth/token; the headers routes send themselves', () => {
    for (const { path, op, where } of operations()) {
      const basic = (op.security ?? []).some((s: Json) => 'channelBasic' in s);
      if (op.responses['401'] && (path.startsWith('/v1/pat/') || basic || path === '/oauth/token')) {
        expect(headerNames(op.responses['401']), where).toContain('WWW-Authenticate');
      } else if (op.responses['401']) {
        expect(headerNames(op.responses['401']), where).not.toContain('WWW-Authenticate');
      }
    }
    const pay = doc.paths['/v1/pat/venue/{venueId}/order/{orderId}/payment'].post.responses;
    expect(headerNames(pay['200'])).toContain('X-Idempotent-Replay');
    expect(headerNames(pay['202'])).toContain('X-Idempotent-Replay');
    expect(headerNames(doc.paths['/v1/rms/venues/external/{externalId}'].put.responses['200'])).toContain('x-venue-created');
    expect(headerNames(doc.paths['/oauth/token'].post.responses['200'])).toEqual(expect.arrayContaining(['Cache-Control', 'Pragma']));
  });

  it('the OpenAPI 3.1 webhooks section is what the composition root hands the platform', async () => {
    const webhooks = { 'payment.confirmed': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { 200: { description: 'ok' } } } } };
    const bare = Fastify();
    await registerOpenApi(bare, { publicBaseUrl: 'https://example.test', webhooks });
    await bare.ready();
    expect((bare.swagger() as Json).webhooks).toEqual(webhooks);
    await bare.close();
  });
});

describe('errors the platform sends match what the document declares', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, validateSchema: false });
  beforeAll(() => {
    ajv.addSchema(doc, 'doc');
  });
  const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  /** The answer's status is declared for the operation, its body matches, its required headers are there. */
  function conforms(res: HttpResponse, path: string, method: string, where: string) {
    const response = doc.paths[path]?.[method]?.responses?.[String(res.status)];
    expect(response, `${where}: ${res.status} is declared`).toBeDefined();
    const validate = ajv.compile({ $ref: `doc#/${pointer('paths', path, method, 'responses', String(res.status), 'content', 'application/json', 'schema')}` });
    expect(validate(res.body), `${where}: ${JSON.stringify(validate.errors)} for ${res.text}`).toBe(true);
    for (const name of headerNames(response)) {
      const header = doc.components.headers[name];
      if (header.required) expect(res.headers[name.toLowerCase()], `${where}: header ${name}`).toBeDefined();
    }
  }

  it('[ERR-01] [DES-031] the auth answers of every family (401, 403, 429), /oauth/token errors, a NUL on a health probe, in their envelopes', async () => {
    const badPat = await app.http.get('/v1/pat/venues', { token: 'tat_wrongwrongwrongwrongwrong' });
    expect(badPat.body.error).toBe('invalid_token');
    conforms(badPat, '/v1/pat/venues', 'get', 'pat 401');
    conforms(await app.http.get('/v1/pat/venues'), '/v1/pat/venues', 'get', 'pat 403');
    conforms(await app.http.get('/v1/pos/partner/venues', { token: 'tat_wrongwrongwrongwrongwrong' }), '/v1/pos/partner/venues', 'get', 'analytics 401');
    const limited = await app.http.get('/v1/rms/company', { token: 'tsk_wrongwrongwrongwrongwrong' });
    expect(limited.status).toBe(429);
    conforms(limited, '/v1/rms/company', 'get', 'rms 429');
    conforms(await app.http.get('/v1/pat/venues', { token: 'tat_wrongwrongwrongwrongwrong' }), '/v1/pat/venues', 'get', 'pat 429');
    const oauthLimited = await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: 'tci_x', client_secret: 'tcs_x' } });
    expect(oauthLimited.body.error).toBe('slow_down');
    conforms(oauthLimited, '/oauth/token', 'post', 'oauth 429');
    conforms(await app.http.post('/oauth/token', { body: { grant_type: 'password' } }), '/oauth/token', 'post', 'oauth 400');
    conforms(await app.http.get('/healthz', { query: { x: 'a\u0000b' } }), '/healthz', 'get', 'healthz 400');
    const ok = await app.http.get('/v1/pat/venues', { token: partner.token });
    conforms(ok, '/v1/pat/venues', 'get', 'pat 200');
  });

  it('[ERR-08] a request that reaches the server while it shuts down gets a 503 in the envelope with Retry-After (not Fastify\'s own body)', async () => {
    // A bare platform with one slow route: a second request pipelined behind it on the same
    // connection is read only after close() began.
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const platform = await createPlatform({
      config: { trustProxy: false, publicBaseUrl: 'https://localhost' },
      db: { kysely: undefined as never, pglite: undefined, pool: undefined as never },
      tls: testTls(),
      log: createLogger('silent'),
      authenticator: { authenticateKey: async () => ({ ok: false, failure: 'unknown' }), authenticateToken: async () => ({ ok: false, failure: 'unknown' }) },
      // No route here takes a credential, so the throttle never reaches its (absent) database.
      throttle: new FailureLimiter(undefined as never, 60),
      errorMappings: [],
    });
    platform.get('/slow', async () => {
      entered();
      await held;
      return { ok: true };
    });
    await platform.listen({ port: 0, host: '127.0.0.1' });
    const port = (platform.server.address() as AddressInfo).port;
    // Both requests in one write, the connection left open (a half-closed one is not read on).
    const socket = tls.connect({ host: '127.0.0.1', port, ca: testTls().cert, servername: 'localhost' });
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('secureConnect', () => socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    await inside;
    const closed = platform.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write('GET /v1/pat/venues HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5000))]);
    socket.destroy();
    await closed;
    const text = Buffer.concat(chunks).toString('utf8');
    const answers = [...text.matchAll(/HTTP\/1\.1 (\d{3})[^]*?\r\n\r\n/g)];
    expect(answers.map((a) => a[1]), text).toEqual(['200', '503']);
    const second = text.slice(answers[1].index);
    expect(JSON.parse(second.split('\r\n\r\n')[1])).toEqual({ error: { code: 503, message: expect.stringMatching(/shutting down/), details: null } });
    expect(second).toMatch(/\r\nretry-after: 5\r\n/i);
    expect(second).toMatch(/\r\nx-request-id: /i);
  });
});
