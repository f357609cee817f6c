import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/db.ts';

// Prometheus metrics at /metrics: request counts and latency by route (the route pattern, never
// the raw URL, so ids do not explode the label space) and status. One registry per app instance.

export interface MetricsOptions {
  /** Bytes of the embedded database's WebAssembly memory, or null with PostgreSQL (issue 15). */
  embeddedDbMemory?: () => number | null;
  /** The store: its connection pool and the job backlog are read at each scrape (issue 29, docs/deploy.md). */
  db?: Pick<Db, 'kysely' | 'pool'>;
}

/** A scrape must answer even when the database does not: the backlog is read within this bound. */
const BACKLOG_READ_MS = 1000;

export function registerMetrics(app: FastifyInstance, opts: MetricsOptions = {}): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tableside_' });
  const embeddedDbMemory = opts.embeddedDbMemory;
  if (embeddedDbMemory) {
    // WebAssembly memory grows and never shrinks: this is the "external" part of the process's
    // resident size with an embedded store (docs/operations.md).
    new Gauge({
      name: 'tableside_embedded_db_memory_bytes',
      help: 'Size of the embedded database (PGlite) WebAssembly memory, in bytes',
      registers: [registry],
      collect() {
        const bytes = embeddedDbMemory();
        if (bytes !== null) this.set(bytes);
      },
    });
  }
  if (opts.db) registerStoreMetrics(registry, opts.db);
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'tableside_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'tableside_http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route pattern and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return registry;
}

/**
 * What an operator of a fleet watches besides requests: each replica's connections (pool size x
 * replicas is PostgreSQL's connection budget; `waiting` above zero means the pool is the bottleneck)
 * and the durable jobs' backlog by kind (webhook deliveries, payment timeouts, syncs), which is the
 * fleet's, not the replica's: every replica reports the same figures. A backlog that cannot be read
 * within a second (database down) is reported as NaN rather than a stale or made-up count.
 */
function registerStoreMetrics(registry: Registry, db: Pick<Db, 'kysely' | 'pool'>): void {
  new Gauge({
    name: 'tableside_db_pool_connections',
    help: 'Database connections of this process by state: total open, idle, and requests waiting for one',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'total' }, db.pool.totalCount);
      this.set({ state: 'idle' }, db.pool.idleCount);
      this.set({ state: 'waiting' }, db.pool.waitingCount);
    },
  });
  // prom-client collects every metric of a scrape at once: the three gauges share one read.
  let inflight: Promise<void> | null = null;
  const collect = () => {
    inflight ??= readBacklog().finally(() => {
      inflight = null;
    });
    return inflight;
  };
  const jobs: Gauge<'kind' | 'state'> = new Gauge({
    name: 'tableside_jobs',
    help: 'Durable jobs of the whole fleet that are due, by kind and state: due (waiting for a process) or leased (running)',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    collect,
  });
  const oldest = new Gauge({
    name: 'tableside_jobs_oldest_due_seconds',
    help: 'Age of the oldest due job not yet claimed, by kind (a growing age means the fleet falls behind)',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect,
  });
  const readable = new Gauge({
    name: 'tableside_jobs_backlog_readable',
    help: '1 when this scrape read the job backlog, 0 when the database did not answer within 1 s (tableside_jobs is then NaN)',
    registers: [registry],
    collect,
  });
  async function readBacklog(): Promise<void> {
    type Row = { kind: string; due: string; leased: string; oldest_s: number | null };
    const query = sql<Row>`
      SELECT kind,
             count(*) FILTER (WHERE locked_until IS NULL OR locked_until <= now()) AS due,
             count(*) FILTER (WHERE locked_until > now()) AS leased,
             extract(epoch FROM now() - min(run_at) FILTER (WHERE locked_until IS NULL OR locked_until <= now()))::float8 AS oldest_s
        FROM jobs WHERE run_at <= now() GROUP BY kind`.execute(db.kysely);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), BACKLOG_READ_MS);
    });
    const result = await Promise.race([query.catch(() => null), timeout]).finally(() => clearTimeout(timer));
    jobs.reset();
    oldest.reset();
    readable.set(result ? 1 : 0);
    if (!result) {
      jobs.set({ kind: 'all', state: 'due' }, Number.NaN);
      return;
    }
    for (const row of result.rows) {
      jobs.set({ kind: row.kind, state: 'due' }, Number(row.due));
      jobs.set({ kind: row.kind, state: 'leased' }, Number(row.leased));
      if (row.oldest_s !== null) oldest.set({ kind: row.kind }, Math.max(0, row.oldest_s));
    }
  }
}
