import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { openPostgres, type Db } from '../../src/db/db.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { createSchema, describePostgres, dropSchema, newSchemaName, postgresUrl, urlWithSchema } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { HttpClient, testCertFile, testTls } from '../helpers/http.ts';

// Two `tableside serve` processes on one PostgreSQL, with the reference RMS over HTTPS: the feed and
// the notices coordinate through the database only (advisory lock per partner's feed, unique
// webhook-id, the booking's re-read claim), never through memory. One cluster serves every test;
// each test has a partner of its own.

describePostgres('RMS feed and notices across two processes', () => {
  let schema: string;
  let url: string;
  let sim: RmsSimulator;
  let db: Db;
  const servers: ServeProcess[] = [];
  const clients: HttpClient[] = [];

  beforeAll(async () => {
    schema = newSchemaName();
    await createSchema(schema);
    url = urlWithSchema(postgresUrl()!, schema);
    const tls = testTls();
    sim = await startRmsSimulator({ seed: true, tls: { key: tls.key, cert: tls.cert } });
    const env = { DATABASE_URL: url, AUTH_FAILURE_LIMIT_PER_MIN: '100000', JOB_POLL_MS: '100', ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: testCertFile() };
    for (let i = 0; i < 2; i++) {
      const data = mkdtempSync(join(tmpdir(), `tableside-rms-node${i}-`));
      servers.push(await startServe({ ...env, TABLESIDE_DATA: data }));
      clients.push(new HttpClient(servers[i]!.url, readFileSync(join(data, 'tls.crt'), 'utf8')));
    }
    db = openPostgres(postgresUrl()!, { schema });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    for (const s of servers) await s.stop('SIGKILL');
    await sim?.close();
    await db?.close();
    if (schema) await dropSchema(schema);
  });

  /** A partner of the test's own (its feed and notices apart from the other tests'). */
  async function cluster() {
    const partner = jsonOf(await runCli(['partner', 'create', '--name', 'rms-cluster', '--access', 'rms', '--json'], { DATABASE_URL: url }));
    return { clients, db, key: partner.apiKey as string, partnerId: partner.partnerId as string };
  }

  it('[BKG-20] the shards of one feed sent at once to two processes complete it exactly once, with every record', async () => {
    const c = await cluster();
    const total = 12;
    const nonce = 'cluster-nonce';
    const shard = (i: number) => Array.from({ length: 50 }, (_, r) => ({
      venueId: `v${(i * 50 + r) % 40}`, date: '2025-06-12', partySize: 1 + ((i * 50 + r) % 10) + 10 * Math.floor((i * 50 + r) / 400),
      slotData: [{ startSec: 1_749_661_200 + r * 900, totalSpots: 2, openSpots: 1, deposit: false, depositAmount: 0, requiresCc: false }],
    }));
    const answers = await Promise.all(Array.from({ length: total }, (_, i) => c.clients[i % 2]!.post('/v1/rms/availability-feed', {
      token: c.key, body: { metadata: { total_shards: total, shard_number: i, nonce }, data: shard(i) },
    })));
    expect(answers.map((a) => a.status)).toEqual(Array(total).fill(202));
    expect(answers.filter((a) => a.body.status === 'complete')).toHaveLength(1);
    const status = (await c.clients[1]!.get('/v1/rms/availability-feed', { token: c.key })).body;
    expect(status).toMatchObject({ nonce, records: total * 50, venues: 40, incomplete: [] });
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox WHERE type = 'availability_feed.processed' AND partner_id = ${c.partnerId}`.execute(c.db.kysely);
    expect(rows[0]!.n).toBe(1);
    const staged = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rms_feed_staging WHERE partner_id = ${c.partnerId}`.execute(c.db.kysely);
    expect(staged.rows[0]!.n).toBe(0);
  });

  it('[BKG-18] [BKG-19] one notice (same webhook-id) delivered to both processes at once is recorded once and processed once', async () => {
    const c = await cluster();
    const body = { entity: 'booking', entityId: 'phone-booking-7', action: 'update' };
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => c.clients[i % 2]!.post('/v1/rms/notifications', {
      token: c.key, body, headers: { 'webhook-id': 'msg_same' },
    })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rms_notices WHERE entity_id = 'phone-booking-7'`.execute(c.db.kysely);
    expect(rows[0]!.n).toBe(1);
    // The job runs in one of the processes: an unknown booking is acknowledged and recorded, never an error.
    await eventually(async () => {
      const r = await sql<{ outcome: string | null }>`SELECT outcome FROM rms_notices WHERE entity_id = 'phone-booking-7'`.execute(c.db.kysely);
      expect(r.rows[0]!.outcome).toBe('unknown_booking');
    }, { what: 'the notice processed' });
  });
  it('[BKG-44] two feeds of one partner completing at once on two processes leave a snapshot of exactly one nonce\'s records', async () => {
    const c = await cluster();
    const size = 1500;
    // Each feed is one shard, so each request completes its nonce; its venues name the nonce.
    const feed = (nonce: string) => ({
      metadata: { total_shards: 1, shard_number: 0, nonce },
      data: Array.from({ length: size }, (_, r) => ({
        venueId: `${nonce}-v${r % 50}`, date: '2025-06-12', partySize: 1 + Math.floor(r / 50),
        slotData: [{ startSec: 1_749_661_200, totalSpots: 2, openSpots: 1, deposit: false, depositAmount: 0, requiresCc: false }],
      })),
    });
    for (let round = 0; round < 4; round++) {
      const nonces = [`race-${round}-a`, `race-${round}-b`];
      const answers = await Promise.all(nonces.map((nonce, i) => c.clients[i]!.post('/v1/rms/availability-feed', { token: c.key, body: feed(nonce) })));
      expect(answers.map((a) => a.status)).toEqual([202, 202]);
      const status = (await c.clients[0]!.get('/v1/rms/availability-feed', { token: c.key })).body;
      expect(nonces).toContain(status.nonce);
      const { rows } = await sql<{ nonce: string; n: number }>`SELECT split_part(rms_venue_id, '-v', 1) AS nonce, count(*)::int AS n
        FROM rms_availability WHERE partner_id = ${c.partnerId} GROUP BY 1 ORDER BY 1`.execute(c.db.kysely);
      expect(rows).toEqual([{ nonce: status.nonce, n: size }]);
      expect(status).toMatchObject({ records: size, venues: 50 });
    }
  });
  it('[BKG-43] two notices of one booking run at once on two processes, the first re-read answered late: the booking ends at the RMS\'s latest state', async () => {
    const c = await cluster();
    const [a, b] = c.clients as [HttpClient, HttpClient];
    const ok = (res: { status: number; body: any }) => {
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    // Every state of the booking has one updatedAt: the RMS's clock stands still (as whole seconds do).
    await sim.control.setClock({ set: new Date().toISOString(), frozen: true });
    const channel = jsonOf(await runCli(['channel', 'create', '--name', 'Late Reads', '--protocol', 'tableside', '--json'], { DATABASE_URL: url }));
    const venue = ok(await a.post('/v1/rms/venues', { token: c.key, body: { externalId: 'rms-venue-2', name: 'The Lantern', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London' } }));
    ok(await a.put('/v1/rms/booking-services', { token: c.key, body: { baseUrl: sim.baseUrl, apiKey: sim.apiKey } }));
    ok(await a.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: c.key, body: { venues: [venue.id] } }));
    const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const booking = ok(await a.post('/v1/bc/bookings', {
      headers: { authorization: `Bearer ${channel.credentials.apiKey}`, 'idempotency-key': 'late-reads-1' },
      body: { venueId: venue.id, partySize: 2, start: `${day}T19:00:00Z`, contact: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0001' } },
    }));
    const rmsId = (await sim.control.bookings('rms-venue-2')).find((x) => x.contact.email === 'ada@example.com')!.id;
    const rms = new HttpClient(sim.baseUrl, testTls().cert);
    const notify = (client: HttpClient, action: string) =>
      client.post('/v1/rms/notifications', { token: c.key, body: { entity: 'booking', entityId: rmsId, action } });
    try {
      await sim.control.clearRequests();
      expect((await rms.put(`/booking/${rmsId}`, { token: sim.apiKey, body: { partySize: 3 } })).status).toBe(200);
      // The first notice's re-read reads "party of 3, confirmed" and its answer comes 2 s late.
      await sim.control.setFailures({ lagMs: 2000, operations: ['read'], count: 1 });
      expect((await notify(a, 'update')).status).toBe(202);
      await eventually(async () => {
        const reads = await sim.control.requests({ operation: 'read' });
        expect(reads.some((r) => r.path === `/booking/${rmsId}` && r.laggingSince !== undefined)).toBe(true);
      }, { what: 'the first re-read answered by the RMS and held on its way' });
      // Meanwhile the restaurant cancels it; that notice reaches the other process.
      expect((await rms.put(`/booking/${rmsId}/cancel`, { token: sim.apiKey, body: { cancelActor: 'restaurant' } })).status).toBe(200);
      expect((await notify(b, 'cancel')).status).toBe(202);
      await eventually(async () => {
        const { rows } = await sql<{ outcome: string | null }>`SELECT outcome FROM rms_notices WHERE partner_id = ${c.partnerId}`.execute(c.db.kysely);
        expect(rows.length).toBe(2);
        expect(rows.every((r) => r.outcome !== null)).toBe(true);
        // …and every re-read job has ended (the late one included: it may still write after the other).
        const jobs = await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE kind = 'rms.notice'`.execute(c.db.kysely);
        expect(jobs.rows[0]!.n).toBe(0);
      }, { what: 'both notices processed and their jobs ended' });
      const { rows } = await sql<{ status: string; party_size: number }>`SELECT status, party_size FROM bookings WHERE id = ${booking.id}`.execute(c.db.kysely);
      expect(rows[0]).toEqual({ status: 'canceled', party_size: 3 });
    } finally {
      await rms.close();
      await sim.control.setFailures({ mode: 'none' });
    }
  });
});
