// Booking channels (issue 11), each figure beside a baseline measured in the same run:
//
// 1. BatchAvailabilityLookup of 50 slot times (2 dates x 25 times, party size 2) through a real
//    `tableside serve` process to the reference RMS (a real `tableside rms-sim` process), vs the
//    same lookups bare: the 2 GET /availability they need, sent in parallel with undici to the
//    RMS. Ratio p50 and p99.
// 2. The same BatchAvailabilityLookup with the RMS hanging (every availability call never answered):
//    p50 and p99, which must stay under 1.5 s.
// 3. `tableside feeds export` for a channel linked to 200 venues with 30 days x 10 party sizes of
//    snapshot (60,000 records, 40 slots each) on PostgreSQL: seconds and the command's peak RSS.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bin/run-ts.mjs bench/channels.ts
//
// Options: BENCH_LOOKUPS (300), BENCH_HANG_LOOKUPS (60), BENCH_CONCURRENCY (4), BENCH_FEED_VENUES (200),
// BENCH_PARTS (lookup,hang,feeds). Everything lives in a fresh schema, dropped at the end.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { rootCertificates } from 'node:tls';
import pg from 'pg';
import { Agent, request } from 'undici';
import { RmsControlClient } from '../rms-simulator/src/index.ts';
import { jsonOf, runCli, startServe } from '../test/helpers/cli.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const BASE_URL = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 300);
const HANG_LOOKUPS = Number(process.env.BENCH_HANG_LOOKUPS ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const FEED_VENUES = Number(process.env.BENCH_FEED_VENUES ?? 200);
const parts = (process.env.BENCH_PARTS ?? 'lookup,hang,feeds').split(',');

interface Stats { p50: number; p99: number; mean: number; max: number; rps: number }

async function closedLoop(total: number, concurrency: number, call: () => Promise<void>): Promise<Stats> {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < total) {
      issued++;
      const t0 = performance.now();
      await call();
      latencies.push(performance.now() - t0);
    }
  }));
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { p50: at(0.5), p99: at(0.99), mean: latencies.reduce((s, x) => s + x, 0) / latencies.length, max: latencies.at(-1)!, rps: (total / elapsed) * 1000 };
}

function startRmsSim(dir: string): Promise<{ child: ChildProcess; baseUrl: string; apiKey: string; caFile: string }> {
  const child = spawn(process.execPath, [`${ROOT}bin/tableside.mjs`, 'rms-sim', '--port', '0', '--json'], {
    cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', TABLESIDE_DATA: dir }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const info = JSON.parse(line);
      resolve({ child, baseUrl: info.baseUrl, apiKey: info.apiKey, caFile: info.caFile });
    });
    child.on('exit', (code) => reject(new Error(`rms-sim exited with ${code}`)));
  });
}

const withSchema = (url: string, schema: string) => {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
};

async function call(agent: Agent, method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, body?: unknown) {
  const res = await request(url, {
    method, dispatcher: agent, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${method} ${url} → ${res.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const row = (name: string, s: Stats, base?: Stats) =>
  `| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.max.toFixed(2)} | ${s.rps.toFixed(0)} | ${base ? `${(s.p50 / base.p50).toFixed(2)} / ${(s.p99 / base.p99).toFixed(2)}` : '-'} |`;

async function main(): Promise<void> {
  const schema = `bench_chn_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const url = withSchema(BASE_URL, schema);
  const sim = await startRmsSim(mkdtempSync(join(tmpdir(), 'tableside-bench-chn-rms-')));
  const data = mkdtempSync(join(tmpdir(), 'tableside-bench-chn-'));
  const serve = await startServe({ DATABASE_URL: url, TABLESIDE_DATA: data, ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: sim.caFile, AUTH_FAILURE_LIMIT_PER_MIN: '100000', LOG_LEVEL: 'warn' });
  const simCa = readFileSync(sim.caFile, 'utf8');
  // One agent per server: both certificates are self-signed for localhost with the same subject, and
  // OpenSSL looks a trust anchor up by subject, so one store holding both may pick the wrong one.
  const agent = new Agent({ connect: { ca: [...rootCertificates, readFileSync(join(data, 'tls.crt'), 'utf8')] }, keepAliveTimeout: 10_000, connections: 32 });
  const simAgent = new Agent({ connect: { ca: [...rootCertificates, simCa] }, keepAliveTimeout: 10_000, connections: 32 });
  try {
    const env = { DATABASE_URL: url };
    const partner = jsonOf(await runCli(['partner', 'create', '--name', 'bench rms', '--access', 'rms', '--json'], env));
    const channel = jsonOf(await runCli(['channel', 'create', '--name', 'Bench Google', '--protocol', 'google-v3', '--json'], env));
    const key = { authorization: `Bearer ${partner.apiKey}` };
    const venue = await call(agent, 'POST', `${serve.url}/v1/rms/venues`, key, { externalId: 'rms-venue-1', name: 'The Anchor', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London' });
    await call(agent, 'PUT', `${serve.url}/v1/rms/booking-services`, key, { baseUrl: sim.baseUrl, apiKey: sim.apiKey });
    await call(agent, 'PUT', `${serve.url}/v1/rms/booking-channels/${channel.id}/link-venues`, key, { venues: [venue.id] });
    const basic = { authorization: `Basic ${Buffer.from(`${channel.credentials.username}:${channel.credentials.password}`).toString('base64')}` };

    const dates = [2, 3].map((n) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10));
    const slotTimes = dates.flatMap((d) => Array.from({ length: 25 }, (_, i) => ({
      service_id: 'dining', start_sec: String(Date.parse(`${d}T11:00:00Z`) / 1000 + i * 900), duration_sec: '5400', resource_ids: { party_size: 2 },
    })));
    const lookup = async () => {
      const body = await call(agent, 'POST', `${serve.url}/v3/BatchAvailabilityLookup`, basic, { merchant_id: venue.id, slot_time: slotTimes });
      if (body.slot_time_availability.length !== 50) throw new Error('not 50 answers');
    };
    const bare = async () => {
      await Promise.all(dates.map((d) => call(simAgent, 'GET', `${sim.baseUrl}/availability?venueId=rms-venue-1&date=${d}&partySize=2`, { authorization: `Bearer ${sim.apiKey}` })));
    };

    if (parts.includes('lookup')) {
      await closedLoop(50, CONCURRENCY, bare);
      await closedLoop(50, CONCURRENCY, lookup);
      const b = await closedLoop(LOOKUPS, CONCURRENCY, bare);
      const t = await closedLoop(LOOKUPS, CONCURRENCY, lookup);
      console.log(`\n### BatchAvailabilityLookup, 50 slot times, RMS healthy (${LOOKUPS} each, ${CONCURRENCY} in flight)\n`);
      console.log('| path | p50 ms | p99 ms | max ms | req/s | p50 / p99 vs bare |\n|---|---|---|---|---|---|');
      console.log(row('bare: the 2 GET /availability to the reference RMS, in parallel', b, b));
      console.log(row('Tableside /v3/BatchAvailabilityLookup (Basic auth, link check, live RMS)', t, b));
    }

    if (parts.includes('hang')) {
      const control = new RmsControlClient(sim.baseUrl, sim.apiKey, simCa);
      await control.setFailures({ mode: 'hang', operations: ['availability'] });
      const h = await closedLoop(HANG_LOOKUPS, CONCURRENCY, lookup);
      await control.setFailures({ mode: 'none', operations: null });
      await control.close();
      console.log(`\n### BatchAvailabilityLookup with the RMS hanging (${HANG_LOOKUPS}, ${CONCURRENCY} in flight; no snapshot)\n`);
      console.log('| path | p50 ms | p99 ms | max ms | req/s | limit |\n|---|---|---|---|---|---|');
      console.log(`${row('Tableside /v3/BatchAvailabilityLookup', h).replace(/\| - \|$/, '')}| p99 < 1500: ${h.p99 < 1500 ? 'yes' : 'NO'} |`);
    }

    if (parts.includes('feeds')) {
      // 200 venues of the partner linked to the channel, and a complete snapshot of 30 days x 10 party sizes.
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      const t0 = performance.now();
      await db.query(`INSERT INTO venues (id, name, country_code, city, timezone, currency, owner_partner_id, external_id, created_at, updated_at)
        SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'Feed venue ' || g, 'GB', 'London', 'Europe/London', 'GBP', $1, 'feed-' || g, now(), now()
        FROM generate_series(1, $2) g`, [partner.partnerId, FEED_VENUES]);
      await db.query(`INSERT INTO venue_booking_channels (channel_id, venue_id, linked_at)
        SELECT $1, ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, now() FROM generate_series(1, $2) g`, [channel.id, FEED_VENUES]);
      await db.query(`INSERT INTO rms_availability (partner_id, rms_venue_id, date, party_size, area_id, duration, slots)
        SELECT $1, 'feed-' || v, current_date + d, p, NULL, 5400,
          (SELECT jsonb_agg(jsonb_build_object('startSec', extract(epoch FROM (current_date + d)::timestamptz + interval '11 hours' + s * interval '15 minutes')::bigint,
             'totalSpots', 8, 'openSpots', (v + s + p) % 9, 'deposit', false, 'depositAmount', 0, 'requiresCc', false)) FROM generate_series(0, 39) s)
        FROM generate_series(1, $2) v, generate_series(0, 29) d, generate_series(1, 10) p`, [partner.partnerId, FEED_VENUES]);
      await db.query(`INSERT INTO rms_feed_snapshots (partner_id, nonce, feed_date, records, venues, completed_at) VALUES ($1, 'bench', now(), $2, $3, now())
        ON CONFLICT (partner_id) DO UPDATE SET nonce = 'bench'`, [partner.partnerId, FEED_VENUES * 300, FEED_VENUES]);
      await db.query('ANALYZE');
      await db.end();
      const seeded = (performance.now() - t0) / 1000;
      const out = mkdtempSync(join(tmpdir(), 'tableside-bench-feeds-'));
      const e0 = performance.now();
      const run = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, `${ROOT}bin/tableside.mjs`, 'feeds', 'export', '--channel', channel.id, '--out', out, '--json'], {
        cwd: ROOT, env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
      });
      const seconds = (performance.now() - e0) / 1000;
      if (run.status !== 0) throw new Error(`feeds export failed: ${run.stderr}`);
      const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
      const rss = Number(/maxrss_kb=(\d+)/.exec(run.stderr)?.[1] ?? 0) / 1024;
      const validate = spawnSync(process.execPath, [`${ROOT}bin/tableside.mjs`, 'feeds', 'validate', out, '--json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      console.log(`\n### Feed export, ${FEED_VENUES} venues x 30 days x 10 party sizes (snapshot seeded in ${seeded.toFixed(1)} s)\n`);
      console.log('| command | records | files | seconds (whole command, incl. start) | peak RSS MiB | validate |\n|---|---|---|---|---|---|');
      console.log(`| tableside feeds export | ${result.records} | ${result.files.length} | ${seconds.toFixed(1)} | ${rss.toFixed(0)} | ${validate.status === 0 ? 'ok' : 'FAILED'} |`);
    }
  } finally {
    await agent.close();
    await simAgent.close();
    await serve.stop('SIGTERM');
    sim.child.kill('SIGTERM');
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
  }
}

await main();
