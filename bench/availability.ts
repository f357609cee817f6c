// Availability at Google's scale (issue 28): each figure beside a baseline measured in the same run,
// against a real `tableside serve` process on a fresh PostgreSQL schema and the reference RMS as a
// real `tableside rms-sim` process.
//
// 1. `POST /v3/BatchAvailabilityLookup`, 50 slot times (2 dates x 25 quarter-hours, party size 2),
//    RMS healthy, 4 in flight, vs the bare RMS calls those slot times need: the 2 GET /availability
//    sent in parallel with undici (keep-alive, body read and parsed). Goal p50 and p99 <= 2x.
// 2. `GET /v1/bc/venues/{id}/availability`, live, 16 in flight, vs the one bare GET /availability
//    it needs. Goal p50 <= 1.5x.
// 3. The same two with the RMS hanging (every availability call unanswered), answered from the
//    feed snapshot, 32 in flight, vs a bare Fastify GET (bench/lib/baseline-server.ts, same TLS
//    certificate) at 32 in flight: goal p50 - 1000 ms (the live call's limit) <= 3x the bare GET's
//    p50, and p99 < 1.5 s.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bin/run-ts.mjs bench/availability.ts
//
// Options: BENCH_LOOKUPS (400: healthy requests of each kind), BENCH_HANG_LOOKUPS (384: twelve waves of 32),
// BENCH_ROUNDS (5: the healthy pairs alternate this many times; figures are the medians of the rounds'
// p50 and p99, a goal's ratio the median of the rounds' ratios), BENCH_PARTS (healthy,snapshot), BENCH_PROFILE=1 (the service writes a CPU profile to BENCH_PROFILE_DIR on exit, sampled every
// BENCH_PROFILE_INTERVAL_US, 1000),
// BENCH_RMS_HTTP1=1 (the reference RMS offers only HTTP/1.1; by default it offers HTTP/2 too).
// Everything lives in a fresh schema, dropped at the end; every child is in its own process group,
// killed at the end, on failure, and on SIGINT/SIGTERM.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { Agent, request } from 'undici';
import { RmsControlClient } from '../rms-simulator/src/index.ts';
import { trustingContext } from '../src/lib/tls.ts';
import { multipleRow, record } from './lib/results.ts';

const ROOT = join(import.meta.dirname, '..');
const BASE_URL = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 400);
// Twelve waves of 32 (three before issue 28's seventh round, six until its ninth). The 32 lookups of
// the first wave arrive together, so their deadlines fall together and their answers leave one after
// the other; the next wave starts as those answers come back, its arrivals bunched behind them, and
// so on: traced, the first two or three waves' medians were 1013-1031 ms against 1003-1006 from then
// on (bench/README.md, issue 28's ninth round). Over six waves the p50 (the 96th of 192) fell on the
// edge of that transition, so a run's figure said whether it lasted two waves or three (5-25 ms past
// the second over runs of the same code), not what an answer from the snapshot costs while an RMS
// hangs. Every wave is still measured, the transition in the p99, and each wave's median is printed.
const HANG_LOOKUPS = Number(process.env.BENCH_HANG_LOOKUPS ?? 384);
// Five rounds (two until issue 28's ninth round, whose figure and baseline were each the higher of
// the two): a goal's ratio is now the median of the rounds' ratios, each round's subject beside the
// baseline measured just before it, so a second of the host's noise on one side moves one round.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PARTS = (process.env.BENCH_PARTS ?? 'healthy,snapshot').split(',');

interface Stats {
  p50: number;
  p99: number;
  max: number;
  rps: number;
  /** Each request's latency in the order the requests were sent. */
  inOrder: number[];
}

async function closedLoop(total: number, concurrency: number, call: () => Promise<void>): Promise<Stats> {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < total) {
      const i = issued++;
      const t0 = performance.now();
      const w0 = Date.now();
      await call();
      latencies[i] = performance.now() - t0;
      if (process.env.BENCH_TRACE) console.error(`TRACE ${w0} ${Date.now()}`);
    }
  }));
  const elapsed = performance.now() - started;
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1)!, rps: (total / elapsed) * 1000, inOrder: latencies };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms); 0 once it has gone. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * `loop`, and the CPU each of `pids` used per request meanwhile, and the serve's PostgreSQL backends
 * (`backends` lists them: the pool's connections, by the application_name it sends): on two cores
 * a statement the serve does not send is CPU both the serve and PostgreSQL no longer spend.
 */
async function withCpu(pids: Record<string, number>, total: number, loop: () => Promise<Stats>, backends: () => Promise<number[]>): Promise<Stats & { cpu: string }> {
  const before = Object.values(pids).map(cpuMs);
  const pgBefore = new Map((await backends()).map((pid) => [pid, cpuMs(pid)]));
  const stats = await loop();
  const per = Object.entries(pids).map(([name, pid], i) => `${name} ${((cpuMs(pid) - before[i]!) / total).toFixed(2)}`);
  let pgMs = 0;
  for (const pid of await backends()) pgMs += cpuMs(pid) - (pgBefore.get(pid) ?? 0);
  return { ...stats, cpu: `${per.join(', ')}, postgres ${(pgMs / total).toFixed(2)} ms/request` };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// ---- children: each in its own process group, all killed whatever happens ----

const children: ChildProcess[] = [];
function killAll(signal: NodeJS.Signals = 'SIGTERM') {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null || !c.pid) continue;
    try {
      process.kill(-c.pid, signal);
    } catch {
      // already gone
    }
  }
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    killAll('SIGKILL');
    process.exit(130);
  });
}
process.on('exit', () => killAll('SIGKILL'));

/** Starts a node child in its own process group; resolves with the first stdout line matching. */
function start(args: string[], env: Record<string, string>, match: RegExp, stream: 'stdout' | 'stderr' = 'stdout'): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT, detached: true, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  // The other stream is passed through, so a child's complaint is seen.
  (stream === 'stdout' ? child.stderr! : child.stdout!).pipe(process.stderr);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child[stream]! });
    lines.on('line', (line) => {
      if (match.test(line)) resolve({ child, line });
    });
    child.on('exit', (code) => reject(new Error(`${args.slice(1).join(' ')} exited with ${code}`)));
  });
}

function cli(args: string[], env: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/tableside.mjs'), ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`${args.join(' ')}: ${err}`))));
  });
}

/** Requests sent again once because a kept-alive connection was closed under them (printed at the end). */
let resent = 0;

async function call(agent: Agent, method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, body?: unknown, retry = true): Promise<any> {
  try {
    return await callOnce(agent, method, url, headers, body);
  } catch (err) {
    // A server may close an idle kept-alive connection as the next request is written on it (a race
    // on a loaded machine); every request here is a read or an idempotent write, so it is sent again once.
    if (!retry || (err as { code?: string }).code !== 'UND_ERR_SOCKET') throw err;
    resent++;
    return call(agent, method, url, headers, body, false);
  }
}

async function callOnce(agent: Agent, method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, body?: unknown) {
  const res = await request(url, {
    method, dispatcher: agent, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 && res.statusCode !== 202) throw new Error(`${method} ${url} → ${res.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const withSchema = (url: string, schema: string) => {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
};

const row = (name: string, s: Omit<Stats, 'inOrder'>) => `| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.max.toFixed(2)} | ${s.rps.toFixed(0)} |`;

async function main(): Promise<void> {
  const schema = `bench_avail_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const url = withSchema(BASE_URL, schema);
  /** What the serve's pool calls itself (PGAPPNAME), to find its backends. */
  const APP_NAME = `${schema}_serve`;
  const backends = async () => (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [APP_NAME])).rows.map((r) => r.pid);
  const dirs: string[] = [];
  const tmp = (name: string) => {
    const d = mkdtempSync(join(tmpdir(), `tableside-bench-avail-${name}-`));
    dirs.push(d);
    return d;
  };
  const agents: Agent[] = [];
  try {
    // The reference RMS offers HTTP/2 by ALPN too: once an availability call has timed out, the service
    // asks over a pool that offers it, where a lookup given up at its limit resets its stream instead of
    // closing its connection (docs/decisions.md). BENCH_RMS_HTTP1=1: the RMS speaks HTTP/1.1 only.
    const http2 = process.env.BENCH_RMS_HTTP1 ? [] : ['--http2'];
    const simStarted = await start([join(ROOT, 'bin/tableside.mjs'), 'rms-sim', '--port', '0', ...http2, '--json'], { TABLESIDE_DATA: tmp('rms') }, /^\{/);
    const sim = JSON.parse(simStarted.line) as { baseUrl: string; apiKey: string; caFile: string };
    const data = tmp('serve');
    const profile = process.env.BENCH_PROFILE
      ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR ?? tmpdir()}`, `--cpu-prof-interval=${process.env.BENCH_PROFILE_INTERVAL_US ?? 1000}`]
      : [];
    const serveStarted = await start([...profile, join(ROOT, 'bin/tableside.mjs'), 'serve'], {
      DATABASE_URL: url, PGAPPNAME: APP_NAME, TABLESIDE_DATA: data, PORT: '0', ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: process.env.BENCH_SERVE_LOG_LEVEL ?? 'warn', NODE_EXTRA_CA_CERTS: sim.caFile, AUTH_FAILURE_LIMIT_PER_MIN: '100000',
    }, /Tableside listening on https:\/\//, 'stderr');
    const serveUrl = /(https:\/\/[^\s]+:\d+)/.exec(serveStarted.line)![1]!;
    const bareStarted = await start([join(ROOT, 'bin/run-ts.mjs'), join(ROOT, 'bench/lib/baseline-server.ts'), join(data, 'tls.crt'), join(data, 'tls.key')], {}, /^https:\/\//);
    const bareUrl = bareStarted.line.trim();
    const serveCa = readFileSync(join(data, 'tls.crt'), 'utf8');
    const simCa = readFileSync(sim.caFile, 'utf8');
    // One agent per server: both certificates are self-signed for localhost with the same subject, and
    // OpenSSL looks a trust anchor up by subject, so one store holding both may pick the wrong one.
    // Each trusts through one context built once (trustingContext): given `ca`, every new connection
    // parsed the ~140 roots again in this process, ~33 ms each here, so the 32 snapshot requests
    // went out over a second, one after the other (issue 28: that was counted as the service's).
    const agent = new Agent({ connect: { secureContext: trustingContext(serveCa) }, keepAliveTimeout: 3000, connections: 64 });
    const bareAgent = new Agent({ connect: { secureContext: trustingContext(serveCa) }, keepAliveTimeout: 3000, connections: 64 });
    const simAgent = new Agent({ connect: { secureContext: trustingContext(simCa) }, keepAliveTimeout: 3000, connections: 64 });
    agents.push(agent, bareAgent, simAgent);

    const env = { DATABASE_URL: url };
    const partner = await cli(['partner', 'create', '--name', 'bench rms', '--access', 'rms', '--json'], env);
    const google = await cli(['channel', 'create', '--name', 'Bench Google', '--protocol', 'google-v3', '--json'], env);
    const own = await cli(['channel', 'create', '--name', 'Bench channel', '--protocol', 'tableside', '--json'], env);
    const key = { authorization: `Bearer ${partner.apiKey}` };
    const venue = await call(agent, 'POST', `${serveUrl}/v1/rms/venues`, key, { externalId: 'rms-venue-1', name: 'The Anchor', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London' });
    await call(agent, 'PUT', `${serveUrl}/v1/rms/booking-services`, key, { baseUrl: sim.baseUrl, apiKey: sim.apiKey });
    for (const ch of [google, own]) await call(agent, 'PUT', `${serveUrl}/v1/rms/booking-channels/${ch.id}/link-venues`, key, { venues: [venue.id] });
    const basic = { authorization: `Basic ${Buffer.from(`${google.credentials.username}:${google.credentials.password}`).toString('base64')}` };
    const bearer = { authorization: `Bearer ${own.credentials.apiKey}` };

    const dates = [2, 3].map((n) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10));
    const slotTimes = dates.flatMap((d) => Array.from({ length: 25 }, (_, i) => ({
      service_id: 'dining', start_sec: String(Date.parse(`${d}T11:00:00Z`) / 1000 + i * 900), duration_sec: '5400', resource_ids: { party_size: 2 },
    })));
    const simAuth = { authorization: `Bearer ${sim.apiKey}` };
    const bareRms = (d: string) => call(simAgent, 'GET', `${sim.baseUrl}/availability?venueId=rms-venue-1&date=${d}&partySize=2`, simAuth);
    const v3 = async () => {
      const body = await call(agent, 'POST', `${serveUrl}/v3/BatchAvailabilityLookup`, basic, { merchant_id: venue.id, slot_time: slotTimes });
      if (body.slot_time_availability.length !== 50) throw new Error('not 50 answers');
    };
    const bareV3 = async () => {
      await Promise.all(dates.map(bareRms));
    };
    /** A /v1/bc lookup whose answer must come from `source` (any: a warm-up's). */
    const bc = (source: 'live' | 'snapshot' | 'any') => async () => {
      const body = await call(agent, 'GET', `${serveUrl}/v1/bc/venues/${venue.id}/availability?date=${dates[0]}&partySize=2`, bearer);
      if (source !== 'any' && body.source !== source) throw new Error(`availability from ${body.source}, expected ${source}`);
    };
    const bareBc = async () => {
      await bareRms(dates[0]!);
    };
    const bareGet = async () => {
      await call(bareAgent, 'GET', `${bareUrl}/hello`, {});
    };

    const pids = { serve: serveStarted.child.pid!, 'rms-sim': simStarted.child.pid! };

    // ---- healthy RMS: alternate the pairs to share the noise ----
    if (PARTS.includes('healthy')) await healthy();
    async function healthy() {
    await closedLoop(100, 4, bareV3);
    await closedLoop(100, 4, v3);
    await closedLoop(100, 16, bareBc);
    await closedLoop(100, 16, bc('live'));
    const runs: Record<string, (Stats & { cpu: string })[]> = { bareV3: [], v3: [], bareBc: [], bc: [] };
    // The CPU per request of the serve and of the RMS simulator beside each figure (from /proc): on
    // two shared cores the wall figures move 1.5x between rounds of the same code, the CPU less.
    for (let r = 0; r < ROUNDS; r++) {
      runs.bareV3!.push(await withCpu(pids, LOOKUPS, () => closedLoop(LOOKUPS, 4, bareV3), backends));
      runs.v3!.push(await withCpu(pids, LOOKUPS, () => closedLoop(LOOKUPS, 4, v3), backends));
      runs.bareBc!.push(await withCpu(pids, LOOKUPS, () => closedLoop(LOOKUPS, 16, bareBc), backends));
      runs.bc!.push(await withCpu(pids, LOOKUPS, () => closedLoop(LOOKUPS, 16, bc('live')), backends));
    }
    const med = (k: string): Omit<Stats, 'inOrder'> => {
      const s = runs[k]!;
      return { p50: median(s.map((x) => x.p50)), p99: median(s.map((x) => x.p99)), max: Math.max(...s.map((x) => x.max)), rps: median(s.map((x) => x.rps)) };
    };
    console.log(`\n### Availability, RMS healthy (${ROUNDS} alternating rounds of ${LOOKUPS}; medians of the rounds)\n`);
    console.log('| path | p50 ms | p99 ms | max ms | req/s |\n|---|---|---|---|---|');
    console.log(row('bare: the 2 GET /availability of 50 slot times, in parallel (4 in flight)', med('bareV3')));
    console.log(row('Tableside /v3/BatchAvailabilityLookup, 50 slot times (4 in flight)', med('v3')));
    console.log(row('bare: one GET /availability (16 in flight)', med('bareBc')));
    console.log(row('Tableside /v1/bc/venues/{id}/availability, live (16 in flight)', med('bc')));
    for (const [k, s] of Object.entries(runs)) console.log(`rounds ${k}: p50 ${s.map((x) => x.p50.toFixed(2)).join(' / ')}; p99 ${s.map((x) => x.p99.toFixed(2)).join(' / ')}; CPU ${s.map((x) => x.cpu).join(' / ')}`);
    /** A goal row: the figure and baseline are each side's median round, the ratio the median of the rounds' ratios. */
    const goal = (scenario: string, k: string, base: string, q: 'p50' | 'p99', label: string, times: number) => {
      const ratio = median(runs[k]!.map((x, r) => x[q] / runs[base]![r]![q]));
      const r = multipleRow(scenario, med(k)[q], med(base)[q], `${label} (${ROUNDS} alternated rounds: medians; ratio: median round)`, times);
      record({ ...r, ratio: `${ratio.toFixed(2)}x`, met: ratio <= times });
    };
    goal('/v3/BatchAvailabilityLookup, 50 slot times, RMS healthy, 4 in flight, p50', 'v3', 'bareV3', 'p50', 'bare RMS calls p50', 2);
    goal('/v3/BatchAvailabilityLookup, 50 slot times, RMS healthy, 4 in flight, p99', 'v3', 'bareV3', 'p99', 'bare RMS calls p99', 2);
    goal('/v1/bc availability, live, 16 in flight, p50', 'bc', 'bareBc', 'p50', 'bare RMS call p50', 1.5);
    }
    if (!PARTS.includes('snapshot')) return;

    // ---- RMS hanging: the snapshot answers once the live call's 1 s is spent ----
    const records = dates.map((d) => ({
      venueId: 'rms-venue-1', date: d, partySize: 2, duration: 5400,
      slotData: Array.from({ length: 40 }, (_, i) => ({ startSec: Date.parse(`${d}T11:00:00Z`) / 1000 + i * 900, totalSpots: 8, openSpots: i % 9, deposit: false, depositAmount: 0, requiresCc: false })),
    }));
    await call(agent, 'POST', `${serveUrl}/v1/rms/availability-feed`, key, { metadata: { total_shards: 1, shard_number: 0, nonce: 'bench' }, data: records });
    for (let i = 0; ; i++) {
      const status = await call(agent, 'GET', `${serveUrl}/v1/rms/availability-feed`, key);
      if (status.nonce === 'bench') break;
      if (i > 100) throw new Error('the snapshot was not processed');
      await new Promise((r) => setTimeout(r, 100));
    }
    const control = new RmsControlClient(sim.baseUrl, sim.apiKey, simCa);
    await closedLoop(400, 32, bareGet);
    const bare32 = await closedLoop(2000, 32, bareGet);
    // Warmed as the bare GET is: its 32 kept-alive connections exist before it is measured, while the
    // healthy part left the service's agent at most 16 (closed after 3 s idle). Unwarmed, the first
    // wave's 32 lookups reached the service spread over 0.4-0.9 s of TLS handshakes (the snapshot
    // round's trace, issue 28), counted as the service's. The warm-up asks the healthy RMS, so no
    // snapshot path is warmed; the first measured wave still finds the hanging RMS cold. (On a busy
    // host a cold wave's lookup may pass its 1 s and answer from the snapshot: either source will do.)
    await closedLoop(64, 32, bc('any'));
    await closedLoop(64, 32, v3);
    await control.setFailures({ mode: 'hang', operations: ['availability'] });
    const hangBc = await withCpu(pids, HANG_LOOKUPS, () => closedLoop(HANG_LOOKUPS, 32, bc('snapshot')), backends);
    const hangV3 = await withCpu(pids, HANG_LOOKUPS, () => closedLoop(HANG_LOOKUPS, 32, v3), backends);
    await control.setFailures({ mode: 'none', operations: null });
    await control.close();
    console.log(`\n### Availability, RMS hanging: from the snapshot (${HANG_LOOKUPS} each, 32 in flight)\n`);
    console.log('| path | p50 ms | p99 ms | max ms | req/s |\n|---|---|---|---|---|');
    console.log(row('bare Fastify GET (32 in flight, 2000)', bare32));
    console.log(row('Tableside /v1/bc/venues/{id}/availability, snapshot', hangBc));
    console.log(row('Tableside /v3/BatchAvailabilityLookup, 50 slot times, snapshot', hangV3));
    console.log(`\nCPU: /v1/bc ${hangBc.cpu}; /v3 ${hangV3.cpu}.`);
    // The lookups in the order they were sent, 32 at a time: with the RMS hanging each 32 is one wave.
    const waves = (s: Stats) => Array.from({ length: Math.ceil(s.inOrder.length / 32) }, (_, w) => median(s.inOrder.slice(w * 32, w * 32 + 32)).toFixed(0)).join(' ');
    console.log(`Median of each wave of 32 (ms): /v1/bc ${waves(hangBc)}; /v3 ${waves(hangV3)}.`);
    for (const [name, s] of [['/v1/bc', hangBc], ['/v3', hangV3]] as const) {
      record(multipleRow(`${name} availability from the snapshot (RMS hanging), 32 in flight, p50 - 1000 ms`, s.p50 - 1000, bare32.p50, 'bare Fastify GET p50', 3));
      record({ scenario: `${name} availability from the snapshot (RMS hanging), 32 in flight, p99`, figure: `${s.p99.toFixed(0)} ms`, baseline: 'the 1.5 s promise', ratio: `${(s.p99 / 1500).toFixed(2)}x`, goal: '< 1500 ms', met: s.p99 < 1500 });
    }
    console.log(`\nRequests sent again after a closed kept-alive connection: ${resent}.`);
  } finally {
    for (const a of agents) await a.close().catch(() => {});
    killAll('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => { c.once('exit', r); setTimeout(r, 5000).unref(); }))));
    killAll('SIGKILL');
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`).catch(() => {});
    await admin.end();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

await main();
