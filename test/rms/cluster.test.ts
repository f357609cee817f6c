import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import { openPostgres } from '../../src/db/db.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { createSchema, describePostgres, dropSchema, newSchemaName, postgresUrl, urlWithSchema } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { HttpClient } from '../helpers/http.ts';

// Two `tableside serve` processes on one PostgreSQL: the feed and the notices coordinate through the
// database only (advisory lock per nonce, unique webhook-id), never through memory.

describePostgres('RMS feed and notices across two processes', () => {
  async function cluster() {
    const schema = newSchemaName();
    await createSchema(schema);
    const url = urlWithSchema(postgresUrl()!, schema);
    const env = { DATABASE_URL: url, AUTH_FAILURE_LIMIT_PER_MIN: '100000', JOB_POLL_MS: '100' };
    const servers: ServeProcess[] = [];
    const clients: HttpClient[] = [];
    for (let i = 0; i < 2; i++) {
      const data = mkdtempSync(join(tmpdir(), `tableside-rms-node${i}-`));
      servers.push(await startServe({ ...env, TABLESIDE_DATA: data }));
      clients.push(new HttpClient(servers[i]!.url, readFileSync(join(data, 'tls.crt'), 'utf8')));
    }
    const db = openPostgres(postgresUrl()!, { schema });
    onTestFinished(async () => {
      for (const c of clients) await c.close();
      for (const s of servers) await s.stop('SIGKILL');
      await db.close();
      await dropSchema(schema);
    });
    const partner = jsonOf(await runCli(['partner', 'create', '--name', 'rms-cluster', '--access', 'rms', '--json'], { DATABASE_URL: url }));
    return { clients, db, key: partner.apiKey as string };
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
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox WHERE type = 'availability_feed.processed'`.execute(c.db.kysely);
    expect(rows[0]!.n).toBe(1);
    const staged = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rms_feed_staging`.execute(c.db.kysely);
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
        FROM rms_availability GROUP BY 1 ORDER BY 1`.execute(c.db.kysely);
      expect(rows).toEqual([{ nonce: status.nonce, n: size }]);
      expect(status).toMatchObject({ records: size, venues: 50 });
    }
  });
});
