import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import type { HttpResponse } from '../helpers/http.ts';

// The failed-authentication limit is the service's rate limit (DES-031): every route that takes a
// credential sends the IETF RateLimit headers on every answer, with the caller's address's true
// standing, and the document declares them (issue 17).

const LIMIT = 5;
let app: TestApp;
let partner: TestPartner;
let basic: string;
let channelKey: string;

beforeAll(async () => {
  app = await startTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MIN: String(LIMIT) } });
  partner = await app.newPartner(['rms', 'pat', 'analytics']);
  const s = app.service.app.services;
  const google = await s.channels.create({ name: 'Rate limit Google' });
  const { credentials: g } = await s.channelAccess.issue(google.id, 'google-v3');
  basic = `Basic ${Buffer.from(`${(g as { username: string }).username}:${(g as { password: string }).password}`).toString('base64')}`;
  const tableside = await s.channels.create({ name: 'Rate limit channel' });
  channelKey = ((await s.channelAccess.issue(tableside.id, 'tableside')).credentials as { apiKey: string }).apiKey;
});
afterAll(async () => {
  await app?.close();
});

const standing = (res: HttpResponse) => ({
  limit: Number(res.headers['ratelimit-limit']),
  remaining: Number(res.headers['ratelimit-remaining']),
  reset: Number(res.headers['ratelimit-reset']),
  policy: res.headers['ratelimit-policy'],
});

describe('RateLimit headers', () => {
  it('[DES-031] every credential-taking route sends RateLimit-Limit/Remaining/Reset/Policy on success, nothing used yet', async () => {
    const answers = {
      pat: await app.http.get('/v1/pat/venues', { token: partner.token }),
      analytics: await app.http.get('/v1/pos/partner/venues', { token: partner.token }),
      content: await app.http.get('/v1/rms/company', { token: partner.apiKey }),
      webhooks: await app.http.get('/v1/webhooks/endpoints', { token: partner.apiKey }),
      channel: await app.http.get('/v1/bc/venues', { token: channelKey }),
      v3: await app.http.get('/v3/HealthCheck', { headers: { authorization: basic } }),
      oauth: await app.http.post('/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: partner.clientId, client_secret: partner.clientSecret },
      }),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect(res.status, name).toBe(200);
      expect(standing(res), name).toEqual({ limit: LIMIT, remaining: LIMIT, reset: 0, policy: `${LIMIT};w=60` });
    }
  });

  it('[DES-031] the health probes take no credential, are not limited and send no RateLimit headers', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await app.http.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers['ratelimit-limit'], path).toBeUndefined();
    }
  });

  it('[DES-031] Remaining falls with each failed authentication (on 4xx answers too), valid requests use none, and past the limit a failure is 429 with Retry-After', async () => {
    const failures: HttpResponse[] = [
      await app.http.get('/v1/pat/venues', { token: 'tat_wrongwrongwrongwrongwrong' }),
      await app.http.get('/v1/rms/company', { token: 'tsk_wrongwrongwrongwrongwrong' }),
      await app.http.get('/v1/pat/venues'),
      await app.http.get('/v3/HealthCheck', { headers: { authorization: 'Basic d3Jvbmc6d3Jvbmc=' } }),
      await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: 'tci_nonenonenonenone', client_secret: 'tcs_x' } }),
    ];
    expect(failures.map((r) => r.status)).toEqual([401, 401, 403, 401, 401]);
    failures.forEach((res, i) => {
      const s = standing(res);
      expect(s.limit).toBe(LIMIT);
      expect(s.remaining, `failure ${i + 1}`).toBe(LIMIT - (i + 1));
      expect(s.reset).toBeGreaterThanOrEqual(1);
      expect(s.reset).toBeLessThanOrEqual(60);
    });
    // The 401s that carry a challenge carry it with the RateLimit headers.
    expect(failures[0].headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(failures[3].headers['www-authenticate']).toMatch(/^Basic realm=/);

    // A valid credential uses none of the quota and is never limited.
    const ok = await app.http.get('/v1/pat/venues', { token: partner.token });
    expect(ok.status).toBe(200);
    expect(standing(ok).remaining).toBe(0);

    const limited = {
      pat: await app.http.get('/v1/pat/venues', { token: 'tat_badagainbadagainbadagain' }),
      content: await app.http.get('/v1/rms/company', { token: 'tsk_badagainbadagainbadagain' }),
      oauth: await app.http.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: 'tci_nonenonenonenone', client_secret: 'tcs_x' } }),
      v3: await app.http.get('/v3/HealthCheck', { headers: { authorization: 'Basic d3Jvbmc6d3Jvbmc=' } }),
    };
    for (const [name, res] of Object.entries(limited)) {
      expect(res.status, name).toBe(429);
      const wait = Number(res.headers['retry-after']);
      expect(wait, name).toBeGreaterThanOrEqual(1);
      expect(wait, name).toBeLessThanOrEqual(60);
      const s = standing(res);
      expect(s.remaining, name).toBe(0);
      expect(Math.abs(s.reset - wait), name).toBeLessThanOrEqual(1);
    }
    expect(limited.pat.body).toEqual({ error: { code: 429, message: expect.any(String), details: null } });
    expect(limited.oauth.body).toEqual({ error: 'slow_down', error_description: expect.any(String) });

    expect((await app.http.get('/v1/rms/company', { token: partner.apiKey })).status).toBe(200);
    expect((await app.http.get('/healthz')).status).toBe(200);
  });
});
