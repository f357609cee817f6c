// The simulated token endpoint checks a jwt-bearer assertion as Google's does (RFC 7523, DESIGN
// 8.7b): signature by the service account's key, iss, aud = the token endpoint, scope, iat/exp;
// each wrong one is refused with Google's OAuth error, and nothing is issued.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAPS_BOOKING_SCOPE } from '../../maps-booking-simulator/src/index.ts';
import { NOTIFY_PATH, PARTNER, assertion, booking, googleHarness, otherRsaKey, type GoogleHarness } from './helpers.ts';

let h: GoogleHarness;
beforeAll(async () => {
  h = await googleHarness();
});
beforeEach(async () => {
  await h.sim.control.clearCalls();
  await h.sim.control.setSettings({ tokenLifetimeS: 3599, clockSkewS: 60 });
  await h.sim.control.setClock({ set: new Date().toISOString(), frozen: false });
});
afterAll(() => h.close());

const nowSec = () => Math.floor(Date.now() / 1000);

describe('service accounts', () => {
  it('a generated account answers the JSON key file Google issues, its token_uri the simulator’s token endpoint', () => {
    expect(h.key).toEqual({
      type: 'service_account',
      project_id: expect.any(String),
      private_key_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      private_key: expect.stringContaining('-----BEGIN PRIVATE KEY-----'),
      client_email: expect.stringMatching(/@.+\.iam\.gserviceaccount\.com$/),
      client_id: expect.stringMatching(/^\d+$/),
      auth_uri: expect.any(String),
      token_uri: h.sim.tokenUri,
      auth_provider_x509_cert_url: expect.any(String),
      client_x509_cert_url: expect.any(String),
      universe_domain: 'googleapis.com',
    });
    expect(h.sim.tokenUri).toBe(`${h.sim.baseUrl}/token`);
  });

  it('an account registered with its public key (or its private key) gets tokens; a non-RSA key is refused', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await h.sim.control.registerServiceAccount({ partnerId: PARTNER, clientEmail: 'own@example.iam.gserviceaccount.com', publicKey: pem });
    const own = { ...h.key, client_email: 'own@example.iam.gserviceaccount.com' };
    expect((await h.exchange(await assertion(own, {}, privateKey))).status).toBe(200);

    const fromPrivate = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await h.sim.control.registerServiceAccount({ partnerId: PARTNER, clientEmail: 'priv@example.iam.gserviceaccount.com', publicKey: fromPrivate });
    expect((await h.exchange(await assertion({ ...h.key, client_email: 'priv@example.iam.gserviceaccount.com' }, {}, privateKey))).status).toBe(200);

    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await expect(h.sim.control.registerServiceAccount({ partnerId: PARTNER, clientEmail: 'ec@example.com', publicKey: ec }))
      .rejects.toMatchObject({ statusCode: 400 });
  });
});

describe('the token endpoint', () => {
  it('[CHN-33] a JWT signed with the account’s key, iss its email, aud the token endpoint and the mapsbooking scope gets a Bearer token', async () => {
    const res = await h.exchange(await assertion(h.key));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^ya29\./), expires_in: 3599, token_type: 'Bearer' });
    expect(res.headers['cache-control']).toBe('no-store');
    // The token works for a method of the account's partner.
    const call = await h.call('PATCH', NOTIFY_PATH('b1', 'status'), { token: res.body.access_token, body: booking('b1', { status: 'CONFIRMED' }) });
    expect(call.status).toBe(200);

    const [logged] = await h.sim.control.tokenRequests();
    expect(logged).toMatchObject({
      operation: 'token',
      grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      claims: { iss: h.key.client_email, aud: h.sim.tokenUri, scope: MAPS_BOOKING_SCOPE },
      answer: { status: 200, body: { access_token: expect.stringMatching(/…$/), expires_in: 3599, token_type: 'Bearer' } },
    });
    // Neither the assertion nor the token is kept in the log.
    expect(JSON.stringify(logged)).not.toContain(res.body.access_token);
  });

  it.each([
    ['a signature by another key', async (h: GoogleHarness) => assertion(h.key, {}, otherRsaKey()), 'invalid_grant', 'Invalid JWT Signature.'],
    ['an unknown issuer', async (h: GoogleHarness) => assertion(h.key, { iss: 'nobody@example.iam.gserviceaccount.com' }), 'invalid_grant', 'Invalid grant: account not found'],
    ['another audience (Google’s own URL)', async (h: GoogleHarness) => assertion(h.key, { aud: 'https://oauth2.googleapis.com/token' }), 'invalid_grant', 'Failed audience check'],
    ['no mapsbooking scope', async (h: GoogleHarness) => assertion(h.key, { scope: 'https://www.googleapis.com/auth/cloud-platform' }), 'invalid_scope', 'Invalid OAuth scope'],
    ['an expired JWT', async (h: GoogleHarness) => assertion(h.key, { iat: nowSec() - 7200, exp: nowSec() - 3600 }), 'invalid_grant', 'short-lived token'],
    ['a lifetime over an hour', async (h: GoogleHarness) => assertion(h.key, { iat: nowSec(), exp: nowSec() + 3601 }), 'invalid_grant', 'short-lived token'],
    ['an iat in the future', async (h: GoogleHarness) => assertion(h.key, { iat: nowSec() + 600, exp: nowSec() + 1200 }), 'invalid_grant', 'short-lived token'],
    ['not a JWT', async () => 'not-a-jwt', 'invalid_grant', 'not a signed JWT'],
    ['alg none', async (h: GoogleHarness) => {
      const [, payload] = (await assertion(h.key)).split('.');
      return `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    }, 'invalid_grant', 'alg must be RS256'],
  ] as const)('[CHN-33] refuses %s with 400 and issues nothing', async (_what, make, error, description) => {
    const res = await h.exchange(await make(h));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error, error_description: expect.stringContaining(description) });
    const [logged] = await h.sim.control.tokenRequests();
    expect(logged.answer).toEqual({ status: 400, body: res.body });
  });

  it('refuses another grant type and a missing assertion', async () => {
    const wrongGrant = await h.exchange(await assertion(h.key), 'client_credentials');
    expect(wrongGrant).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    const missing = await h.call('POST', '/token', { form: { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' } });
    expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'Missing required parameter: assertion' } });
  });

  it('[CHN-33] a token lives as long as the configured lifetime on the simulator’s clock; then a method answers 401', async () => {
    await h.sim.control.setSettings({ tokenLifetimeS: 60 });
    const token = await h.exchange(await assertion(h.key));
    expect(token.body.expires_in).toBe(60);
    const patch = () => h.call('PATCH', NOTIFY_PATH('b1', 'status'), { token: token.body.access_token, body: booking('b1', { status: 'CONFIRMED' }) });
    expect((await patch()).status).toBe(200);
    await h.sim.control.advanceClock(60_000);
    const expired = await patch();
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: { code: 401, message: expect.stringContaining('invalid authentication credentials'), status: 'UNAUTHENTICATED' } });
    expect(expired.headers['www-authenticate']).toContain('Bearer');
  });

  it('[CHN-33] checks iat and exp against the simulator’s clock, within its skew', async () => {
    await h.sim.control.advanceClock(3 * 3600_000);
    // Signed by a clock three hours behind the simulator: already expired there.
    expect((await h.exchange(await assertion(h.key))).body.error).toBe('invalid_grant');
    const simNow = nowSec() + 3 * 3600;
    expect((await h.exchange(await assertion(h.key, {}, undefined, simNow - 30))).status).toBe(200);
  });
});
