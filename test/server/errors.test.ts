import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import { rawRequest } from '../helpers/raw-http.ts';

let app: TestApp;
let partner: TestPartner;

beforeAll(async () => {
  app = await startTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MIN: '1000000' } });
  partner = await app.newPartner(['rms', 'pat', 'analytics']);
});
afterAll(async () => {
  await app?.close();
});

const countTokens = async () => (await sql<{ n: number }>`SELECT count(*) AS n FROM access_tokens`.execute(app.db.kysely)).rows[0].n;

describe('routing errors', () => {
  it('[ERR-05] [DES-019] a method the API does not offer on an existing path → 403 with the envelope', async () => {
    for (const [method, path, token] of [
      ['DELETE', '/v1/pat/venues', partner.token],
      ['POST', '/v1/rms/booking-channels', partner.apiKey!],
      ['POST', '/v1/pos/partner/venues', partner.token],
      ['PATCH', '/v1/pat/venues', partner.token],
    ] as const) {
      const res = await app.http.request(method, path, { token, body: method === 'DELETE' ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ error: { code: 403, message: expect.stringMatching(/not allowed/), details: null } });
    }
  });

  it('[ERR-05] [DES-019] a method not offered is a 403 whatever the length of the path parameter (150 and 2,000 characters, as for the served methods)', async () => {
    for (const length of [101, 150, 2000]) {
      const id = 'x'.repeat(length);
      const res = await app.http.request('PATCH', `/v1/pat/venue/${id}/tables`, { token: partner.token, body: {} });
      expect(res.status, `${length} characters`).toBe(403);
      expect(res.body.error.message).toMatch(/not allowed/);
    }
  });

  it('[DES-020] an unknown path → 404 with the envelope', async () => {
    for (const path of ['/v1/pat/nothing-here', '/v1/rms/unknown', '/nope', '/v2/pat/venues']) {
      const res = await app.http.get(path, { token: partner.token });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe(404);
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });
});

describe('methods the service does not serve', () => {
  // Paths of every family: [path, the path exists, the family's envelope].
  const PATHS = [
    ['/v1/pat/venues', true, 'nested'],
    ['/v1/pos/partner/venues', true, 'nested'],
    ['/v1/rms/company', true, 'nested'],
    ['/v1/webhooks/endpoints', true, 'nested'],
    ['/v3/HealthCheck', true, 'nested'],
    ['/healthz', true, 'nested'],
    ['/oauth/token', true, 'oauth'],
    ['/v1/pat/nothing-here', false, 'nested'],
    ['/oauth/nothing-here', false, 'oauth'],
    ['/nope', false, 'nested'],
  ] as const;
  const BODIES = [
    ['no body', ''],
    ['a JSON body', '{"a":1}'],
    ['a body that is not JSON', '{"a":'],
    ['a text body', 'hello'],
  ] as const;

  const send = (method: string, path: string, token: string, body: string, type: string) => {
    const head =
      `${method} ${path} HTTP/1.1\nHost: ${new URL(app.url).host}\nConnection: close\nAuthorization: Bearer ${token}` +
      (body ? `\nContent-Type: ${type}\nContent-Length: ${Buffer.byteLength(body)}` : '');
    return rawRequest(app.url, head, body);
  };

  it('[ERR-05] [DES-019] [DES-020] QUERY (RFC 10008), PROPFIND, LOCK, SEARCH and a method Node does not know, with or without a body → 403 on a path the API has, 404 elsewhere, in the family envelope', async () => {
    for (const method of ['QUERY', 'PROPFIND', 'LOCK', 'SEARCH', 'BREW']) {
      for (const [path, exists, envelope] of PATHS) {
        for (const [what, body] of BODIES) {
          const res = await send(method, path, path.startsWith('/v1/rms') ? partner.apiKey! : partner.token, body, body === 'hello' ? 'text/plain' : 'application/json');
          const where = `${method} ${path} with ${what}`;
          const status = exists ? 403 : 404;
          expect(res.status, where).toBe(status);
          expect(res.headers['x-request-id'], where).toBeTruthy();
          const parsed = JSON.parse(res.body);
          if (envelope === 'oauth') {
            expect(parsed, where).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(exists ? /not allowed/ : /No route/) });
          } else {
            expect(parsed, where).toEqual({ error: { code: status, message: expect.stringMatching(exists ? /not allowed/ : /No route/), details: null } });
          }
          expect(res.body, where).not.toContain(path);
        }
      }
    }
  });

  it('[ERR-05] CONNECT (this is not a proxy) → 403 on a path the API has, 404 on anything else, instead of a dropped connection', async () => {
    for (const [target, status] of [['/v1/pat/venues', 403], ['/v1/rms/company', 403], ['/nope', 404], ['example.com:443', 404]] as const) {
      const res = await rawRequest(app.url, `CONNECT ${target} HTTP/1.1\nHost: ${new URL(app.url).host}`);
      expect(res.status, target).toBe(status);
      expect(JSON.parse(res.body), target).toEqual({ error: { code: status, message: expect.any(String), details: null } });
      expect(res.headers['x-request-id'], target).toBeTruthy();
    }
    const oauth = await rawRequest(app.url, `CONNECT /oauth/token HTTP/1.1\nHost: ${new URL(app.url).host}`);
    expect(oauth.status).toBe(403);
    expect(JSON.parse(oauth.body)).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('[ERR-05] a served method is unaffected: QUERY is served nowhere, but GET, POST and HEAD still reach their routes', async () => {
    expect((await app.http.get('/v1/pat/venues', { token: partner.token })).status).toBe(200);
    expect((await app.http.request('HEAD', '/v1/pat/venues', { token: partner.token })).status).toBe(200);
    const token = await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: partner.clientId, client_secret: partner.clientSecret } });
    expect(token.status).toBe(200);
  });
});

describe('bad input', () => {
  it('[DES-021] [DES-018] malformed JSON, a wrong content type and an empty JSON body get a 4xx envelope, never a 5xx or a stack', async () => {
    const cases = [
      { body: '{"grant_type": ', type: 'application/json', status: 400 },
      { body: 'grant_type=client_credentials', type: 'text/plain', status: 415 },
      { body: '', type: 'application/json', status: 400 },
      { body: '[1,2', type: 'application/json; charset=utf-8', status: 400 },
    ];
    for (const c of cases) {
      const res = await app.http.post('/oauth/token', { body: c.body, headers: { 'content-type': c.type } });
      expect(res.status, JSON.stringify(c)).toBe(c.status);
      expect(res.text).not.toMatch(/at .*\.ts:\d+|SELECT|INSERT|stack/i);
    }
  });

  it('[DES-021] garbage query parameters on every list → 400 naming the field, never 5xx', async () => {
    for (const [path, token] of [
      ['/v1/pat/venues', partner.token],
      ['/v1/rms/booking-channels', partner.apiKey!],
    ]) {
      for (const query of [{ limit: 'abc' }, { offset: '1.5' }, { offset: '-1' }, { limit: '1e400' }, { limit: '99999999999999999999' }]) {
        const res = await app.http.get(path, { token, query });
        expect(res.status, `${path} ${JSON.stringify(query)}`).toBe(400);
        expect(Object.keys(res.body.error.details)).toEqual(Object.keys(query));
      }
    }
  });

  it('[ERR-03] [DES-117] a 400 names every offending field, and error.code equals the HTTP status', async () => {
    const res = await app.http.get('/v1/pat/venues', { token: partner.token, query: { limit: 'x', offset: '-3' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(400);
    expect(res.body.error.details).toEqual({ limit: [expect.any(String)], offset: [expect.any(String)] });
  });

  it('[DES-022] [DES-140] a body over 1 MiB → 413 with the envelope, and nothing is processed', async () => {
    const p = await app.newPartner(['pat']);
    const before = await countTokens();
    const huge = JSON.stringify({ grant_type: 'client_credentials', client_id: p.clientId, client_secret: p.clientSecret, pad: 'x'.repeat(1024 * 1024) });
    const res = await app.http.post('/oauth/token', { body: huge });
    expect(res.status).toBe(413);
    expect(await countTokens()).toBe(before);
    const patRes = await app.http.request('POST', '/v1/pat/venues', { token: partner.token, body: { pad: 'x'.repeat(1024 * 1024 + 10) } });
    expect(patRes.status).toBe(413);
    expect(patRes.body).toEqual({ error: { code: 413, message: expect.any(String), details: null } });
  });

  it('[DES-023] unknown JSON fields are ignored; [DES-024] a field of the wrong type is rejected with 400', async () => {
    const p = await app.newPartner(['pat']);
    const ok = await app.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: p.clientId, client_secret: p.clientSecret, colour: 'blue', nested: { a: 1 } },
    });
    expect(ok.status).toBe(200);
    const wrong = await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: 12345, client_secret: p.clientSecret } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error_description).toMatch(/client_id/);
  });
});
