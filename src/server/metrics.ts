import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// Prometheus metrics at /metrics: request counts and latency by route (the route pattern, never
// the raw URL, so ids do not explode the label space) and status. One registry per app instance.

export interface MetricsOptions {
  /** Bytes of the embedded database's WebAssembly memory, or null with PostgreSQL (issue 15). */
  embeddedDbMemory?: () => number | null;
}

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
