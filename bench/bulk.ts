// Bulk paths of issue 28 (rows 10 and 11), each beside a baseline measured in the same run, on PostgreSQL:
//
// 1. Availability feed ingest from outside: the shards POSTed to a real `tableside serve` process
//    (`POST /v1/rms/availability-feed`, checked, staged, the snapshot swapped in the last shard's
//    transaction) vs PostgreSQL's COPY FROM STDIN of the same rows into the same table
//    (rms_availability, for another partner), one COPY per shard. Ratio of the times; the service's
//    RSS growth (peak during the ingest, VmHWM reset before, minus its RSS before).
// 2. Google's availability feed for a channel linked to V venues x 30 days x 10 party sizes x 40 slots
//    (V = 200: 2.4 M Google records): `tableside feeds export` (a real command: its time and peak RSS)
//    and `GET /v1/feeds/{id}/availability` read to the end from the serve process (its time and the
//    service's peak RSS), vs the same rows read by raw SQL (one statement per venue, as pg parses
//    them) and written as Google's JSON records to a file, with backpressure, in this process.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bin/run-ts.mjs bench/bulk.ts
//
// Options: BENCH_FEED_RECORDS (1000000, the issue's size; 50000 for a short run), BENCH_FEED_SHARDS (20), BENCH_FEED_SLOTS
// (slots per record, 2: a 1,000,000-record feed in 20 shards is then 14 MiB a shard, under the route's 32 MiB),
// BENCH_EXPORT_VENUES (200, the issue's size; 20 for a short run), BENCH_ROUNDS (1: measured rounds, each baseline then service),
// BENCH_PARTS (ingest,export). Everything lives in a fresh schema, dropped at the end; every process
// it starts is stopped at the end, on failure and on SIGINT/SIGTERM.

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { rootCertificates } from 'node:tls';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Agent, request } from 'undici';
import { record, type ResultRow } from './lib/results.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const BASE_URL = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
// `npm run bench` measures the issue's rows at the issue's sizes (the short sizes hid the memory of a full
// feed: +26 MiB at 50,000 records was +201 MiB at 1,000,000).
const RECORDS = Number(process.env.BENCH_FEED_RECORDS ?? 1_000_000);
const SHARDS = Number(process.env.BENCH_FEED_SHARDS ?? 20);
const SLOTS = Number(process.env.BENCH_FEED_SLOTS ?? 2);
const VENUES = Number(process.env.BENCH_EXPORT_VENUES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const parts = (process.env.BENCH_PARTS ?? 'ingest,export').split(',');

// Every child this bench starts, stopped whatever happens (a failed bench once left a simulator running).
const children = new Set<ChildProcess>();
const stopAll = () => { for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); };
const SCHEMA = `bench_bulk_${Date.now().toString(36)}`;
/** Interrupted: the children stopped at once, then the schema dropped on a connection of its own. */
async function interrupted(): Promise<never> {
  stopAll();
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect().then(() => admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`)).catch(() => {});
  await admin.end().catch(() => {});
  process.exit(130);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void interrupted());
process.on('exit', stopAll);

const BIN = join(ROOT, 'bin/tableside.mjs');
const cliEnv = (env: Record<string, string>) => ({ ...process.env, LOG_LEVEL: 'warn', ...env });

/** Runs a `tableside` command to its end; its stdout's last line parsed as JSON. */
function runCli(args: string[], env: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => {
      children.delete(child);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').at(-1)!));
      else reject(new Error(`tableside ${args.join(' ')} → ${code}: ${err.slice(-2000)}`));
    });
  });
}

interface ServeProcess { child: ChildProcess; url: string; output(): string; stop(): Promise<void> }

/** `tableside serve` on port 0, once it says where it listens. */
function startServe(env: Record<string, string>): Promise<ServeProcess> {
  // BENCH_SERVE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the service.
  const nodeArgs = (process.env.BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve'], { cwd: ROOT, env: cliEnv({ PORT: '0', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const exited = once(child, 'exit');
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk;
      const match = /Tableside listening on (https:\/\/[^\s]+:\d+)/.exec(out);
      if (match) resolve({ child, url: match[1]!, output: () => out, stop: async () => { if (child.exitCode === null) child.kill('SIGTERM'); await exited; } });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out.slice(-2000)}`)));
  });
}

const mib = (kb: number) => kb / 1024;
/** CPU seconds (user + system) the process has used so far, from /proc/<pid>/stat (clock ticks of 1/100 s). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const procStatus = (pid: number, field: 'VmHWM' | 'VmRSS') => mib(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN));
/** Resets the peak (writing 5 to clear_refs, Linux 4.0+), so the next reading covers one run. */
const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const spread = (xs: number[], unit: string) => xs.map((x) => `${x.toFixed(2)}${unit}`).join(', ');

function timesRow(scenario: string, value: number, base: number, baseLabel: string, times: number): ResultRow {
  const r = value / base;
  return { scenario, figure: `${value.toFixed(2)} s`, baseline: `${baseLabel} ${base.toFixed(2)} s`, ratio: `${r.toFixed(2)}x`, goal: `<= ${times}x`, met: r <= times };
}
function capRow(scenario: string, value: number, baseLabel: string, cap: number): ResultRow {
  return { scenario, figure: `${value.toFixed(0)} MiB`, baseline: baseLabel, ratio: `${value.toFixed(0)} MiB`, goal: `<= ${cap} MiB`, met: value <= cap };
}
function rateRow(scenario: string, value: number, base: number, baseLabel: string, share: number): ResultRow {
  const r = value / base;
  return { scenario, figure: `${value.toFixed(0)} records/s`, baseline: `${baseLabel} ${base.toFixed(0)}/s`, ratio: `${(r * 100).toFixed(1)}%`, goal: `>= ${share * 100}%`, met: r >= share };
}

const withSchema = (url: string, schema: string) => {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
};

/** The feed as an RMS sends it: V venues x days x 10 party sizes, SLOTS slots each, in SHARDS bodies. */
function feedShards(nonce: string, records = RECORDS, shards = SHARDS): string[] {
  const perShard = Math.ceil(records / shards);
  const base = Math.floor(Date.UTC(2026, 5, 1, 17) / 1000);
  const bodies: string[] = [];
  for (let s = 0; s < shards; s++) {
    const data = [];
    for (let i = s * perShard; i < Math.min(records, (s + 1) * perShard); i++) {
      const venue = i % 500;
      const party = 1 + (Math.floor(i / 500) % 10);
      const day = Math.floor(i / 5000);
      const date = new Date(Date.UTC(2026, 5, 1 + day)).toISOString().slice(0, 10);
      const slotData = Array.from({ length: SLOTS }, (_, k) => ({
        startSec: base + day * 86_400 + k * 900, totalSpots: 8, openSpots: (venue + k + party) % 9,
        deposit: party > 6, depositAmount: party > 6 ? 1000 : 0, requiresCc: party > 8,
      }));
      data.push({ venueId: `venue-${venue}`, date, partySize: party, duration: 5400, slotData });
    }
    bodies.push(JSON.stringify({ metadata: { total_shards: shards, shard_number: s, nonce }, data }));
  }
  return bodies;
}

/** The same rows as COPY text for the baseline (the slots as the snapshot stores them). */
function copyLines(body: string, partnerId: string): string {
  const { data } = JSON.parse(body) as { data: Array<{ venueId: string; date: string; partySize: number; duration: number; slotData: unknown[] }> };
  return data.map((r) => `${partnerId}\t${r.venueId}\t${r.date}\t${r.partySize}\t\\N\t${r.duration}\t${JSON.stringify(r.slotData)}\n`).join('');
}

async function post(agent: Agent, url: string, token: string, body: string) {
  const res = await request(url, { method: 'POST', dispatcher: agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
  const text = await res.body.text();
  if (res.statusCode !== 202) throw new Error(`POST ${url} → ${res.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

interface World { url: string; serve: ServeProcess; agent: Agent; db: pg.Client; partner: { partnerId: string; apiKey: string }; startRss: number }

async function ingestBench(w: World): Promise<void> {
  const other = (await runCli(['partner', 'create', '--name', 'bench copy baseline', '--access', 'rms', '--json'], { DATABASE_URL: w.url }));
  // Each shard's time: the last one also swaps the snapshot (what bounds the ratio: bench/README.md).
  let shardTimes: number[] = [];
  const ingest = async (nonce: string, bodies = feedShards(nonce)) => {
    const t0 = performance.now();
    let last;
    shardTimes = [];
    for (const body of bodies) {
      const s0 = performance.now();
      last = await post(w.agent, `${w.serve.url}/v1/rms/availability-feed`, w.partner.apiKey, body);
      shardTimes.push((performance.now() - s0) / 1000);
    }
    if (last.status !== 'complete') throw new Error(`the last shard answered ${JSON.stringify(last)}`);
    return (performance.now() - t0) / 1000;
  };
  const copy = async (bodies = feedShards('copy')) => {
    const texts = bodies.map((b) => copyLines(b, other.partnerId));
    await w.db.query('DELETE FROM rms_availability WHERE partner_id = $1', [other.partnerId]);
    const t0 = performance.now();
    for (const text of texts) {
      await pipeline(Readable.from([text]), w.db.query(copyFrom('COPY rms_availability (partner_id, rms_venue_id, date, party_size, area_id, duration, slots) FROM STDIN')));
    }
    return (performance.now() - t0) / 1000;
  };
  const pid = w.serve.child.pid!;
  // Warm-up of both paths: one shard's worth (a feed of one shard), not the whole feed again.
  const warm = Math.ceil(RECORDS / SHARDS);
  await copy(feedShards('copy', warm, 1));
  await ingest('warm-up', feedShards('warm-up', warm, 1));
  const copies: number[] = [];
  const ingests: number[] = [];
  const growths: number[] = [];
  const cpus: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    copies.push(await copy());
    global.gc?.();
    const before = procStatus(pid, 'VmRSS');
    resetPeak(pid);
    const cpu0 = cpuSeconds(pid);
    ingests.push(await ingest(`measured-${r}`));
    cpus.push(cpuSeconds(pid) - cpu0);
    growths.push(procStatus(pid, 'VmHWM') - before);
    const staged = shardTimes.slice(0, -1);
    console.log(`round ${r}: shards 1-${staged.length} (staged) ${staged.reduce((a, b) => a + b, 0).toFixed(2)} s in all (median ${median(staged).toFixed(2)} s), the last shard (staged + the snapshot swapped) ${shardTimes.at(-1)!.toFixed(2)} s`);
  }
  const { rows } = await w.db.query('SELECT records FROM rms_feed_snapshots WHERE partner_id = $1', [w.partner.partnerId]);
  if (rows[0]?.records !== RECORDS) throw new Error(`snapshot holds ${rows[0]?.records} records, expected ${RECORDS}`);
  const mb = feedShards('size').reduce((s, b) => s + b.length, 0) / 1024 / 1024;
  console.log(`\n### Feed ingest: ${RECORDS} records (${SLOTS} slots each) in ${SHARDS} shards, ${mb.toFixed(1)} MiB of JSON, ${ROUNDS} round(s)\n`);
  console.log(`COPY FROM STDIN of the same rows: ${spread(copies, ' s')}; POST /v1/rms/availability-feed: ${spread(ingests, ' s')}; service RSS growth: ${spread(growths, ' MiB')}; service CPU (user+sys) during the ingest: ${spread(cpus, ' s')}`);
  record(timesRow(`feed ingest, ${RECORDS} records in ${SHARDS} shards (HTTP)`, median(ingests), median(copies), 'COPY FROM STDIN', 3));
  record(capRow(`feed ingest, ${RECORDS} records: service RSS growth`, Math.max(...growths), `peak minus RSS before (${procStatus(pid, 'VmRSS').toFixed(0)} MiB after)`, 128));
}

/** The snapshot behind the export: VENUES venues linked to the channel, 30 days x 10 party sizes x 40 slots. */
async function seedSnapshot(w: World, channelId: string): Promise<number> {
  await w.db.query(`INSERT INTO venues (id, name, country_code, city, timezone, currency, owner_partner_id, external_id, created_at, updated_at)
    SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'Feed venue ' || g, 'GB', 'London', 'Europe/London', 'GBP', $1, 'feed-' || g, now(), now()
    FROM generate_series(1, $2) g`, [w.partner.partnerId, VENUES]);
  await w.db.query(`INSERT INTO venue_booking_channels (channel_id, venue_id, linked_at)
    SELECT $1, ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, now() FROM generate_series(1, $2) g`, [channelId, VENUES]);
  await w.db.query('DELETE FROM rms_availability WHERE partner_id = $1', [w.partner.partnerId]);
  // Starts from tomorrow, venue-local: every slot is inside the feed's 30-day horizon.
  await w.db.query(`INSERT INTO rms_availability (partner_id, rms_venue_id, date, party_size, area_id, duration, slots)
    SELECT $1, 'feed-' || v, current_date + d, p, NULL, 5400,
      (SELECT jsonb_agg(jsonb_build_object('startSec', extract(epoch FROM (current_date + d)::timestamptz + interval '11 hours' + s * interval '15 minutes')::bigint,
         'totalSpots', 8, 'openSpots', (v + s + p) % 9, 'deposit', false, 'depositAmount', 0, 'requiresCc', false)) FROM generate_series(0, 39) s)
    FROM generate_series(1, $2) v, generate_series(1, 29) d, generate_series(1, 10) p`, [w.partner.partnerId, VENUES]);
  await w.db.query(`INSERT INTO rms_feed_snapshots (partner_id, nonce, feed_date, records, venues, completed_at) VALUES ($1, 'bench', now(), $2, $3, now())
    ON CONFLICT (partner_id) DO UPDATE SET nonce = 'bench', records = excluded.records, venues = excluded.venues`, [w.partner.partnerId, VENUES * 290, VENUES]);
  await w.db.query('ANALYZE');
  return VENUES * 290 * 40;
}

/** The baseline: the rows read by raw SQL, venue by venue, written as Google records to a file. */
async function rawExport(w: World, file: string): Promise<number> {
  const out = createWriteStream(file);
  let n = 0;
  const t0 = performance.now();
  out.write('{"service_availability":[{"availability":[');
  for (let v = 1; v <= VENUES; v++) {
    const { rows } = await w.db.query(`SELECT rms_venue_id, party_size, duration, slots FROM rms_availability
      WHERE partner_id = $1 AND rms_venue_id = $2 ORDER BY date, party_size`, [w.partner.partnerId, `feed-${v}`]);
    let text = '';
    for (const r of rows) {
      for (const s of r.slots) {
        text += `${n++ === 0 ? '' : ','}${JSON.stringify({ merchant_id: r.rms_venue_id, service_id: 'dining', start_sec: s.startSec, duration_sec: r.duration, spots_total: s.totalSpots, spots_open: s.openSpots, resources: { party_size: r.party_size } })}`;
      }
    }
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end(']}]}');
  await once(out, 'finish');
  return (performance.now() - t0) / 1000;
}

function timedCommand(args: string[], env: Record<string, string>): Promise<{ seconds: number; rssMiB: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, join(ROOT, 'bin/tableside.mjs'), ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    children.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => {
      children.delete(child);
      if (code !== 0) return reject(new Error(`${args.join(' ')} → ${code}: ${err.slice(-2000)}`));
      resolve({ seconds: (performance.now() - t0) / 1000, rssMiB: Number(/maxrss_kb=(\d+)/.exec(err)?.[1] ?? NaN) / 1024, stdout: out });
    });
  });
}

async function exportBench(w: World): Promise<void> {
  const channel = (await runCli(['channel', 'create', '--name', 'Bench Google', '--protocol', 'google-v3', '--json'], { DATABASE_URL: w.url }));
  const total = await seedSnapshot(w, channel.id);
  const dir = mkdtempSync(join(tmpdir(), 'tableside-bench-bulk-'));
  const basic = `Basic ${Buffer.from(`${channel.credentials.username}:${channel.credentials.password}`).toString('base64')}`;
  const pid = w.serve.child.pid!;
  try {
    const raws: number[] = [];
    const exports: Array<{ seconds: number; rssMiB: number; records: number }> = [];
    const gets: Array<{ seconds: number; peak: number; bytes: number }> = [];
    const getFeed = async () => {
      resetPeak(pid);
      const t0 = performance.now();
      const res = await request(`${w.serve.url}/v1/feeds/${channel.id}/availability`, { dispatcher: w.agent, headers: { authorization: basic } });
      if (res.statusCode !== 200) throw new Error(`GET feed → ${res.statusCode}: ${(await res.body.text()).slice(0, 300)}`);
      const file = createWriteStream(join(dir, 'get.json'));
      await pipeline(res.body, file);
      return { seconds: (performance.now() - t0) / 1000, peak: procStatus(pid, 'VmHWM'), bytes: statSync(join(dir, 'get.json')).size };
    };
    await rawExport(w, join(dir, 'raw.json')); // warm-up
    await getFeed();
    for (let r = 0; r < ROUNDS; r++) {
      raws.push(await rawExport(w, join(dir, 'raw.json')));
      rmSync(join(dir, 'out'), { recursive: true, force: true });
      const run = await timedCommand(['feeds', 'export', '--channel', channel.id, '--out', join(dir, 'out'), '--json'], { DATABASE_URL: w.url });
      exports.push({ seconds: run.seconds, rssMiB: run.rssMiB, records: JSON.parse(run.stdout.trim().split('\n').at(-1)!).records });
      gets.push(await getFeed());
    }
    // The floor of any operator command: the same process opening the store and building the services.
    const floor = await timedCommand(['partner', 'create', '--name', 'bench floor', '--access', 'rms', '--json'], { DATABASE_URL: w.url });
    if (exports.some((e) => e.records !== total)) throw new Error(`the export wrote ${exports.map((e) => e.records)} records, expected ${total}`);
    const rawBytes = statSync(join(dir, 'raw.json')).size;
    const validate = await timedCommand(['feeds', 'validate', join(dir, 'out'), '--json'], {}).then(() => 'ok', (err: Error) => `FAILED: ${err.message.slice(0, 300)}`);
    console.log(`\n### Google availability feed: ${VENUES} venues x 29 days x 10 party sizes x 40 slots = ${total} records, ${ROUNDS} round(s)\n`);
    console.log(`raw SQL → JSON file: ${spread(raws, ' s')} (${(rawBytes / 1048576).toFixed(0)} MiB); tableside feeds export (whole command, incl. its start): ${spread(exports.map((e) => e.seconds), ' s')}, peak RSS ${spread(exports.map((e) => e.rssMiB), ' MiB')}; validate ${validate}; the floor (tableside partner create, same store): ${floor.seconds.toFixed(2)} s, peak RSS ${floor.rssMiB.toFixed(0)} MiB`);
    console.log(`GET /v1/feeds/{id}/availability to the end: ${spread(gets.map((g) => g.seconds), ' s')} (${(gets[0]!.bytes / 1048576).toFixed(0)} MiB), service peak RSS ${spread(gets.map((g) => g.peak), ' MiB')}`);
    const raw = total / median(raws);
    record(rateRow(`Google feed export, ${total} records (tableside feeds export)`, total / median(exports.map((e) => e.seconds)), raw, 'raw SQL → JSON file', 0.5));
    record(capRow(`Google feed export, ${total} records: the command's peak RSS`, Math.max(...exports.map((e) => e.rssMiB)), `whole process (an operator command's floor ${floor.rssMiB.toFixed(0)} MiB)`, 150));
    record(rateRow(`GET /v1/feeds/{id}/availability, ${total} records`, total / median(gets.map((g) => g.seconds)), raw, 'raw SQL → JSON file', 0.5));
    record(capRow(`GET /v1/feeds/{id}/availability, ${total} records: service peak RSS`, Math.max(...gets.map((g) => g.peak)), `whole serve process (${w.startRss.toFixed(0)} MiB once started)`, 150));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const schema = SCHEMA;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const url = withSchema(BASE_URL, schema);
  const data = mkdtempSync(join(tmpdir(), 'tableside-bench-bulk-data-'));
  let serve: ServeProcess | undefined;
  let agent: Agent | undefined;
  const db = new pg.Client({ connectionString: url });
  try {
        serve = await startServe({
      DATABASE_URL: url, TABLESIDE_DATA: data, AUTH_FAILURE_LIMIT_PER_MIN: '100000', LOG_LEVEL: 'warn',
    });
    children.add(serve.child);
    agent = new Agent({ connect: { ca: [...rootCertificates, readFileSync(join(data, 'tls.crt'), 'utf8')] }, keepAliveTimeout: 10_000, bodyTimeout: 600_000, headersTimeout: 600_000 });
    await db.connect();
    const partner = (await runCli(['partner', 'create', '--name', 'bench rms', '--access', 'rms', '--json'], { DATABASE_URL: url }));
    const w: World = { url, serve, agent, db, partner, startRss: procStatus(serve.child.pid!, 'VmRSS') };
    console.log(`serve's RSS once started (nothing served yet): ${w.startRss.toFixed(0)} MiB`);
    if (parts.includes('ingest')) await ingestBench(w);
    if (parts.includes('export')) await exportBench(w);
  } catch (err) {
    if (serve) console.error(`serve (exit ${serve.child.exitCode} ${serve.child.signalCode}) output:\n${serve.output().slice(-3000)}`);
    throw err;
  } finally {
    await agent?.close();
    await serve?.stop();
    stopAll();
    await db.end().catch(() => {});
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
    rmSync(data, { recursive: true, force: true });
  }
}

await main();
