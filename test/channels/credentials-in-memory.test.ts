import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { awaitEpoch, createCredentialCache, currentEpoch } from '../../src/auth/credential-cache.ts';
import { createChannelAccessService } from '../../src/channels/access.service.ts';
import type { Db } from '../../src/db/db.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createBookingServicesService } from '../../src/rms/booking-services.service.ts';
import { recordCheck } from '../../src/rms/booking-services.repository.ts';
import { RmsClients } from '../../src/rms/rms-client.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { createSchema, describeEachStore, describePostgres, dropSchema, newSchemaName, newStore, postgresUrl, urlWithSchema } from '../helpers/db.ts';
import { HttpClient, testCertFile, testTls } from '../helpers/http.ts';

// Issue 28: a process keeps booking channels' credentials and RMS partners' booking-services
// endpoints in memory, under the partners' credential cache (its lease and epoch; migration 025). A
// revoke of a channel credential, and a new booking-services URL or key, must still hold on every
// process for every request that starts after it returns.

const log = pino({ level: 'silent' });
const basicOf = (c: { username: string; password: string }) => `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;

describePostgres('channel credentials and RMS endpoints in memory, across two processes', () => {
  let schema: string;
  let url: string;
  const sims: RmsSimulator[] = [];
  const servers: ServeProcess[] = [];
  const clients: HttpClient[] = [];
  let rmsKey: string;
  let venueId: string;

  beforeAll(async () => {
    schema = newSchemaName();
    await createSchema(schema);
    url = urlWithSchema(postgresUrl()!, schema);
    const tls = testTls();
    for (let i = 0; i < 2; i++) sims.push(await startRmsSimulator({ seed: true, tls: { key: tls.key, cert: tls.cert } }));
    const env = { DATABASE_URL: url, AUTH_FAILURE_LIMIT_PER_MIN: '100000', ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: testCertFile() };
    for (let i = 0; i < 2; i++) {
      const data = mkdtempSync(join(tmpdir(), `tableside-cred-node${i}-`));
      servers.push(await startServe({ ...env, TABLESIDE_DATA: data }));
      clients.push(new HttpClient(servers[i]!.url, readFileSync(join(data, 'tls.crt'), 'utf8')));
    }
    rmsKey = jsonOf(await runCli(['partner', 'create', '--name', 'rms', '--access', 'rms', '--json'], { DATABASE_URL: url })).apiKey;
    const venue = await clients[0]!.post('/v1/rms/venues', {
      token: rmsKey, body: { externalId: 'rms-venue-1', name: 'The Anchor', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London' },
    });
    expect(venue.status).toBe(200);
    venueId = venue.body.id;
    expect((await clients[0]!.put('/v1/rms/booking-services', { token: rmsKey, body: { baseUrl: sims[0]!.baseUrl, apiKey: sims[0]!.apiKey } })).status).toBe(200);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    for (const s of servers) await s.stop('SIGKILL');
    for (const s of sims) await s.close();
    if (schema) await dropSchema(schema);
  });

  async function linkedChannel(protocol: 'tableside' | 'google-v3') {
    const channel = jsonOf(await runCli(['channel', 'create', '--name', `cached ${protocol}`, '--protocol', protocol, '--json'], { DATABASE_URL: url }));
    expect((await clients[0]!.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: rmsKey, body: { venues: [venueId] } })).status).toBe(200);
    return channel;
  }

  it('[DES-059] [CHN-01] [CHN-11] after key revoke returns, both processes refuse the channel API key and the Basic password each had just accepted', async () => {
    const own = await linkedChannel('tableside');
    const google = await linkedChannel('google-v3');
    const basic = { authorization: basicOf(google.credentials) };
    // Each process checks each credential twice: both are held in both processes' memory.
    for (const client of clients) {
      for (let i = 0; i < 2; i++) {
        expect((await client.get('/v1/bc/venues', { token: own.credentials.apiKey })).status).toBe(200);
        expect((await client.get('/v3/HealthCheck', { headers: basic })).status).toBe(200);
      }
    }
    expect(jsonOf(await runCli(['key', 'revoke', '--key', own.credentials.apiKey, '--json'], { DATABASE_URL: url }))).toEqual({ revoked: true });
    expect(jsonOf(await runCli(['key', 'revoke', '--key', google.credentials.password, '--json'], { DATABASE_URL: url }))).toEqual({ revoked: true });
    for (const client of clients) {
      const bc = await client.get('/v1/bc/venues', { token: own.credentials.apiKey });
      expect(bc.status).toBe(401);
      expect(JSON.stringify(bc.body)).toMatch(/revoked/);
      const v3 = await client.get('/v3/HealthCheck', { headers: basic });
      expect(v3.status).toBe(401);
      expect(v3.headers['www-authenticate']).toMatch(/^Basic/);
    }
  });

  it('[BKG-01] [BKG-09] after PUT /v1/rms/booking-services returns with a new URL and key, no process asks the old RMS; a live answer stays live', async () => {
    const own = await linkedChannel('tableside');
    const date = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const ask = async (client: HttpClient) => {
      const res = await client.get(`/v1/bc/venues/${venueId}/availability`, { token: own.credentials.apiKey, query: { date, partySize: 2 } });
      expect(res.status).toBe(200);
      expect(res.body.source).toBe('live');
    };
    const asked = async (sim: RmsSimulator) => (await sim.control.requests({ operation: 'availability' })).length;
    // Both processes have asked the first RMS, each twice: both hold its endpoint and key.
    for (const client of clients) for (let i = 0; i < 2; i++) await ask(client);
    expect(await asked(sims[0]!)).toBeGreaterThanOrEqual(4);
    try {
      expect((await clients[0]!.put('/v1/rms/booking-services', { token: rmsKey, body: { baseUrl: sims[1]!.baseUrl, apiKey: sims[1]!.apiKey } })).status).toBe(200);
      const [before0, before1] = [await asked(sims[0]!), await asked(sims[1]!)];
      for (const client of clients) await ask(client);
      expect(await asked(sims[0]!)).toBe(before0);
      expect(await asked(sims[1]!)).toBe(before1 + 2);
    } finally {
      await clients[0]!.put('/v1/rms/booking-services', { token: rmsKey, body: { baseUrl: sims[0]!.baseUrl, apiKey: sims[0]!.apiKey } });
    }
  });
});

describeEachStore('channel credentials and RMS endpoints in memory, one store', (kind) => {
  async function store(): Promise<Db> {
    const db = await newStore(kind);
    onTestFinished(() => db.close());
    return db;
  }
  async function holder(db: Db) {
    const c = createCredentialCache({ db, log });
    onTestFinished(() => c.stop());
    await c.start();
    return c;
  }

  it('[DES-059] a channel credential is read once while the epoch stands; a revoke through another holder is refused by this one once it returns', async () => {
    const db = await store();
    const cache = await holder(db);
    const reads = { n: 0 };
    // Counts the reads that reach the store through this holder.
    const access = createChannelAccessService({ db, clock: systemClock, credentials: { lookup: (k, h, load) => cache.lookup(k, h, () => { reads.n++; return load(); }) } });
    const other = createChannelAccessService({ db, clock: systemClock, credentials: await holder(db) });
    const id = '00000000-0000-7000-8000-0000000000c1';
    await sql`INSERT INTO booking_channels (id, name, created_at) VALUES (${id}, 'mem', now())`.execute(db.kysely);
    const issued = await other.issue(id, 'google-v3');
    const { username, password } = issued.credentials as { username: string; password: string };
    // Setting the protocol bumped the epoch: every holder has acknowledged it before the reads counted.
    await awaitEpoch(db.kysely, await currentEpoch(db.kysely));
    expect((await access.authenticateBasic(username, password)).ok).toBe(true);
    expect((await access.authenticateBasic(username, password)).ok).toBe(true);
    expect(reads.n).toBe(1);
    // A wrong password is compared against the kept row, never accepted.
    expect((await access.authenticateBasic(username, `${password}x`)).ok).toBe(false);
    await other.revoke(password);
    expect(await access.authenticateBasic(username, password)).toEqual({ ok: false, failure: 'revoked' });
    expect(reads.n).toBe(2);
  });

  it('[BKG-01] the booking-services endpoint is read once while the epoch stands; a new URL and key saved through another holder are what this one sends once the save returns', async () => {
    const db = await store();
    const partnerId = '00000000-0000-7000-8000-0000000000d1';
    await sql`INSERT INTO partners (id, name, access, created_at) VALUES (${partnerId}, 'rms', ${['rms']}, now())`.execute(db.kysely);
    const tls = testTls();
    const [simA, simB] = [await startRmsSimulator({ tls: { key: tls.key, cert: tls.cert } }), await startRmsSimulator({ tls: { key: tls.key, cert: tls.cert } })];
    const clients = new RmsClients({ timeoutMs: 5000, allowPrivate: true });
    clients.trust(tls.cert);
    onTestFinished(async () => {
      await clients.close();
      await simA!.close();
      await simB!.close();
    });
    const deps = { db, clock: systemClock, log, clients, allowPrivateTargets: true, secretsKey: null };
    const cache = await holder(db);
    const reads = { n: 0 };
    const a = createBookingServicesService({ ...deps, credentials: { lookup: (k, h, load) => cache.lookup(k, h, () => { reads.n++; return load(); }) } });
    const b = createBookingServicesService({ ...deps, credentials: await holder(db) });
    await b.put(partnerId, { baseUrl: simA!.baseUrl, apiKey: simA!.apiKey });
    expect(await a.endpoint(partnerId)).toEqual({ baseUrl: simA!.baseUrl, apiKey: simA!.apiKey });
    expect(await a.endpoint(partnerId)).toEqual({ baseUrl: simA!.baseUrl, apiKey: simA!.apiKey });
    expect(reads.n).toBe(1);
    await b.put(partnerId, { baseUrl: simB!.baseUrl, apiKey: simB!.apiKey });
    expect(await a.endpoint(partnerId)).toEqual({ baseUrl: simB!.baseUrl, apiKey: simB!.apiKey });
    expect(reads.n).toBe(2);
  });
});

describe('the credential epoch, booking channels and booking services (migration 025)', () => {
  it('[DES-059] a credential revoke, a channel renamed, a new booking-services URL or key bump it; a health note does not', async () => {
    const db = await newStore('pglite');
    onTestFinished(() => db.close());
    const partnerId = '00000000-0000-7000-8000-0000000000e1';
    const channelId = '00000000-0000-7000-8000-0000000000e2';
    await sql`INSERT INTO partners (id, name, access, created_at) VALUES (${partnerId}, 'rms', ${['rms']}, now())`.execute(db.kysely);
    await sql`INSERT INTO booking_channels (id, name, created_at) VALUES (${channelId}, 'c', now())`.execute(db.kysely);
    await sql`INSERT INTO channel_credentials (id, channel_id, kind, username, secret_hash, created_at)
              VALUES (${channelId}, ${channelId}, 'api_key', NULL, ${'a'.repeat(64)}, now())`.execute(db.kysely);
    await sql`INSERT INTO rms_booking_services (partner_id, base_url, api_key_sealed, last_check_at, last_check_ok, last_check_message, created_at, updated_at)
              VALUES (${partnerId}, 'https://rms.example', 'sealed', now(), true, 'ok', now(), now())`.execute(db.kysely);
    const bumps = async (change: () => Promise<unknown>) => {
      const before = await currentEpoch(db.kysely);
      await change();
      return (await currentEpoch(db.kysely)) > before;
    };
    expect(await bumps(() => sql`UPDATE channel_credentials SET revoked_at = now()`.execute(db.kysely))).toBe(true);
    expect(await bumps(() => sql`UPDATE booking_channels SET name = 'renamed'`.execute(db.kysely))).toBe(true);
    expect(await bumps(() => sql`UPDATE rms_booking_services SET base_url = 'https://other.example'`.execute(db.kysely))).toBe(true);
    expect(await bumps(() => sql`UPDATE rms_booking_services SET api_key_sealed = 'resealed'`.execute(db.kysely))).toBe(true);
    expect(await bumps(() => recordCheck(db.kysely, partnerId, { at: new Date(), ok: false, message: 'down' }, false))).toBe(false);
    expect(await bumps(() => sql`DELETE FROM channel_credentials`.execute(db.kysely))).toBe(true);
  });
});
