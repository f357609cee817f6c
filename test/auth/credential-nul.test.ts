import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import type { HttpResponse } from '../helpers/http.ts';
import { rawRequest } from '../helpers/raw-http.ts';

// ERR-06 holds for credentials in headers too: a credential that decodes to text PostgreSQL cannot
// store (a NUL, from HTTP Basic's base64 or OAuth's percent-encoding) is a failed authentication,
// answered as the auth rules say and counted by the failure limiter, never a 500 from the database.
// A raw NUL in an Authorization header never reaches a route: Node's parser refuses it (ERR-07).

const LIMIT = 50;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const remaining = (res: HttpResponse) => Number(res.headers['ratelimit-remaining']);

describeEachStore('[ERR-06] a NUL inside a credential header', (store) => {
  let app: TestApp;
  let partner: TestPartner;
  let googleId: string;
  let username: string;
  let password: string;

  beforeAll(async () => {
    app = await startTestApp({ store, env: { AUTH_FAILURE_LIMIT_PER_MIN: String(LIMIT) } });
    partner = await app.newPartner(['rms', 'pat', 'analytics']);
    const s = app.service.app.services;
    const google = await s.channels.create({ name: 'NUL Google' });
    googleId = google.id;
    ({ username, password } = (await s.channelAccess.issue(google.id, 'google-v3')).credentials as { username: string; password: string });
  });
  afterAll(async () => app?.close());

  it('[ERR-06] [CHN-11] Basic credentials decoding to a NUL (username or password) on /v3 and the feeds → 401 with the Basic challenge, counted as a failed authentication', async () => {
    const cases = [
      ['/v3/HealthCheck', `${username}\u0000:${password}`],
      ['/v3/HealthCheck', `\u0000:${password}`],
      ['/v3/HealthCheck', `${username}:${password}\u0000`],
      [`/v1/feeds/${googleId}/availability`, `chn_\u0000x:${password}`],
    ] as const;
    let before = remaining(await app.http.get('/v3/HealthCheck', { headers: { authorization: `Basic ${b64(`${username}:${password}`)}` } }));
    expect(before).toBe(LIMIT);
    for (const [path, text] of cases) {
      const res = await app.http.get(path, { headers: { authorization: `Basic ${b64(text)}` } });
      expect(res.status, JSON.stringify(text)).toBe(401);
      expect(res.headers['www-authenticate'], JSON.stringify(text)).toMatch(/^Basic realm=/);
      expect(remaining(res), `${JSON.stringify(text)} is counted`).toBe(before - 1);
      before -= 1;
    }
    // The channel's real credentials still work.
    expect((await app.http.get('/v3/HealthCheck', { headers: { authorization: `Basic ${b64(`${username}:${password}`)}` } })).status).toBe(200);
  });

  it('[ERR-06] POST /oauth/token with HTTP Basic decoding to a NUL (raw or percent-encoded) → 401 invalid_client, counted', async () => {
    let before = remaining(await app.http.get('/v1/rms/company', { token: partner.apiKey }));
    for (const text of [`${partner.clientId}\u0000:${partner.clientSecret}`, `${partner.clientId}%00:${partner.clientSecret}`, `tci_%00:x`, `${partner.clientId}:${partner.clientSecret}%00`]) {
      const res = await app.http.post('/oauth/token', {
        headers: { authorization: `Basic ${b64(text)}` },
        body: { grant_type: 'client_credentials' },
      });
      expect(res.status, text).toBe(401);
      expect(res.body, text).toMatchObject({ error: 'invalid_client' });
      expect(remaining(res), `${text} is counted`).toBe(before - 1);
      before -= 1;
    }
  });

  it('[ERR-06] [ERR-07] a raw NUL in a Bearer credential (API key, access token, channel key) never reaches a route: 400 in the envelope, never a 500', async () => {
    for (const [path, credential] of [
      ['/v1/rms/company', `${partner.apiKey}\u0000`],
      ['/v1/pat/venues', `tat_\u0000${partner.token}`],
      ['/v1/bc/venues', 'tbc_\u0000abc'],
      ['/v1/webhooks/endpoints', `${partner.apiKey}\u0000x`],
    ]) {
      const res = await rawRequest(app.url, `GET ${path} HTTP/1.1\nHost: localhost\nAuthorization: Bearer ${credential}`);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body).error, path).toBeDefined();
    }
    const basic = await rawRequest(app.url, `GET /v3/HealthCheck HTTP/1.1\nHost: localhost\nAuthorization: Basic ab\u0000cd`);
    expect(basic.status).toBe(400);
  });
});
