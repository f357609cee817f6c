import { Writable } from 'node:stream';
import { Validator } from '@seriousme/openapi-schema-validator';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _enc, done) {
    logLines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let app: TestApp;
let partner: TestPartner;

beforeAll(async () => {
  app = await startTestApp({ logStream });
  partner = await app.newPartner(['rms', 'pat', 'analytics']);
});
afterAll(async () => {
  await app?.close();
});

describe('operations endpoints', () => {
  it('[DES-008] GET /healthz → 200 while up; /readyz → 200 while the database answers', async () => {
    expect((await app.http.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await app.http.get('/readyz')).body).toEqual({ status: 'ready' });
  });

  it('[DES-009] GET /metrics → Prometheus text with request counts and latency by route pattern and status', async () => {
    await app.http.get('/v1/pat/venues', { token: partner.token });
    const res = await app.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.text).toMatch(/tableside_http_requests_total\{method="GET",route="\/v1\/pat\/venues",status="200"\} \d+/);
    expect(res.text).toMatch(/tableside_http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/v1\/pat\/venues",status="200"\}/);
  });

  it('[DES-009] GET /metrics shows this process\'s database connections and the fleet\'s job backlog by kind, due and leased (issue 29: what an operator watches)', async () => {
    const db = app.service.store.db;
    const hourAgo = new Date(Date.now() - 3600_000);
    // A kind no process handles stays due; a leased one is running elsewhere.
    await sql`INSERT INTO jobs (id, kind, payload, run_at, created_at) VALUES (gen_random_uuid(), 'metrics.test.due', '{}', ${hourAgo}, ${hourAgo}),
      (gen_random_uuid(), 'metrics.test.due', '{}', now(), now())`.execute(db.kysely);
    await sql`INSERT INTO jobs (id, kind, payload, run_at, locked_by, locked_until, created_at)
      VALUES (gen_random_uuid(), 'metrics.test.leased', '{}', ${hourAgo}, 'another-replica', now() + interval '1 hour', ${hourAgo})`.execute(db.kysely);
    const text = (await app.http.get('/metrics')).text;
    expect(text).toMatch(/^tableside_jobs\{kind="metrics\.test\.due",state="due"\} 2$/m);
    expect(text).toMatch(/^tableside_jobs\{kind="metrics\.test\.leased",state="leased"\} 1$/m);
    expect(text).toMatch(/^tableside_jobs\{kind="metrics\.test\.leased",state="due"\} 0$/m);
    const oldest = Number(/^tableside_jobs_oldest_due_seconds\{kind="metrics\.test\.due"\} ([\d.]+)$/m.exec(text)?.[1]);
    expect(oldest).toBeGreaterThan(3590);
    expect(oldest).toBeLessThan(3700);
    expect(text).toMatch(/^tableside_jobs_backlog_readable 1$/m);
    expect(text).toMatch(/^tableside_db_pool_connections\{state="total"\} [1-9]\d*$/m);
    expect(text).toMatch(/^tableside_db_pool_connections\{state="waiting"\} 0$/m);
    await sql`DELETE FROM jobs WHERE kind LIKE 'metrics.test.%'`.execute(db.kysely);
  });

  it('[DES-009] /metrics still answers when the database does not: the job backlog is NaN and marked unreadable, never a stale count', async () => {
    // PGlite has one session: while a transaction holds it, the scrape's query waits; the scrape
    // must not wait with it.
    const db = app.service.store.db;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const tx = db.kysely.transaction().execute(async (t) => {
      await sql`SELECT 1`.execute(t);
      entered();
      await held;
    });
    await inside;
    try {
      const res = await app.http.get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/^tableside_jobs_backlog_readable 0$/m);
      // prom-client writes "Nan"; Prometheus parses NaN in any case.
      expect(res.text).toMatch(/^tableside_jobs\{kind="all",state="due"\} nan$/im);
      expect(res.text).toMatch(/^tableside_http_requests_total\{/m);
    } finally {
      release();
      await tx;
    }
  });

  it('GET /metrics shows the embedded database\'s WebAssembly memory (issue 15: what holds an embedded server\'s memory)', async () => {
    const res = await app.http.get('/metrics');
    const bytes = Number(/^tableside_embedded_db_memory_bytes (\d+)$/m.exec(res.text)?.[1]);
    // PGlite's memory is tens of megabytes at least; the gauge must report the real size, not a placeholder.
    expect(bytes).toBeGreaterThan(16 * 1024 * 1024);
  });

  it('[DES-010] GET /openapi.json is a valid OpenAPI document listing every /v1 route with operationId, summary and error responses', async () => {
    const res = await app.http.get('/openapi.json');
    expect(res.status).toBe(200);
    const validator = new Validator();
    const result = await validator.validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const routes = app.service.app.fastify.printRoutes({ commonPrefix: false });
    const paths = res.body.paths as Record<string, Record<string, { operationId?: string; summary?: string; responses: Record<string, unknown> }>>;
    for (const path of ['/v1/pat/venues', '/v1/pos/partner/venues', '/v1/rms/booking-channels', '/oauth/token']) {
      expect(paths[path], path).toBeDefined();
    }
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${path}`).toBeTruthy();
        expect(op.summary, `${method} ${path}`).toBeTruthy();
        expect(ids.has(op.operationId!)).toBe(false);
        ids.add(op.operationId!);
        if (path.startsWith('/v1/')) {
          expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '403']));
        }
      }
    }
    expect(routes).toContain('/v1/pat/venues');
  });

  it('[DES-011] GET /docs serves the API docs page', async () => {
    const res = await app.http.get('/docs/');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/swagger/i);
  });
});

describe('logs', () => {
  it('[DES-013] [DES-014] every request log line carries its request id; credentials never appear', async () => {
    logLines.length = 0;
    const secretUrl = '/v1/pat/venues?t=onboarding-secret-value';
    await app.http.get(secretUrl, { token: partner.token, headers: { 'x-request-id': 'log-test-1' } });
    await app.http.get('/v1/rms/booking-channels', { token: partner.apiKey, headers: { 'x-request-id': 'log-test-2' } });
    await app.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: partner.clientId, client_secret: partner.clientSecret },
      headers: { 'x-request-id': 'log-test-3' },
    });
    await app.http.get('/v1/pat/venues', { token: 'tat_wrongwrongwrongwrongwrong', headers: { 'x-request-id': 'log-test-4' } });
    // Each request's log line is written when its response ends, so it may trail the response.
    for (const id of ['log-test-1', 'log-test-2', 'log-test-3', 'log-test-4']) {
      await eventually(() => expect(logLines.some((l) => l.includes(id) && JSON.parse(l).msg === 'request'), id).toBe(true), { what: `the request line of ${id}` });
      const lines = logLines.filter((l) => l.includes(id));
      for (const line of lines) expect(JSON.parse(line).reqId).toBe(id);
    }
    const all = logLines.join('\n');
    for (const secret of [partner.token, partner.apiKey!, partner.clientSecret!, 'onboarding-secret-value', 'tat_wrongwrongwrongwrongwrong']) {
      expect(all).not.toContain(secret);
    }
    // A logged object holding a credential is redacted by path.
    app.service.log.info({ accessToken: partner.token, nested: { apiKey: partner.apiKey } }, 'redaction check');
    await eventually(() => expect(logLines.some((l) => l.includes('redaction check'))).toBe(true), { what: 'the redaction check line' });
    expect(logLines.join('\n')).not.toContain(partner.token);
    expect(logLines.join('\n')).not.toContain(partner.apiKey!);
  });

  it('[DES-012] the caller’s x-request-id is echoed; otherwise one is generated', async () => {
    const given = await app.http.get('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const generated = await app.http.get('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
