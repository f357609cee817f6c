import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/db.ts';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { newSealingKey } from '../../src/lib/sealed.ts';
import { createBookingServicesService } from '../../src/rms/booking-services.service.ts';
import { RmsClients, RmsError } from '../../src/rms/rms-client.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startRmsWorld, type RmsWorld } from './world.ts';

describeEachStore('PUT/GET /v1/rms/booking-services (DESIGN 8.1)', (store) => {
  let w: RmsWorld;
  beforeAll(async () => {
    w = await startRmsWorld({ connect: false, app: { store } });
  });
  afterAll(async () => w?.close());

  it('[BKG-01] saves only after GET {baseUrl}/healthcheck answers 200 to the key; a failing check is a 400 naming baseUrl and saves nothing', async () => {
    const none = await w.app.http.get('/v1/rms/booking-services', { token: w.key });
    expect(none.status).toBe(404);

    const wrongKey = await w.app.http.put('/v1/rms/booking-services', { token: w.key, body: { baseUrl: w.sim.baseUrl, apiKey: 'not-the-key' } });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.error.details.baseUrl[0]).toMatch(/healthcheck.*401/);
    expect((await w.app.http.get('/v1/rms/booking-services', { token: w.key })).status).toBe(404);

    const ok = await w.app.http.put('/v1/rms/booking-services', { token: w.key, body: { baseUrl: `${w.sim.baseUrl}/`, apiKey: w.sim.apiKey } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ baseUrl: w.sim.baseUrl, apiKeySet: true, lastHealthCheck: { at: expect.any(String), ok: true, message: expect.any(String) } });

    // A later failing check leaves the saved connection as it was.
    await w.sim.control.setFailures({ mode: 'error5xx', operations: ['healthcheck'], count: 1 });
    const down = await w.app.http.put('/v1/rms/booking-services', { token: w.key, body: { baseUrl: w.sim.baseUrl, apiKey: w.sim.apiKey } });
    expect(down.status).toBe(400);
    expect(down.body.error.details.baseUrl[0]).toMatch(/answered 5\d\d/);
    expect((await w.app.http.get('/v1/rms/booking-services', { token: w.key })).body).toEqual(ok.body);
    const endpoint = await w.app.service.app.services.bookingServices.endpoint(w.partnerId);
    expect(endpoint).toEqual({ baseUrl: w.sim.baseUrl, apiKey: w.sim.apiKey });
  });

  it('[BKG-02] GET answers baseUrl, apiKeySet and lastHealthCheck, never the key; the store keeps it sealed', async () => {
    const got = await w.app.http.get('/v1/rms/booking-services', { token: w.key });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(['apiKeySet', 'baseUrl', 'lastHealthCheck']);
    expect(got.text).not.toContain(w.sim.apiKey);
    const { rows } = await sql<{ api_key_sealed: string }>`SELECT api_key_sealed FROM rms_booking_services`.execute(w.app.db.kysely);
    expect(rows[0]!.api_key_sealed).not.toContain(w.sim.apiKey);
  });

  it('a key sealed under another SECRETS_KEY is not sent: not_connected, asking for the key again', async () => {
    const other = createBookingServicesService({
      db: w.app.db, clock: w.app.clock, log: w.app.service.log, clients: w.app.service.app.services.rmsClients,
      allowPrivateTargets: true, secretsKey: newSealingKey(),
    });
    const err = await other.endpoint(w.partnerId).catch((e) => e);
    expect(err).toBeInstanceOf(RmsError);
    expect(err.kind).toBe('not_connected');
    expect(err.message).toMatch(/SECRETS_KEY/);
  });

  it('[BKG-04] the healthcheck carries Authorization: Bearer <apiKey> over HTTPS', async () => {
    await w.sim.control.clearRequests();
    await w.app.http.put('/v1/rms/booking-services', { token: w.key, body: { baseUrl: w.sim.baseUrl, apiKey: w.sim.apiKey } });
    const sent = await w.sim.control.requests({ operation: 'healthcheck' });
    expect(sent.length).toBe(1);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${w.sim.apiKey}`);
    expect(w.sim.baseUrl.startsWith('https://')).toBe(true);
  });

  it('bad input: missing fields, a non-URL, a query string → 400 with per-field details; without a key → 401', async () => {
    const missing = await w.app.http.put('/v1/rms/booking-services', { token: w.key, body: {} });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.error.details)).toEqual(expect.arrayContaining(['baseUrl', 'apiKey']));
    const garbage = await w.app.http.put('/v1/rms/booking-services', { token: w.key, body: { baseUrl: 'not a url', apiKey: 'k' } });
    expect(garbage.status).toBe(400);
    const query = await w.app.http.put('/v1/rms/booking-services', { token: w.key, body: { baseUrl: `${w.sim.baseUrl}?x=1`, apiKey: 'k' } });
    expect(query.status).toBe(400);
    expect((await w.app.http.get('/v1/rms/booking-services')).status).toBe(401);
  });
});

describe('the outbound-URL guard on booking services (ALLOW_PRIVATE_TARGETS unset)', () => {
  let app: TestApp;
  let sim: RmsSimulator;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp();
    sim = await startRmsSimulator({ seed: false });
    app.service.app.services.rmsClients.trust(sim.ca);
    key = (await app.newPartner(['rms'])).apiKey!;
  });
  afterAll(async () => {
    await sim?.close();
    await app?.close();
  });

  it('[BKG-03] http, loopback, private, link-local and metadata targets → 400 naming baseUrl; nothing is called or saved', async () => {
    await sim.control.clearRequests();
    const port = new URL(sim.baseUrl).port;
    for (const baseUrl of [
      `http://example.com`,
      sim.baseUrl, // 127.0.0.1
      `https://localhost:${port}`, // a name that resolves to loopback
      'https://10.1.2.3', 'https://192.168.0.10', 'https://169.254.169.254', 'https://[::1]:443', 'https://[::ffff:127.0.0.1]',
    ]) {
      const res = await app.http.put('/v1/rms/booking-services', { token: key, body: { baseUrl, apiKey: sim.apiKey } });
      expect(res.status, baseUrl).toBe(400);
      expect(res.body.error.details.baseUrl, baseUrl).toBeDefined();
    }
    expect(await sim.control.requests({ operation: 'healthcheck' })).toEqual([]);
    expect((await app.http.get('/v1/rms/booking-services', { token: key })).status).toBe(404);
  });

  it('[BKG-03] the connect-time check: a host name that resolves to loopback is refused when connecting, not only when saved', async () => {
    const clients = new RmsClients({ timeoutMs: 2000, allowPrivate: false });
    clients.trust(sim.ca);
    const port = new URL(sim.baseUrl).port;
    try {
      const err = await clients.for('p', { baseUrl: `https://localhost:${port}`, apiKey: sim.apiKey }).healthcheck().catch((e) => e);
      expect(err).toBeInstanceOf(RmsError);
      expect(err.kind).toBe('unreachable');
      expect(err.message).toMatch(/non-public address/);
    } finally {
      await clients.close();
    }
    expect(await sim.control.requests({ operation: 'healthcheck' })).toEqual([]);
  });
});
