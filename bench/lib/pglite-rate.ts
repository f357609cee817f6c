// The embedded store's own speed, the baseline of the PGlite bill and payment runs: serial
// single-row statements through the same driver path the service uses (pg.Pool over PGlite's
// node-postgres adapter, a data directory on disk), in its own process like the service. Prints one
// JSON line: {"selectPerS": …, "insertPerS": …}.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openEmbedded } from '../../src/db/db.ts';

const SECONDS = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'tableside-pglite-rate-'));
const db = await openEmbedded({ dir });
try {
  await db.pool.query('CREATE TABLE t (id int PRIMARY KEY, v text NOT NULL)');
  await db.pool.query("INSERT INTO t SELECT i, 'x' || i FROM generate_series(1, 1000) i");
  const rate = async (statement: (i: number) => Promise<unknown>) => {
    let n = 0;
    while (n < 200) await statement(n++);
    const warm = n;
    const t0 = performance.now();
    while (performance.now() - t0 < SECONDS * 1000) await statement(n++);
    return ((n - warm) / (performance.now() - t0)) * 1000;
  };
  const selectPerS = await rate((i) => db.pool.query('SELECT id, v FROM t WHERE id = $1', [1 + (i % 1000)]));
  const insertPerS = await rate((i) => db.pool.query('INSERT INTO t (id, v) VALUES ($1, $2)', [10_000 + i, `y${i}`]));
  process.stdout.write(`${JSON.stringify({ selectPerS, insertPerS })}\n`);
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
