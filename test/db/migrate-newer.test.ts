import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import type { Db } from '../../src/db/db.ts';
import { migrate } from '../../src/db/migrate.ts';
import { jsonOf, runCli, startServe } from '../helpers/cli.ts';
import { describeEachStore, describePostgres, newPostgres, newStore } from '../helpers/db.ts';
import { HttpClient } from '../helpers/http.ts';

// The rolling upgrade (src/db/README.md, "Migrations: expand, then contract"): the first replica of
// release N+1 applies its migrations while release N still runs, and a replica of release N that
// restarts after that (a crash, a host reboot, the operator rolling back) must start on the newer
// schema. Kysely's migrator refused it ("corrupted migrations: previously executed migration X is
// missing"), so an old replica could not come back mid-rollout. No rule of rules.md names the
// rolling upgrade; these hold DES-047 (migrate again is a no-op that exits 0) and DES-048 (processes
// migrating one database, here of two releases, both succeed with the schema applied once).

const NEWER = '999_applied_by_a_newer_release';

/** Records a migration this code does not have, as a newer release's start would have. */
async function recordNewerMigration(db: Db): Promise<void> {
  await sql`insert into kysely_migration (name, timestamp) values (${NEWER}, ${new Date().toISOString()})`.execute(db.kysely);
}

describeEachStore('a database migrated by a newer release', (kind) => {
  it('[DES-047] [DES-048] migrate succeeds, applies nothing and reports the newer release’s migration instead of refusing the store', async () => {
    const db = await newStore(kind);
    onTestFinished(() => db.close());
    await recordNewerMigration(db);
    const result = await migrate(db);
    expect(result).toEqual({ applied: [], appliedByNewerRelease: [NEWER] });
    // Its row is left as it was: the newer release still counts it as applied.
    const { rows } = await sql<{ name: string }>`select name from kysely_migration where name = ${NEWER}`.execute(db.kysely);
    expect(rows).toHaveLength(1);
  });
});

describePostgres('a release restarted after a newer one migrated the database', () => {
  it('[DES-047] [DES-048] `tableside migrate` exits 0 and `serve` starts and serves on a database holding a migration this code does not know', async () => {
    const store = await newPostgres();
    onTestFinished(() => store.close());
    await recordNewerMigration(store);

    const migrated = await runCli(['migrate', '--json'], { DATABASE_URL: store.url });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(jsonOf(migrated)).toEqual({ applied: [], appliedByNewerRelease: [NEWER] });

    const data = mkdtempSync(join(tmpdir(), 'tableside-newer-'));
    const server = await startServe({ DATABASE_URL: store.url, TABLESIDE_DATA: data, LOG_LEVEL: 'info' });
    onTestFinished(async () => void (await server.stop('SIGKILL')));
    const client = new HttpClient(server.url, readFileSync(join(data, 'tls.crt'), 'utf8'));
    onTestFinished(() => client.close());
    expect((await client.get('/readyz')).status).toBe(200);
    // Serves a request that reads and writes the store: a partner's token through OAuth.
    const partner = jsonOf(await runCli(['partner', 'create', '--name', 'after-newer', '--access', 'pat', '--json'], { DATABASE_URL: store.url }));
    const token = await client.post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: partner.clientId, client_secret: partner.clientSecret } });
    expect(token.status).toBe(200);
    expect((await client.get('/v1/pat/pos-types', { token: token.body.access_token })).status).toBe(200);
    // The operator can tell from the log why the database is ahead of this replica.
    expect(server.output()).toContain(NEWER);
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
