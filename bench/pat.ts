// Pay-at-table under load on PostgreSQL: GET bill (stored and live) and POST payment (immediate,
// forwarded to the POS), each beside a baseline measured in the same run: a bare Fastify route over
// the same TLS in its own process (requests per second and latency), and for payments pgbench's
// built-in TPC-B-like script against the same database (write transactions per second).
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bin/run-ts.mjs bench/pat.ts
//
// The service runs as a real `tableside serve` process and the POS as a real `tableside pos-sim`
// process, so the load generator (this process) competes with neither. Options (environment):
// BENCH_REQUESTS (3000 per GET scenario), BENCH_PAYMENTS (1000), BENCH_CONCURRENCY (16),
// BENCH_PGBENCH_SECONDS (15). Everything lives in fresh schemas and temp directories, removed at the end.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { Agent } from 'undici';
import { ControlClient } from '../pos-simulator/src/index.ts';
import { fmt, load, type Stats } from './lib/load.ts';

const ROOT = join(import.meta.dirname, '..');
const BASE_URL = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PGBENCH_SECONDS = Number(process.env.BENCH_PGBENCH_SECONDS ?? 15);
const TABLES = 50;

const run = `b${Date.now().toString(36)}`;
const schema = `bench_pat_${run}`;
const pgbenchSchema = `bench_pgbench_${run}`;
const withSchema = (s: string) => {
  const u = new URL(BASE_URL);
  u.searchParams.set('options', `-c search_path=${s}`);
  return u.toString();
};
const dir = mkdtempSync(join(tmpdir(), 'tableside-bench-'));
const children: ChildProcess[] = [];

function start(args: string[], env: Record<string, string>, match: RegExp, stream: 'stdout' | 'stderr' = 'stdout'): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child[stream]! });
    lines.on('line', (line) => {
      if (match.test(line)) resolve({ child, line });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

function cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/tableside.mjs'), ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')}: ${err}`))));
  });
}

function pgbench(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(BASE_URL);
    const child = spawn('pgbench', [...args, '-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), u.pathname.slice(1)], {
      env: { ...process.env, PGOPTIONS: `-c search_path=${pgbenchSchema}`, PGPASSWORD: decodeURIComponent(u.password) },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`pgbench ${args.join(' ')}: ${out}`))));
  });
}

async function main() {
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE SCHEMA ${pgbenchSchema}`);
  const url = withSchema(schema);
  try {
    // The POS simulator and the service, each in its own process.
    const sim = JSON.parse((await start([join(ROOT, 'bin/tableside.mjs'), 'pos-sim', '--port', '0', '--json'], { TABLESIDE_DATA: join(dir, 'sim') }, /^\{/)).line);
    const ca = readFileSync(sim.caFile, 'utf8');
    const control = new ControlClient(sim.baseUrl, sim.apiKey, ca);
    const posTypes = join(dir, 'pos-types.json');
    const entry = (code: string, billRetrieval: boolean) => ({
      code, name: code, baseUrl: sim.baseUrl, apiKey: sim.apiKey, caFile: sim.caFile, billRetrieval, paymentForwarding: true, paymentConfirmation: 'immediate',
    });
    writeFileSync(posTypes, JSON.stringify([entry('live', true), entry('stored', false)]));
    const serveEnv = { DATABASE_URL: url, TABLESIDE_DATA: join(dir, 'serve'), POS_TYPES: posTypes, PORT: '0', AUTH_FAILURE_LIMIT_PER_MIN: '1000000', POS_TABLES_TTL_S: '3600' };
    const served = await start([join(ROOT, 'bin/tableside.mjs'), 'serve'], serveEnv, /Tableside listening on/, 'stderr');
    const origin = /(https:\/\/\S+)/.exec(served.line)![1];
    const agent = new Agent({ connect: { ca: readFileSync(join(dir, 'serve', 'tls.crt'), 'utf8') }, connections: CONCURRENCY, keepAliveTimeout: 30_000 });

    const partner = JSON.parse(await cli(['partner', 'create', '--name', 'bench', '--access', 'pat', '--json'], { DATABASE_URL: url }));
    const { accessToken } = JSON.parse(await cli(['token', 'issue', '--partner', partner.partnerId, '--ttl', '86400', '--json'], { DATABASE_URL: url }));
    const auth = { authorization: `Bearer ${accessToken}` };
    const db = new pg.Client({ connectionString: url });
    await db.connect();

    // Three POS locations: bills read live, bills served from the store, and one order per payment.
    const tables = Array.from({ length: TABLES }, (_, i) => ({ id: String(i + 1), name: `T${i + 1}` }));
    const payTables = Array.from({ length: PAYMENTS }, (_, i) => ({ id: String(i + 1), name: `P${i + 1}` }));
    const menu = [{ sku: 'A', name: 'Main', price: 14.5 }, { sku: 'B', name: 'Wine', price: 6.9 }, { sku: 'C', name: 'Dessert', price: 7.25 }];
    async function connect(posVenueId: string, posType: string, venueTables: typeof tables): Promise<{ venueId: string; tableIds: string[] }> {
      await control.createVenue({ id: posVenueId, currency: 'EUR', tables: venueTables, menu, behaviour: { payment: 'immediate' } });
      for (const t of venueTables) {
        await control.openOrder(posVenueId, { tables: [t.id], checks: [{ items: [{ sku: 'A', quantity: 2 }, { sku: 'B', quantity: 2 }] }, { items: [{ sku: 'C', quantity: 1 }] }] });
      }
      const created = await (await fetchJson('POST', '/v1/pat/venues', { name: posVenueId, address: 'a', city: 'Madrid', postalCode: '28001', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType }));
      const link = new URL(created.onboarding.url);
      const { request } = await import('undici');
      const page = await request(origin + link.pathname + link.search, { method: 'POST', dispatcher: agent, body: `posVenueId=${posVenueId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      await page.body.text();
      if (page.statusCode !== 200) throw new Error(`onboarding ${posVenueId}: ${page.statusCode}`);
      const listed = await fetchJson('GET', `/v1/pat/venue/${created.id}/tables`);
      return { venueId: created.id, tableIds: listed.tables.map((t: { id: string }) => t.id) };
    }
    async function fetchJson(method: 'GET' | 'POST', path: string, body?: unknown) {
      const { request } = await import('undici');
      const res = await request(origin + path, { method, dispatcher: agent, headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${method} ${path} → ${res.statusCode} ${text}`);
      return JSON.parse(text);
    }
    console.log(`setting up: ${TABLES} tables per bill venue, ${PAYMENTS} orders to pay …`);
    const live = await connect('bench-live', 'live', tables);
    const stored = await connect('bench-stored', 'stored', tables);
    const pay = await connect('bench-pay', 'live', payTables);
    // The sync job reads the POS's orders into the store right after onboarding; wait for it.
    for (;;) {
      const { rows } = await db.query(`SELECT v.venue_id, count(*)::int AS n FROM orders v WHERE v.status = 'open' GROUP BY v.venue_id`);
      const counts = new Map(rows.map((r) => [r.venue_id, r.n]));
      if (counts.get(stored.venueId) === TABLES && counts.get(pay.venueId) === PAYMENTS) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const { rows: payOrders } = await db.query<{ id: string }>(`SELECT id FROM orders WHERE venue_id = $1 AND status = 'open' ORDER BY id`, [pay.venueId]);

    // Baseline server (own process, same TLS certificate).
    const certFile = join(dir, 'serve', 'tls.crt');
    const keyFile = join(dir, 'serve', 'tls.key');
    const baseline = (await start(['--import', 'tsx', join(ROOT, 'bench/lib/baseline-server.ts'), certFile, keyFile], {}, /^https:/)).line;

    const warm = Math.min(300, REQUESTS);
    const results: Array<[string, Stats, number]> = [];
    const measure = async (name: string, o: string, next: (i: number) => Parameters<typeof load>[2] extends (i: number) => infer R ? R : never, total: number) => {
      const s = await load(agent, o, next, total, CONCURRENCY);
      console.log(`${name.padEnd(34)} ${fmt(s)}`);
      return s;
    };
    console.log(`\nconcurrency ${CONCURRENCY}`);
    await load(agent, baseline, () => ({ path: '/hello' }), warm, CONCURRENCY);
    const getBase = await measure('baseline: bare Fastify GET', baseline, () => ({ path: '/hello' }), REQUESTS);
    await load(agent, origin, (i) => ({ path: `/v1/pat/venue/${stored.venueId}/table/${stored.tableIds[i % TABLES]}/bill`, headers: auth }), warm, CONCURRENCY);
    const storedBill = await measure('GET bill, stored (billRetrieval false)', origin, (i) => ({ path: `/v1/pat/venue/${stored.venueId}/table/${stored.tableIds[i % TABLES]}/bill`, headers: auth }), REQUESTS);
    const liveBill = await measure('GET bill, live (billRetrieval true)', origin, (i) => ({ path: `/v1/pat/venue/${live.venueId}/table/${live.tableIds[i % TABLES]}/bill`, headers: auth }), REQUESTS);
    const postBase = await measure('baseline: bare Fastify POST', baseline, () => ({ path: '/hello', method: 'POST', body: '{"a":1}' }), REQUESTS);
    const payments = await measure('POST payment, immediate, forwarded', origin, (i) => ({
      path: `/v1/pat/venue/${pay.venueId}/order/${payOrders[i].id}/payment`,
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ externalReference: `bench-${run}-${i}`, amount: 50.05, type: 'full', tip: 0 }),
    }), Math.min(PAYMENTS, payOrders.length));
    results.push(['GET bill stored', storedBill, getBase.rps], ['GET bill live', liveBill, getBase.rps], ['POST payment', payments, postBase.rps]);

    console.log(`\npgbench TPC-B-like, ${PGBENCH_SECONDS} s, ${CONCURRENCY} clients, same database …`);
    await pgbench(['-i', '-s', '10', '-q']);
    const out = await pgbench(['-c', String(CONCURRENCY), '-j', '2', '-T', String(PGBENCH_SECONDS), '-n']);
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? NaN);
    console.log(`pgbench: ${tps.toFixed(0)} transactions/s`);

    console.log('\nscenario                  req/s     p50 ms    p99 ms   vs bare Fastify   vs pgbench TPC-B');
    for (const [name, s, base] of results) {
      const vsPg = name === 'POST payment' ? `${((s.rps / tps) * 100).toFixed(1)}%` : '';
      console.log(`${name.padEnd(22)} ${s.rps.toFixed(0).padStart(8)} ${s.p50.toFixed(2).padStart(9)} ${s.p99.toFixed(2).padStart(9)}   ${((s.rps / base) * 100).toFixed(1).padStart(6)}% of ${base.toFixed(0)}   ${vsPg}`);
    }
    const { rows: check } = await db.query(`SELECT status, count(*)::int AS n FROM payments GROUP BY status`);
    console.log(`\npayments recorded: ${JSON.stringify(check)}`);
    await db.end();
    await agent.close();
    await control.close();
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.query(`DROP SCHEMA IF EXISTS ${pgbenchSchema} CASCADE`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
