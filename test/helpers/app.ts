import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import type { AccessKind } from '../../src/auth/auth.service.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Db } from '../../src/db/db.ts';
import { ManualClock, systemClock, type Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/server/logger.ts';
import { startService, type RunningService } from '../../src/app/service.ts';
import { newStore, type StoreKind } from './db.ts';
import { HttpClient, testTls } from './http.ts';
import { writeFileSync } from 'node:fs';

// `startTestApp()` runs the real service (HTTPS, auth, routes, jobs) on 127.0.0.1, a free port,
// over a fresh store, and gives a client that trusts its certificate plus small builders.
// The test that starts it closes it (`await app.close()`).

export interface TestPartner {
  partnerId: string;
  apiKey?: string;
  clientId?: string;
  clientSecret?: string;
  token: string;
}

export interface TestApp {
  url: string;
  http: HttpClient;
  service: RunningService;
  db: Db;
  clock: Clock;
  config: Config;
  dataDir: string;
  /** A partner with the given access kinds, its credentials and (for pat/analytics) a token. */
  newPartner(access?: AccessKind[], name?: string): Promise<TestPartner>;
  /** A bare venue row (other features add richer builders). */
  newVenue(fields?: Partial<{ name: string; countryCode: string; city: string; timezone: string; currency: string }>): Promise<string>;
  grant(partnerId: string, venueId: string): Promise<void>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  store?: StoreKind;
  /** An existing store; the app does not close it. */
  db?: Db;
  /** Use a ManualClock (tests move time) instead of the system clock. */
  clock?: Clock | 'manual';
  env?: Record<string, string>;
  config?: Partial<Config>;
  /** Start the job poller (default false: tests call app.service.runner.runDue()). */
  startJobs?: boolean;
  logStream?: DestinationStream;
  /** POS types file contents (written to a temp file and passed as POS_TYPES). */
  posTypes?: unknown;
}

export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tableside-app-'));
  const clock = opts.clock === 'manual' ? new ManualClock() : (opts.clock ?? systemClock);
  const ownsDb = !opts.db;
  const db = opts.db ?? (await newStore(opts.store ?? 'pglite'));
  const env: Record<string, string> = { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...(opts.env ?? {}) };
  if (opts.posTypes !== undefined) {
    const file = join(dataDir, 'pos-types.json');
    writeFileSync(file, JSON.stringify(opts.posTypes));
    env.POS_TYPES = file;
  }
  const config = loadConfig(env, { port: 0, host: '127.0.0.1', dataDir, databaseUrl: null, ...(opts.config ?? {}) });
  const tls = testTls();
  const log = createLogger(opts.logStream ? (process.env.TEST_LOG_LEVEL ?? 'info') : config.logLevel, opts.logStream);
  const service = await startService(config, {
    clock,
    log,
    tls,
    startJobs: opts.startJobs ?? false,
    store: { db, embedded: false, close: async () => (ownsDb ? db.close() : undefined) },
  });
  const http = new HttpClient(service.url);
  const auth = service.app.services.auth;

  return {
    url: service.url,
    http,
    service,
    db,
    clock,
    config,
    dataDir,
    async newPartner(access = ['pat'], name = 'Test partner') {
      const created = await auth.createPartner({ name, access });
      const token = access.includes('pat') || access.includes('analytics') ? (await auth.issueToken(created.partnerId)).accessToken : '';
      return { ...created, token };
    },
    async newVenue(fields = {}) {
      const { uuidv7 } = await import('../../src/lib/ids.ts');
      const { sql } = await import('kysely');
      const id = uuidv7();
      const now = clock.now();
      await sql`INSERT INTO venues (id, name, country_code, city, timezone, currency, created_at, updated_at)
                VALUES (${id}, ${fields.name ?? 'Test venue'}, ${fields.countryCode ?? 'ES'}, ${fields.city ?? 'Madrid'},
                        ${fields.timezone ?? 'Europe/Madrid'}, ${fields.currency ?? 'EUR'}, ${now}, ${now})`.execute(db.kysely);
      return id;
    },
    grant: (partnerId, venueId) => auth.grantVenue(partnerId, venueId),
    async close() {
      await http.close();
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
