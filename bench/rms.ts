// Reservations, RMS side (issue 10), each figure beside a baseline measured in the same run:
//
// 1. Availability lookups through Tableside's booking-services client (guarded keep-alive pool,
//    Bearer key, 1 s limit, the answer read and checked against the contract) vs the same lookups
//    sent bare (undici, keep-alive, body read and JSON.parse'd) to the reference RMS, which runs as
//    a real `tableside rms-sim` process. Ratio p50 and p99.
// 2. Ingesting a 50,000-record availability feed in shards on PostgreSQL through the feed service
//    (records checked, staged in batches, the snapshot swapped in the last shard's transaction) vs
//    a bare INSERT … SELECT FROM unnest(…) of the same rows in the same batches. Ratio of the times,
//    and the longest the event loop was blocked during the ingest.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bin/run-ts.mjs bench/rms.ts
//
// Options: BENCH_LOOKUPS (2000), BENCH_CONCURRENCY (4: the simulator's engine is one busy thread), BENCH_FEED_RECORDS (50000),
// BENCH_SHARD_SIZE (5000), BENCH_PARTS (availability,feed). Everything lives in a fresh schema, dropped at the end.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { Agent, request } from 'undici';
import { openPostgres } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createFeedService } from '../src/rms/availability-feed.service.ts';
import { RmsClients } from '../src/rms/rms-client.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const BASE_URL = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const RECORDS = Number(process.env.BENCH_FEED_RECORDS ?? 50_000);
const SHARD = Number(process.env.BENCH_SHARD_SIZE ?? 5000);

interface Stats { p50: number; p99: number; mean: number; rps: number }

async function closedLoop(total: number, concurrency: number, call: (i: number) => Promise<void>): Promise<Stats> {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < total) {
      const i = issued++;
      const t0 = performance.now();
      await call(i);
      latencies.push(performance.now() - t0);
    }
  }));
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { p50: at(0.5), p99: at(0.99), mean: latencies.reduce((s, x) => s + x, 0) / latencies.length, rps: (total / elapsed) * 1000 };
}

function startRmsSim(): Promise<{ child: ChildProcess; baseUrl: string; apiKey: string; ca: string }> {
  const child = spawn(process.execPath, [`${ROOT}bin/tableside.mjs`, 'rms-sim', '--port', '0', '--json'], {
    cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', TABLESIDE_DATA: `/tmp/tableside-bench-rms-${process.pid}` }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const info = JSON.parse(line);
      resolve({ child, baseUrl: info.baseUrl, apiKey: info.apiKey, ca: readFileSync(info.caFile, 'utf8') });
    });
    child.on('exit', (code) => reject(new Error(`rms-sim exited with ${code}`)));
  });
}

const days = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

async function availabilityBench(): Promise<void> {
  const sim = await startRmsSim();
  try {
    // The 1 s availability limit is lifted here: the bench measures the client's cost, not a
    // loaded machine's queueing (a lookup slower than 1 s would fail instead of being timed).
    const clients = new RmsClients({ timeoutMs: 10_000, availabilityTimeoutMs: 10_000, allowPrivate: true });
    clients.trust(sim.ca);
    const client = clients.for('bench', { baseUrl: sim.baseUrl, apiKey: sim.apiKey });
    const bare = new Agent({ connect: { ca: [...rootCertificates, sim.ca] }, keepAliveTimeout: 10_000, connections: 32 });
    const query = (i: number) => ({ venueId: `rms-venue-${1 + (i % 3)}`, date: days(2 + (i % 5)), partySize: 1 + (i % 6) });
    const viaClient = (i: number) => client.availability(query(i)).then(() => undefined);
    const viaBare = async (i: number) => {
      const q = query(i);
      const res = await request(`${sim.baseUrl}/availability?venueId=${q.venueId}&date=${q.date}&partySize=${q.partySize}`, {
        dispatcher: bare, headers: { authorization: `Bearer ${sim.apiKey}` },
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`bare availability → ${res.statusCode}: ${text.slice(0, 200)}`);
      JSON.parse(text);
    };
    // Warm both pools and the simulator's engine, then alternate the order to share the noise.
    await closedLoop(200, CONCURRENCY, viaBare);
    await closedLoop(200, CONCURRENCY, viaClient);
    const bareStats = await closedLoop(LOOKUPS, CONCURRENCY, viaBare);
    const clientStats = await closedLoop(LOOKUPS, CONCURRENCY, viaClient);
    const row = (name: string, s: Stats, base: Stats) =>
      `| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.mean.toFixed(2)} | ${s.rps.toFixed(0)} | ${(s.p50 / base.p50).toFixed(2)} / ${(s.p99 / base.p99).toFixed(2)} |`;
    console.log(`\n### Availability lookups (${LOOKUPS} each, ${CONCURRENCY} in flight)\n`);
    console.log('| path | p50 ms | p99 ms | mean ms | req/s | p50 / p99 vs bare |\n|---|---|---|---|---|---|');
    console.log(row('bare undici to the reference RMS', bareStats, bareStats));
    console.log(row("Tableside's booking-services client", clientStats, bareStats));
    await clients.close();
    await bare.close();
  } finally {
    sim.child.kill('SIGTERM');
  }
}

/** 200 venues x 25 days x 10 party sizes = 50,000 records, 20 slots each (a busy partner's month). */
function feedRecords(total: number) {
  const records = [];
  const base = Math.floor(Date.UTC(2026, 5, 1, 17) / 1000);
  for (let i = 0; i < total; i++) {
    const venue = i % 200;
    const party = 1 + (Math.floor(i / 200) % 10);
    const day = Math.floor(i / 2000);
    const date = new Date(Date.UTC(2026, 5, 1 + day)).toISOString().slice(0, 10);
    const slotData = Array.from({ length: 20 }, (_, s) => ({
      startSec: base + day * 86_400 + s * 900, totalSpots: 8, openSpots: (venue + s + party) % 9 > 7 ? 0 : 8 - ((venue + s) % 8),
      deposit: party > 6, depositAmount: party > 6 ? 1000 : 0, requiresCc: party > 8,
    }));
    records.push({ venueId: `venue-${venue}`, date, partySize: party, duration: 5400, slotData });
  }
  return records;
}

async function feedBench(): Promise<void> {
  const schema = `bench_rms_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const db = openPostgres(BASE_URL, { schema, max: 4 });
  try {
    await migrate(db);
    const partnerId = '00000000-0000-7000-8000-000000000001';
    await sql`INSERT INTO partners (id, name, access, created_at) VALUES (${partnerId}, 'bench', ${['rms']}, now())`.execute(db.kysely);
    const records = feedRecords(RECORDS);
    const shards: unknown[][] = [];
    for (let i = 0; i < records.length; i += SHARD) shards.push(records.slice(i, i + SHARD));
    const feed = createFeedService({ db, clock: systemClock, log: pino({ level: 'warn' }) });

    // Baseline: the same rows, in the same batches, with nothing but INSERT … SELECT FROM unnest.
    await sql`CREATE TABLE bare_availability (LIKE rms_availability)`.execute(db.kysely);
    const bare = async () => {
      const t0 = performance.now();
      for (const shard of shards as Array<typeof records>) {
        for (let i = 0; i < shard.length; i += 1000) {
          const batch = shard.slice(i, i + 1000);
          await sql`INSERT INTO bare_availability (partner_id, rms_venue_id, date, party_size, area_id, duration, slots)
            SELECT ${partnerId}, v, d, p, NULL, du, s::jsonb FROM unnest(${batch.map((r) => r.venueId)}::text[], ${batch.map((r) => r.date)}::date[],
              ${batch.map((r) => r.partySize)}::int[], ${batch.map((r) => r.duration)}::int[], ${batch.map((r) => JSON.stringify(r.slotData))}::text[]) AS t(v, d, p, du, s)`.execute(db.kysely);
        }
      }
      return performance.now() - t0;
    };
    const ingest = async (nonce: string) => {
      const t0 = performance.now();
      for (let n = 0; n < shards.length; n++) {
        // The body as it arrives over HTTP (the service reads it as a stream); the route's schema check is the route's.
        const body = Buffer.from(JSON.stringify({ metadata: { total_shards: shards.length, shard_number: n, nonce }, data: shards[n]! }));
        await feed.receive(partnerId, Readable.from([body]), () => null);
      }
      return performance.now() - t0;
    };
    await bare(); // warm-up of both paths (and of the tables' storage)
    await sql`TRUNCATE bare_availability`.execute(db.kysely);
    await ingest('warm-up');
    const bareLoop = monitorEventLoopDelay({ resolution: 10 });
    bareLoop.enable();
    const bareMs = await bare();
    bareLoop.disable();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const ingestMs = await ingest('measured');
    loop.disable();
    const status = await feed.status(partnerId);
    if (status.records !== RECORDS) throw new Error(`snapshot holds ${status.records} records, expected ${RECORDS}`);
    console.log(`\n### Feed ingest (${RECORDS} records, ${shards.length} shards of ${SHARD}, ${(JSON.stringify(records).length / 1024 / 1024).toFixed(1)} MiB of JSON)\n`);
    console.log('| path | time s | records/s | vs bare |\n|---|---|---|---|');
    console.log(`| bare INSERT … SELECT FROM unnest (same batches) | ${(bareMs / 1000).toFixed(2)} | ${(RECORDS / bareMs * 1000).toFixed(0)} | 1 |`);
    console.log(`| feed service: check, stage, swap the snapshot | ${(ingestMs / 1000).toFixed(2)} | ${(RECORDS / ingestMs * 1000).toFixed(0)} | ${(ingestMs / bareMs).toFixed(2)} |`);
    const ms = (h: typeof loop, q: number) => (h.percentile(q) / 1e6).toFixed(1);
    console.log(`\nEvent loop delay: feed ingest p50 ${ms(loop, 50)} / p99 ${ms(loop, 99)} / max ${(loop.max / 1e6).toFixed(1)} ms; bare insert p50 ${ms(bareLoop, 50)} / p99 ${ms(bareLoop, 99)} / max ${(bareLoop.max / 1e6).toFixed(1)} ms.`);
  } finally {
    await db.close();
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
  }
}

const parts = (process.env.BENCH_PARTS ?? 'availability,feed').split(',');
if (parts.includes('availability')) await availabilityBench();
if (parts.includes('feed')) await feedBench();
