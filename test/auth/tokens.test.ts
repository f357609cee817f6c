import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { hashSecret } from '../../src/lib/secrets.ts';
import type { ManualClock } from '../../src/lib/clock.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ clock: 'manual' });
});
afterAll(async () => {
  await app?.close();
});

describe('OAuth client credentials', () => {
  it('[DES-029] [DES-030] POST /oauth/token as a form → {access_token, token_type: Bearer, expires_in: 3600}, and the token works', async () => {
    const p = await app.newPartner(['pat']);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: p.clientId!, client_secret: p.clientSecret! });
    const res = await app.http.post('/oauth/token', { body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^tat_/), token_type: 'Bearer', expires_in: 3600 });
    expect(res.headers['cache-control']).toBe('no-store');
    const venues = await app.http.get('/v1/pat/venues', { token: res.body.access_token });
    expect(venues.status).toBe(200);
    expect(venues.body).toEqual({ total: 0, venues: [] });
  });

  it('[DES-029] the API document declares both bodies of /oauth/token, form and JSON, with one schema; a malformed field is invalid_request', async () => {
    const doc = (await app.http.get('/openapi.json')).body;
    const content = doc.paths['/oauth/token'].post.requestBody.content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(content['application/json'].schema).toEqual(content['application/x-www-form-urlencoded'].schema);
    expect(Object.keys(content['application/json'].schema.properties).sort()).toEqual(['client_id', 'client_secret', 'grant_type', 'scope']);
    const tooLong = new URLSearchParams({ grant_type: 'client_credentials', client_id: 'x'.repeat(257), client_secret: 'tcs_x' });
    const res = await app.http.post('/oauth/token', { body: tooLong.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('[DES-029] POST /oauth/token with a JSON body, and with HTTP Basic client authentication', async () => {
    const p = await app.newPartner(['analytics']);
    const json = await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: p.clientId, client_secret: p.clientSecret } });
    expect(json.status).toBe(200);
    const basic = await app.http.post('/oauth/token', {
      body: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${p.clientId}:${p.clientSecret}`).toString('base64')}`,
      },
    });
    expect(basic.status).toBe(200);
    expect((await app.http.get('/v1/pos/partner/venues', { token: basic.body.access_token })).status).toBe(200);
  });

  it('/oauth/token refuses a wrong secret (401 invalid_client), a missing grant (400 invalid_request), another grant (400 unsupported_grant_type)', async () => {
    const p = await app.newPartner(['pat']);
    const wrong = await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: p.clientId, client_secret: 'tcs_wrongwrongwrongwrongwrong' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const missing = await app.http.post('/oauth/token', { body: { client_id: p.clientId } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    const other = await app.http.post('/oauth/token', { body: { grant_type: 'password' } });
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('unsupported_grant_type');
  });

  it('[DES-030] an access token expires after its lifetime (default 1 hour)', async () => {
    const p = await app.newPartner(['pat']);
    expect((await app.http.get('/v1/pat/venues', { token: p.token })).status).toBe(200);
    (app.clock as ManualClock).advance(3599_000);
    expect((await app.http.get('/v1/pat/venues', { token: p.token })).status).toBe(200);
    (app.clock as ManualClock).advance(1_000);
    const res = await app.http.get('/v1/pat/venues', { token: p.token });
    expect(res.status).toBe(401);
    expect(res.body.error_description).toMatch(/expired/);
  });
});

describe('secrets at rest', () => {
  it('[DES-027] API keys, client secrets and access tokens are stored only as SHA-256 hashes', async () => {
    const p = await app.newPartner(['rms', 'pat']);
    const dump = JSON.stringify(
      await Promise.all(
        ['api_keys', 'oauth_clients', 'access_tokens', 'partners'].map(async (t) => (await sql`SELECT * FROM ${sql.table(t)}`.execute(app.db.kysely)).rows),
      ),
    );
    for (const secret of [p.apiKey!, p.clientSecret!, p.token]) {
      expect(dump).not.toContain(secret);
      expect(dump).toContain(hashSecret(secret));
    }
  });
});

describe('failed-authentication limit', () => {
  it('[DES-031] past AUTH_FAILURE_LIMIT_PER_MIN failures a minute, failing attempts get 429 with Retry-After; valid ones still pass', async () => {
    const app = await startTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MIN: '5' } });
    onTestFinished(() => app.close());
    const good = await app.newPartner(['pat']);
    const limit = 5;
    for (let i = 0; i < limit; i++) {
      expect((await app.http.get('/v1/pat/venues', { token: `tat_bad${i}badbadbadbadbadbadbad` })).status).toBe(401);
    }
    const limited = await app.http.get('/v1/pat/venues', { token: 'tat_badagainbadagainbadagain' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.error.code).toBe(429);
    const oauth = await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: 'tci_nonenonenonenone', client_secret: 'tcs_x' } });
    expect(oauth.status).toBe(429);
    expect((await app.http.get('/v1/pat/venues', { token: good.token })).status).toBe(200);
  });
});

describe('secrets are shown once', () => {
  it('[DES-028] after creation no endpoint shows a partner’s API key or client secret again, and a new token is a new secret', async () => {
    const p = await app.newPartner(['rms', 'pat', 'analytics']);
    const venueId = await app.newVenue();
    await app.grant(p.partnerId, venueId);
    const doc = (await app.http.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const bodies: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!ops.get || path.includes('{') && !path.includes('{venueId}')) continue;
      const concrete = path.replace('{venueId}', venueId);
      const credential = path.startsWith('/v1/rms') ? p.apiKey! : p.token;
      bodies.push((await app.http.get(concrete, { token: credential })).text);
    }
    const issued = await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: p.clientId, client_secret: p.clientSecret } });
    bodies.push(issued.text);
    const all = bodies.join('\n');
    expect(all).not.toContain(p.apiKey!);
    expect(all).not.toContain(p.clientSecret!);
    expect(issued.body.access_token).not.toBe(p.token);
  });
});
