// `npm run bench`: every bench, one after the other (bench/rms.ts and bench/channels.ts record no goal of issue 14: their
// own figures are in their output), then one table of every goal of issue 14
// (scenario, figure, baseline measured in the same run, ratio, goal, met or not).
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench
//
// BENCH_ONLY (a regular expression on the file names, e.g. "pat") runs a subset. Each bench's own
// options still apply (see bench/README.md).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRows, table } from './lib/results.ts';

const ROOT = join(import.meta.dirname, '..');
const BENCHES = ['bench/pat.ts', 'bench/content-venues.ts', 'bench/analytics-orders.ts', 'bench/rms.ts', 'bench/webhooks.ts', 'bench/channels.ts', 'bench/availability.ts', 'bench/sdk.ts', 'bench/bulk.ts', 'bench/start.ts'];
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const dir = mkdtempSync(join(tmpdir(), 'tableside-bench-all-'));
const file = join(dir, 'results.jsonl');
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

const startLoad = load();
const failed: string[] = [];
try {
  for (const bench of BENCHES.filter((b) => !only || only.test(b))) {
    console.log(`\n=== ${bench} (load average ${load()}) ===`);
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/run-ts.mjs'), join(ROOT, bench)], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, BENCH_RESULTS: file },
    });
    if (r.status !== 0) failed.push(bench);
  }
  console.log(`\n=== all goals (load average ${startLoad} at the start, ${load()} at the end) ===\n`);
  console.log(table(readRows(file)));
  if (failed.length) console.log(`\nFAILED: ${failed.join(', ')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed.length ? 1 : 0;
