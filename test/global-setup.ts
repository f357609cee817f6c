import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openEmbedded } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { generateSelfSigned } from '../src/lib/tls.ts';
import { buildCliBundle } from './cli-bundle.ts';

// Runs once per `vitest run`, before any test file:
// - builds a migrated PGlite store and dumps it, so each test loads a fresh copy in under a second
//   instead of creating and migrating one (about five seconds);
// - generates the TLS certificate test servers use and test clients trust;
// - bundles the `tableside` command the tests spawn (test/cli-bundle.ts says why);
// - checks PostgreSQL when TEST_DATABASE_URL is set. In CI (CI=true) PostgreSQL is required: a
//   missing or unreachable database fails the run instead of skipping its tests.

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    tlsDir: string;
    postgresUrl: string | null;
    runId: string;
    cliEntry: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'tableside-test-'));
  const runId = `r${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  const db = await openEmbedded();
  await migrate(db);
  const dump = await db.pglite!.dumpDataDir('none');
  const templateFile = join(dir, 'template.tar');
  writeFileSync(templateFile, Buffer.from(await dump.arrayBuffer()));
  await db.close();

  const root = join(import.meta.dirname, '..');
  const bundleDir = join(root, 'node_modules', '.cache', 'tableside-test', runId);
  const cliEntry = await buildCliBundle(root, bundleDir);

  const tls = await generateSelfSigned();
  writeFileSync(join(dir, 'tls.key'), tls.key);
  writeFileSync(join(dir, 'tls.crt'), tls.cert);

  const url = process.env.TEST_DATABASE_URL || null;
  if (url) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (err) {
      throw new Error(`TEST_DATABASE_URL is set but PostgreSQL is not reachable: ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => {});
    }
  } else if (process.env.CI === 'true') {
    throw new Error('CI=true requires TEST_DATABASE_URL: the PostgreSQL suite must run in CI.');
  }

  project.provide('pgliteTemplate', templateFile);
  project.provide('tlsDir', dir);
  project.provide('postgresUrl', url);
  project.provide('runId', runId);
  project.provide('cliEntry', cliEntry);

  return async () => {
    if (url) {
      // Drop whatever schemas this run's tests left behind (a crashed test cannot clean up itself).
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ nspname: string }>(
        // starts_with, not LIKE: `_` is a LIKE wildcard.
        `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`,
        [`t_${runId}_`],
      );
      for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
      await client.end();
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(bundleDir, { recursive: true, force: true });
  };
}
