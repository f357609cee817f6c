import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService } from '../../src/app/service.ts';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/db.ts';
import { orderSyncKey } from '../../src/pos-mirror/sync.service.ts';
import { createLogger } from '../../src/server/logger.ts';
import { describeEachStore, newStore } from '../helpers/db.ts';

// Issue 28: a first sandbox start reads each new venue's orders from its POS before it answers, so
// sandbox.json's venues have their bills at once. The venue's order-sync job, scheduled when the
// venue was connected, then ran at once too and read the same orders again beside the first
// /healthz; it is now due one sync interval after the seeding's read, as after any run of its own.

describeEachStore('a first sandbox start', (kind) => {
  let db: Db;
  let dataDir: string;
  beforeAll(async () => {
    db = await newStore(kind);
    dataDir = mkdtempSync(join(tmpdir(), 'tableside-sandbox-first-sync-'));
  });
  afterAll(async () => {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('[DES-068] reads the sandbox venues\' orders once: their sync jobs are due one interval later', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, databaseUrl: null, sandbox: true });
    const before = Date.now();
    const service = await startService(config, { log: createLogger('silent'), startJobs: false, store: { db, embedded: false, close: async () => {} } });
    const after = Date.now();
    await service.close();
    const { venueIds } = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as { venueIds: string[] };
    expect(venueIds).toHaveLength(2);
    for (const venueId of venueIds) {
      // Read by the seeding: the demo's open and closed orders are stored.
      const { rows: orders } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM orders WHERE venue_id = ${venueId}`.execute(db.kysely);
      expect(orders[0]!.n).toBe(4);
      const { rows } = await sql<{ runAt: Date }>`SELECT run_at AS "runAt" FROM jobs WHERE dedupe_key = ${orderSyncKey(venueId)}`.execute(db.kysely);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.runAt.getTime()).toBeGreaterThanOrEqual(before + config.orderSyncIntervalS * 1000);
      expect(rows[0]!.runAt.getTime()).toBeLessThanOrEqual(after + config.orderSyncIntervalS * 1000);
    }
  }, 120_000);
});
