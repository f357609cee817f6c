// Output of `tableside pos-check`: one line per rule for people, or exactly one JSON object.

import { readFileSync } from 'node:fs';
import { runPosCheck, type PosCheckOptions, type PosCheckReport } from './run.ts';

/** Human output: one `PASS|FAIL|SKIP  <id>  <title> — <what it saw>` line per rule, then a summary line (no trailing newline). */
export function formatReport(report: PosCheckReport): string {
  const lines = report.rules.map((r) => `${r.status.toUpperCase().padEnd(4)}  ${r.id}  ${r.title} — ${r.detail}`);
  const count = (s: string) => report.rules.filter((r) => r.status === s).length;
  lines.push(`${report.ok ? 'OK' : 'NOT CONFORMING'}: ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`);
  return lines.join('\n');
}

/** The whole stdout of pos-check: exactly one JSON object line with json, else formatReport's lines. */
export function formatPosCheckReport(report: PosCheckReport, opts: { json?: boolean; baseUrl?: string; venue?: string } = {}): string {
  if (opts.json) return `${JSON.stringify({ ok: report.ok, baseUrl: opts.baseUrl, venue: opts.venue, rules: report.rules })}\n`;
  return `${formatReport(report)}\n`;
}

export interface PosCheckCliOptions extends Omit<PosCheckOptions, 'ca'> {
  /** Path of a PEM file to trust (the CLI's --ca). */
  caFile?: string;
}

/**
 * What `tableside pos-check` does: run, print, and return the exit code (1 when any rule fails,
 * 2 when the kit could not start, e.g. an unreadable --ca file or a non-https URL).
 */
export function posCheckMain(opts: PosCheckCliOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  return runKitCli('pos-check', () => runPosCheck({ ...opts, ca: opts.caFile ? readFileSync(opts.caFile, 'utf8') : undefined }), opts, out, err);
}

/**
 * The CLI side of a conformance kit (pos-check, rms-check): run it, print the report, and return
 * the exit code: 0 when no rule fails, 1 when one does, 2 when the kit could not start.
 */
export async function runKitCli(
  kit: string,
  run: () => Promise<PosCheckReport>,
  meta: { json?: boolean; baseUrl?: string; venue?: string },
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  let report: PosCheckReport;
  try {
    report = await run();
  } catch (e) {
    err.write(`${kit}: ${(e as Error).message}\n`);
    return 2;
  }
  out.write(formatPosCheckReport(report, { json: meta.json, baseUrl: meta.baseUrl, venue: meta.venue }));
  return report.ok ? 0 : 1;
}
