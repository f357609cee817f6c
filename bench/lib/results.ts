import { appendFileSync, readFileSync } from 'node:fs';

// One row per goal of issue 14: the figure, the baseline it is compared with (measured in the same
// run), their ratio and whether the goal is met. Each bench prints its rows; under `npm run bench`
// (bench/all.ts) they are also appended to the file named by BENCH_RESULTS, and the runner prints
// them all as one table at the end.

export interface ResultRow {
  scenario: string;
  /** The measured figure, with its unit (e.g. "1175 req/s", "p50 2.1 ms"). */
  figure: string;
  baseline: string;
  /** figure / baseline, as the goal reads it (a share for throughputs, a multiple for latencies). */
  ratio: string;
  goal: string;
  /** null when the row is recorded without a goal (e.g. the embedded store). */
  met: boolean | null;
}

export function record(row: ResultRow): void {
  // A scenario or its baseline left out of this run (BENCH_SCENARIOS) has no figure.
  if (row.ratio.includes('NaN')) return;
  console.log(`result: ${row.scenario}: ${row.figure} vs ${row.baseline} = ${row.ratio} (goal ${row.goal}: ${metText(row.met)})`);
  if (process.env.BENCH_RESULTS) appendFileSync(process.env.BENCH_RESULTS, `${JSON.stringify(row)}\n`);
}

/** A throughput goal: `value` must be at least `share` of `base`. */
export function shareRow(scenario: string, value: number, unit: string, base: number, baseLabel: string, share: number | null): ResultRow {
  const r = value / base;
  return {
    scenario,
    figure: `${value.toFixed(0)} ${unit}`,
    baseline: `${baseLabel} ${base.toFixed(0)}`,
    ratio: `${(r * 100).toFixed(1)}%`,
    goal: share === null ? 'recorded' : `>= ${(share * 100).toFixed(0)}%`,
    met: share === null ? null : r >= share,
  };
}

/** A latency goal: `value` must be at most `times` the baseline's; null records it only (a retired goal). */
export function multipleRow(scenario: string, value: number, base: number, baseLabel: string, times: number | null): ResultRow {
  const r = value / base;
  return {
    scenario,
    figure: `${value.toFixed(2)} ms`,
    baseline: `${baseLabel} ${base.toFixed(2)} ms`,
    ratio: `${r.toFixed(2)}x`,
    goal: times === null ? 'recorded' : `<= ${times}x`,
    met: times === null ? null : r <= times,
  };
}

const metText = (met: boolean | null) => (met === null ? '—' : met ? 'met' : 'NOT met');

export function table(rows: ResultRow[]): string {
  return [
    '| scenario | figure | baseline (same run) | ratio | goal | met? |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.scenario} | ${r.figure} | ${r.baseline} | ${r.ratio} | ${r.goal} | ${metText(r.met)} |`),
  ].join('\n');
}

export function readRows(file: string): ResultRow[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as ResultRow);
}

/** An absolute ceiling (issue 28's RSS goals): `value` must be at most `limit`; null records it only. */
export function limitRow(scenario: string, value: number, unit: string, limit: number | null, what: string): ResultRow {
  return {
    scenario,
    figure: `${value.toFixed(0)} ${unit}`,
    baseline: `${what}, from /proc`,
    ratio: limit === null ? '—' : `${((value / limit) * 100).toFixed(0)}% of the limit`,
    goal: limit === null ? 'recorded' : `<= ${limit} ${unit}`,
    met: limit === null ? null : value <= limit,
  };
}

/** A growth goal: `value` (at the end) at most `1 + growth` times `base` (measured earlier in the same run). */
export function growthRow(scenario: string, value: number, unit: string, base: number, baseLabel: string, growth: number): ResultRow {
  const r = value / base - 1;
  return {
    scenario,
    figure: `${value.toFixed(0)} ${unit}`,
    baseline: `${baseLabel} ${base.toFixed(0)} ${unit}`,
    ratio: `${r >= 0 ? '+' : ''}${(r * 100).toFixed(1)}%`,
    goal: `<= +${(growth * 100).toFixed(0)}%`,
    met: r <= growth,
  };
}
