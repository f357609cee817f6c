// `tableside rms-check`: run the kit, print one line per rule (or one JSON object), exit 0 only
// when no rule fails (DES-141).

import { readFileSync } from 'node:fs';
import { runKitCli } from '../../pos/check/printer.ts';
import { runRmsCheck, type RmsCheckOptions } from './run.ts';

export interface RmsCheckCliOptions extends Omit<RmsCheckOptions, 'ca'> {
  json?: boolean;
  /** Path of a PEM file to trust (the CLI's --ca). */
  caFile?: string;
}

/** Exit code: 0 every rule passed or was skipped, 1 a rule failed, 2 the kit could not start. */
export function rmsCheckMain(opts: RmsCheckCliOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  return runKitCli('rms-check', () => runRmsCheck({ ...opts, ca: opts.caFile ? readFileSync(opts.caFile, 'utf8') : undefined }), opts, out, err);
}
