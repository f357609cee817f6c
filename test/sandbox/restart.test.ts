import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService } from '../../src/app/service.ts';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/db.ts';
import { createLogger } from '../../src/server/logger.ts';
import { describeEachStore, newStore } from '../helpers/db.ts';

// Issue 28: a sandbox restart reads what it would write and writes only what changed or is missing.
// Rewriting everything at every start (the channels' venue links in a transaction that bumped the
// partner's venue-list version, Google's configuration sealed and saved again) cost the restart CPU
// and moved the partner's list version and the configuration's updatedAt for nothing. A link removed
// meanwhile, a configuration changed, disabled or deleted is still made as at the first start.

describeEachStore('a sandbox restart', (kind) => {
  let db: Db;
  let dataDir: string;
  beforeAll(async () => {
    db = await newStore(kind);
    dataDir = mkdtempSync(join(tmpdir(), 'tableside-sandbox-restart-'));
  });
  afterAll(async () => {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts the sandbox on this test's store and data directory and stops it again. */
  async function startAndStop(): Promise<void> {
    const config = loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, databaseUrl: null, sandbox: true });
    const service = await startService(config, { log: createLogger('silent'), startJobs: false, store: { db, embedded: false, close: async () => {} } });
    await service.close();
  }
  const sandbox = () => JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8'));
  const listVersion = async (partnerId: string) =>
    (await sql<{ version: number }>`SELECT version FROM content_list_versions WHERE partner_id = ${partnerId}`.execute(db.kysely)).rows[0]?.version;
  const googleConfig = async (channelId: string) =>
    (await sql<{ apiBase: string; enabled: boolean; updatedAt: Date; sealed: string }>`
      SELECT api_base AS "apiBase", enabled, updated_at AS "updatedAt", private_key_sealed AS sealed FROM google_rtu_configs WHERE channel_id = ${channelId}`.execute(db.kysely)).rows[0];
  const links = async (channelId: string) =>
    (await sql<{ venueId: string }>`SELECT venue_id AS "venueId" FROM venue_booking_channels WHERE channel_id = ${channelId} ORDER BY venue_id`.execute(db.kysely)).rows.map((r) => r.venueId);

  it('[DES-068] writes neither the channels\' venue links nor Google\'s configuration when nothing changed', async () => {
    await startAndStop();
    const first = sandbox();
    const google = first.channels.find((c: { protocol: string }) => c.protocol === 'google-v3');
    const version = await listVersion(first.partnerId);
    const config = await googleConfig(google.id);
    expect(config).toMatchObject({ apiBase: first.googleApi.baseUrl, enabled: true });

    await startAndStop();
    expect(await listVersion(first.partnerId)).toBe(version);
    const after = await googleConfig(google.id);
    expect(after!.updatedAt.getTime()).toBe(config!.updatedAt.getTime());
    expect(after!.sealed).toBe(config!.sealed);
  }, 120_000);

  it('[DES-068] makes again a venue link removed, and rewrites a Google configuration changed, disabled or deleted', async () => {
    const s = sandbox();
    const [site, google] = s.channels as Array<{ id: string; protocol: string }>;
    const linked = await links(site!.id);
    expect(linked).toHaveLength(s.rmsVenues.length);

    await sql`DELETE FROM venue_booking_channels WHERE channel_id = ${site!.id} AND venue_id = ${linked[0]}`.execute(db.kysely);
    await sql`UPDATE google_rtu_configs SET api_base = 'https://127.0.0.1:1' WHERE channel_id = ${google!.id}`.execute(db.kysely);
    await startAndStop();
    expect(await links(site!.id)).toEqual(linked);
    expect(await googleConfig(google!.id)).toMatchObject({ apiBase: sandbox().googleApi.baseUrl, enabled: true });

    await sql`UPDATE google_rtu_configs SET enabled = false WHERE channel_id = ${google!.id}`.execute(db.kysely);
    await startAndStop();
    expect(await googleConfig(google!.id)).toMatchObject({ enabled: true });

    await sql`DELETE FROM google_rtu_configs WHERE channel_id = ${google!.id}`.execute(db.kysely);
    await startAndStop();
    expect(await googleConfig(google!.id)).toMatchObject({ apiBase: sandbox().googleApi.baseUrl, enabled: true });
  }, 180_000);

  it('[DES-068] seeds the simulators\' demo venues again when their state files lost one', async () => {
    const dropVenue = (file: string, id: string) => {
      const state = JSON.parse(readFileSync(join(dataDir, file), 'utf8'));
      state.venues = state.venues.filter((v: { id: string }) => v.id !== id);
      writeFileSync(join(dataDir, file), JSON.stringify(state));
    };
    const venueIds = (file: string) => JSON.parse(readFileSync(join(dataDir, file), 'utf8')).venues.map((v: { id: string }) => v.id);
    dropVenue('pos-sim-state.json', 'sim-venue-2');
    dropVenue('rms-sim-state.json', 'rms-venue-3');
    await startAndStop();
    expect(venueIds('pos-sim-state.json')).toContain('sim-venue-2');
    expect(venueIds('rms-sim-state.json')).toContain('rms-venue-3');
    expect(sandbox().rmsVenues.map((v: { externalId: string }) => v.externalId)).toEqual(['rms-venue-1', 'rms-venue-2', 'rms-venue-3']);
  }, 120_000);
});
