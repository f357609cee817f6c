import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';

// Every API family x {no header, malformed header, unknown credential, expired, revoked, wrong
// access kind}. The routes come from the OpenAPI document, so every endpoint added later is in the
// matrix without editing this file.

interface Route {
  method: string;
  path: string;
  family: 'pat' | 'analytics' | 'rms';
}

let app: TestApp;
let routes: Route[];
let patPartner: TestPartner;
let analyticsPartner: TestPartner;
let rmsPartner: TestPartner;
let revokedToken: string;
let expiredToken: string;
let revokedKey: string;
let venueId: string;

const ANY_UUID = '0198a5c4-1111-7222-8333-444455556666';

function concrete(path: string): string {
  return path
    .replace('{venueId}', venueId)
    .replace(/\{[A-Za-z]*Id\}/g, ANY_UUID)
    .replace(/\{[A-Za-z]+\}/g, 'x');
}

beforeAll(async () => {
  // The matrix fails authentication hundreds of times from one address; the limiter has its own test.
  app = await startTestApp({ clock: 'manual', env: { AUTH_FAILURE_LIMIT_PER_MIN: '1000000' } });
  const doc = (await app.http.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  routes = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    const family = path.startsWith('/v1/pat') ? 'pat' : path.startsWith('/v1/pos') ? 'analytics' : path.startsWith('/v1/rms') ? 'rms' : null;
    if (!family) continue;
    for (const method of Object.keys(ops)) if (method !== 'head') routes.push({ method: method.toUpperCase(), path, family });
  }
  patPartner = await app.newPartner(['pat']);
  analyticsPartner = await app.newPartner(['analytics']);
  rmsPartner = await app.newPartner(['rms']);
  venueId = await app.newVenue();
  await app.grant(patPartner.partnerId, venueId);
  await app.grant(analyticsPartner.partnerId, venueId);

  const auth = app.service.app.services.auth;
  revokedToken = (await auth.issueToken(patPartner.partnerId)).accessToken;
  await auth.revokeToken(revokedToken);
  expiredToken = (await auth.issueToken(patPartner.partnerId, 60)).accessToken;
  const other = await auth.createPartner({ name: 'revoked key', access: ['rms'] });
  revokedKey = other.apiKey!;
  await auth.revokeKey(revokedKey);
  // Analytics tokens are the pat partner's too in these cases (same mechanism); give it analytics.
  await sql`UPDATE partners SET access = ARRAY['pat','analytics'] WHERE id = ${patPartner.partnerId}`.execute(app.db.kysely);
  (app.clock as import('../../src/lib/clock.ts').ManualClock).advance(61_000);
});

afterAll(async () => {
  await app?.close();
});

const call = (r: Route, headers: Record<string, string>) =>
  app.http.request(r.method, concrete(r.path), { headers, body: ['POST', 'PUT'].includes(r.method) ? {} : undefined });

describe('authentication matrix', () => {
  it('covers every family', () => {
    expect(routes.filter((r) => r.family === 'pat').length).toBeGreaterThan(0);
    expect(routes.filter((r) => r.family === 'analytics').length).toBeGreaterThan(0);
    expect(routes.filter((r) => r.family === 'rms').length).toBeGreaterThan(0);
  });

  it('[AUTH-04] [AUTH-11] [AUTH-01] [DES-025] [DES-116] no Authorization header: 403 on /v1/pat, 401 on /v1/pos and /v1/rms, never data', async () => {
    for (const r of routes) {
      const res = await call(r, {});
      expect(res.status, `${r.method} ${r.path}`).toBe(r.family === 'pat' ? 403 : 401);
      expect(res.body.error.code).toBe(res.status);
    }
  });

  it('[AUTH-05] [AUTH-12] [AUTH-02] a malformed or unknown credential → 401', async () => {
    for (const r of routes) {
      for (const header of ['Basic abc', 'Bearer', 'Bearer tat_doesnotexistdoesnotexistdoesnot', 'Bearer tsk_doesnotexistdoesnotexistdoesnot', 'Bearer garbage']) {
        const res = await call(r, { authorization: header });
        expect(res.status, `${r.method} ${r.path} with ${header}`).toBe(401);
      }
    }
  });

  it('[AUTH-06] [AUTH-12] [DES-058] [DES-059] a revoked token or key → 401', async () => {
    for (const r of routes) {
      const credential = r.family === 'rms' ? revokedKey : revokedToken;
      const res = await call(r, { authorization: `Bearer ${credential}` });
      expect(res.status, `${r.method} ${r.path}`).toBe(401);
    }
  });

  it('[DES-026] an expired access token → 401 on /v1/pat and /v1/pos', async () => {
    for (const r of routes.filter((r) => r.family !== 'rms')) {
      const res = await call(r, { authorization: `Bearer ${expiredToken}` });
      expect(res.status, `${r.method} ${r.path}`).toBe(401);
      expect(JSON.stringify(res.body)).toMatch(/expired/);
    }
  });

  it('[AUTH-07] [AUTH-13] a valid credential of the wrong access kind → 403', async () => {
    for (const r of routes) {
      const credential = r.family === 'pat' ? analyticsPartner.token : r.family === 'analytics' ? (await app.newPartner(['pat'])).token : patPartner.token;
      const res = await call(r, { authorization: `Bearer ${credential}` });
      // An access token is not an API key: on /v1/rms it is not recognised (401).
      expect(res.status, `${r.method} ${r.path}`).toBe(r.family === 'rms' ? 401 : 403);
    }
  });

  it('[AUTH-04] [AUTH-05] [ERR-04] [DES-017] /v1/pat: 403 envelope for a missing header, OAuth-style 401 with WWW-Authenticate', async () => {
    const missing = await app.http.get('/v1/pat/venues');
    expect(missing.body).toEqual({ error: { code: 403, message: expect.any(String), details: null } });
    const invalid = await app.http.get('/v1/pat/venues', { token: 'tat_nopenopenopenopenopenope' });
    expect(invalid.status).toBe(401);
    expect(invalid.body).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
    expect(invalid.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('[DES-015] [DES-016] 401 on /v1/pos and /v1/rms uses the nested envelope', async () => {
    const pos = await app.http.get('/v1/pos/partner/venues', { token: 'tat_nopenopenopenopenopenope' });
    expect(pos.body).toEqual({ error: { code: 401, message: expect.any(String), details: null } });
    const rms = await app.http.get('/v1/rms/booking-channels', { token: 'tsk_nopenopenopenopenopenope' });
    expect(rms.body).toEqual({ error: { code: 401, message: expect.any(String), details: null } });
  });

  it('[AUTH-03] a valid API key is served on the content API', async () => {
    const res = await app.http.get('/v1/rms/booking-channels', { token: rmsPartner.apiKey });
    expect(res.status).toBe(200);
  });
});
