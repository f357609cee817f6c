import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';

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

  it('[DES-020] an unknown path → 404 with the envelope', async () => {
    for (const path of ['/v1/pat/nothing-here', '/v1/rms/unknown', '/nope', '/v2/pat/venues']) {
      const res = await app.http.get(path, { token: partner.token });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe(404);
      expect(res.headers['x-request-id']).toBeTruthy();
    }
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
