// Content venue list under load: GET /v1/rms/venues with filters over 100,000 venues of one partner
// on PostgreSQL, against a bare Fastify route over the same TLS in the same process as the baseline.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bin/run-ts.mjs bench/content-venues.ts
//
// Options (environment): BENCH_VENUES (100000), BENCH_REQUESTS per scenario (2000),
// BENCH_CONCURRENCY (16), BENCH_SCENARIOS (a regular expression on scenario names), BENCH_PLANS=1
// (print every plan in full). Everything lives in a fresh schema that is dropped at the end.
// Results and the plans PostgreSQL chose are recorded in bench/README.md.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.ts';
import { knownPageQuery, venueCountQuery, venuePageQuery, type VenueFilters } from '../src/content/venues.repository.ts';
import { openPostgres } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { generateSelfSigned } from '../src/lib/tls.ts';
import { createLogger } from '../src/server/logger.ts';
import { multipleRow, record } from './lib/results.ts';
import { startService } from '../src/app/service.ts';

const url = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const VENUES = Number(process.env.BENCH_VENUES ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP = Math.min(200, REQUESTS);

interface Stats {
  p50: number;
  p99: number;
  mean: number;
  rps: number;
}

/** Fires `total` GETs with `concurrency` in flight; per-request latency from send to full body. */
async function load(agent: Agent, target: string | ((i: number) => string), headers: Record<string, string>, total: number): Promise<Stats> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      const res = await request(typeof target === 'string' ? target : target(i), { dispatcher: agent, headers });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${target} → ${res.statusCode}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { p50: at(0.5), p99: at(0.99), mean: latencies.reduce((s, x) => s + x, 0) / latencies.length, rps: (total / elapsed) * 1000 };
}

interface Scenario {
  name: string;
  query: Record<string, string>;
  filters: (channel: string) => VenueFilters;
  offset?: number;
  limit?: number;
  /** Each request asks a different criteria, so no list total is ever reused (the cold cost). */
  distinct?: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'no filter, first page', query: {}, filters: () => ({}) },
  { name: 'criteria=casa 1', query: { 'filters[criteria]': 'casa 1' }, filters: () => ({ criteria: 'casa 1' }) },
  { name: 'city=mad', query: { 'filters[city]': 'mad' }, filters: () => ({ city: 'mad' }) },
  { name: 'countryCode=FR', query: { 'filters[countryCode]': 'FR' }, filters: () => ({ countryCode: 'FR' }) },
  { name: 'bookingChannel', query: { 'filters[bookingChannel]': '$channel' }, filters: (c) => ({ bookingChannel: c }) },
  {
    name: 'notBookingChannel + fbInstalled=1',
    query: { 'filters[notBookingChannel]': '$channel', 'filters[fbInstalled]': '1' },
    filters: (c) => ({ notBookingChannel: c, fbInstalled: true }),
  },
  {
    name: 'criteria=bar + countryCode=ES + igInstalled=0',
    query: { 'filters[criteria]': 'bar', 'filters[countryCode]': 'ES', 'filters[igInstalled]': '0' },
    filters: () => ({ criteria: 'bar', countryCode: 'ES', igInstalled: false }),
  },
  { name: 'no filter, offset 50000, limit 50', query: { offset: '50000', limit: '50' }, filters: () => ({}), offset: 50_000, limit: 50 },
  {
    name: 'uncached total: criteria=<a different number n each request, e.g. 12345>',
    query: { 'filters[criteria]': '12345' },
    filters: () => ({ criteria: '12345' }),
    distinct: true,
  },
];

const CITIES = ['Madrid', 'Barcelona', 'Sevilla', 'Valencia', 'Bilbao', 'Paris', 'Lyon', 'Marseille', 'Lisboa', 'Porto', 'Roma', 'Milano', 'Napoli', 'Berlin', 'München', 'Hamburg', 'Málaga', 'Granada', 'Toulouse', 'Nice'];

async function seed(db: ReturnType<typeof openPostgres>, partnerId: string, otherPartnerId: string, channelId: string): Promise<void> {
  const cities = `ARRAY[${CITIES.map((c) => `'${c}'`).join(',')}]`;
  await sql`INSERT INTO companies (id, owner_partner_id, name, city, country_code, created_at, updated_at)
    SELECT md5('c' || i)::uuid, ${partnerId}, 'Company ' || i, 'Madrid', 'ES', now(), now() FROM generate_series(1, 100) i`.execute(db.kysely);
  await sql`INSERT INTO companies (id, owner_partner_id, name, city, country_code, created_at, updated_at)
    VALUES (md5('other')::uuid, ${otherPartnerId}, 'Other', 'Madrid', 'ES', now(), now())`.execute(db.kysely);
  // One partner with VENUES venues; another with a tenth of that, which the lists must skip.
  await sql`INSERT INTO venues (id, owner_partner_id, external_id, company_id, name, country_code, city, currency,
      fb_installed, ig_installed, capacity, created_at, updated_at)
    SELECT md5('v' || i)::uuid, ${partnerId}, 'ext-' || i, md5('c' || (1 + i % 100))::uuid,
      (ARRAY['Casa', 'Bar', 'Taberna', 'Bistro', 'Chez', 'Trattoria'])[1 + i % 6] || ' ' || i,
      (ARRAY['ES', 'FR', 'PT', 'IT', 'DE'])[1 + (i / 7) % 5], (${sql.raw(cities)})[1 + i % 20], 'EUR',
      i % 3 = 0, i % 4 = 0, 20 + i % 200, now(), now()
    FROM generate_series(1, ${VENUES}) i`.execute(db.kysely);
  await sql`INSERT INTO venues (id, owner_partner_id, external_id, company_id, name, country_code, city, currency, created_at, updated_at)
    SELECT md5('o' || i)::uuid, ${otherPartnerId}, 'ext-' || i, md5('other')::uuid, 'Casa other ' || i, 'ES', 'Madrid', 'EUR', now(), now()
    FROM generate_series(1, ${Math.ceil(VENUES / 10)}) i`.execute(db.kysely);
  // A third of the venues are bookable through the channel.
  await sql`INSERT INTO venue_booking_channels (channel_id, venue_id, linked_at)
    SELECT ${channelId}, md5('v' || i)::uuid, now() FROM generate_series(1, ${VENUES}) i WHERE i % 3 = 1`.execute(db.kysely);
  // What autovacuum does to a table in steady state: statistics, and the visibility map that lets
  // index-only scans skip the table.
  await sql`VACUUM ANALYZE`.execute(db.kysely);
}

/** The indexes (and sequential scans) a plan uses, e.g. "Index Scan using venues_owner_name". */
function scansOf(plan: string): string[] {
  const found = new Set<string>();
  for (const m of plan.matchAll(/(Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan)(?: Backward)? (?:using|on) (\w+)/g)) found.add(`${m[1]} ${m[2]}`);
  return [...found];
}

async function explain(db: ReturnType<typeof openPostgres>, compiled: { sql: string; parameters: readonly unknown[] }) {
  const { rows } = await db.pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${compiled.sql}`, compiled.parameters as unknown[]);
  const plan = rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
  const time = /Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? '?';
  return { plan, scans: scansOf(plan), ms: Number(time) };
}

async function main() {
  const schema = `bench_content_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const dataDir = mkdtempSync(join(tmpdir(), 'tableside-bench-'));
  const db = openPostgres(url, { schema, max: 16 });
  const tls = await generateSelfSigned();
  const agent = new Agent({ connect: { ca: tls.cert }, connections: CONCURRENCY, keepAliveTimeout: 10_000 });
  let service: Awaited<ReturnType<typeof startService>> | null = null;
  const bare = Fastify({ https: { key: tls.key, cert: tls.cert }, logger: false });
  try {
    await migrate(db);
    const config = loadConfig({ LOG_LEVEL: 'silent', AUTH_FAILURE_LIMIT_PER_MIN: '1000000' }, { port: 0, host: '127.0.0.1', dataDir, databaseUrl: url });
    service = await startService(config, {
      tls,
      log: createLogger('silent'),
      startJobs: false,
      store: { db, embedded: false, close: async () => {} },
    });
    const auth = service.app.services.auth;
    const partner = await auth.createPartner({ name: 'bench', access: ['rms'] });
    const other = await auth.createPartner({ name: 'noise', access: ['rms'] });
    const channel = await service.app.services.channels.create({ name: 'Bench channel', logo: 'https://cdn.example.com/c.png' });

    const t0 = performance.now();
    await seed(db, partner.partnerId, other.partnerId, channel.id);
    console.log(`seeded ${VENUES} venues (+${Math.ceil(VENUES / 10)} of another partner) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    bare.get('/hello', async () => ({ hello: 'world' }));
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareUrl = `https://127.0.0.1:${(bare.server.address() as { port: number }).port}/hello`;

    const version = (await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(db.kysely)).rows[0].v;
    console.log(`PostgreSQL ${version}, Node ${process.version}, ${REQUESTS} requests per scenario, concurrency ${CONCURRENCY}\n`);

    await load(agent, bareUrl, {}, WARMUP);
    const base = await load(agent, bareUrl, {}, REQUESTS);
    const row = (name: string, s: Stats, ratio: string) =>
      `| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.mean.toFixed(2)} | ${Math.round(s.rps)} | ${ratio} |`;
    const lines = ['| scenario | p50 ms | p99 ms | mean ms | req/s | p50 / p99 vs baseline |', '|---|---|---|---|---|---|'];
    lines.push(row('baseline: bare Fastify GET /hello (HTTPS)', base, '1 / 1'));
    const plans: string[] = [];
    const headers = { authorization: `Bearer ${partner.apiKey}` };
    const only = process.env.BENCH_SCENARIOS ? new RegExp(process.env.BENCH_SCENARIOS) : null;
    for (const s of SCENARIOS.filter((x) => !only || only.test(x.name))) {
      const q = new URLSearchParams(Object.fromEntries(Object.entries(s.query).map(([k, v]) => [k, v === '$channel' ? channel.id : v])));
      const target = `${service.url}/v1/rms/venues?${q}`;
      const first = await request(s.distinct ? `${service.url}/v1/rms/venues?filters%5Bcriteria%5D=12345` : target, { dispatcher: agent, headers });
      const body = (await first.body.json()) as { total: number; data: unknown[] };
      // Distinct criteria "<n>" (n from 10,000 up, each matching a handful of venues); the warm-up
      // asks other numbers than the measured run.
      const distinct = (i: number) => `${service!.url}/v1/rms/venues?filters%5Bcriteria%5D=${10_000 + (i % 90_000)}`;
      await load(agent, s.distinct ? (i: number) => distinct(50_000 + i) : target, headers, WARMUP);
      const stats = await load(agent, s.distinct ? distinct : target, headers, REQUESTS);
      lines.push(row(`${s.name} (total ${body.total})`, stats, `${(stats.p50 / base.p50).toFixed(1)} / ${(stats.p99 / base.p99).toFixed(1)}`));
      // The goals of issue 14: a criteria filter at p50 <= 5x bare; a new criteria each request <= 20x.
      const goal = s.distinct ? 20 : s.name === 'criteria=casa 1' ? 5 : null;
      if (goal) record(multipleRow(`content venues, ${s.distinct ? 'a new criteria each request' : s.name}, p50`, stats.p50, base.p50, 'bare GET p50', goal));
      const f = s.filters(channel.id);
      const page = { offset: s.offset ?? 0, limit: s.limit ?? 10 };
      const pageQ = await explain(db, venuePageQuery(partner.partnerId, f, page).compile(db.kysely));
      const countQ = await explain(db, venueCountQuery(partner.partnerId, f).compile(db.kysely));
      // The same page asked again while nothing changed: its ids come from the service's page cache
      // (knownPageQuery: a primary-key lookup, no scan).
      const { rows: current } = await venuePageQuery(partner.partnerId, f, page).execute(db.kysely);
      const known = current.length ? { version: Number(current[0].list_version ?? 0), ids: current.map((r) => r.id) } : undefined;
      const againQ = known ? await explain(db, knownPageQuery(partner.partnerId, known).compile(db.kysely)) : null;
      plans.push(`| ${s.name} | ${pageQ.scans.join(', ')} (${pageQ.ms} ms) | ${againQ ? `${againQ.ms} ms` : '—'} | ${countQ.scans.join(', ')} (${countQ.ms} ms) |`);
      if (process.env.BENCH_PLANS) console.log(`--- ${s.name}: page\n${pageQ.plan}\n--- page asked again\n${againQ?.plan}\n--- count\n${countQ.plan}\n`);
    }
    console.log(lines.join('\n'));
    console.log('\nPlans chosen (EXPLAIN ANALYZE after the load):\n');
    console.log(['| scenario | page query | page asked again | count query |', '|---|---|---|---|', ...plans].join('\n'));
  } finally {
    await bare.close().catch(() => {});
    await service?.close().catch(() => {});
    await agent.close().catch(() => {});
    await db.close().catch(() => {});
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
