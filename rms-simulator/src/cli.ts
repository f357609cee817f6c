// `tableside rms-sim`: the reference RMS on its own, seeded, until SIGTERM/SIGINT (DESIGN 8.2, BKG-10).
// Prints one JSON line on stdout once it listens; with json nothing else goes to stdout.

import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { localCertificate, untilSignal } from '../../pos-simulator/src/cli.ts';
import { startRmsSimulator } from './index.ts';

export interface RmsSimOptions {
  port?: number;
  apiKey?: string;
  json?: boolean;
  stateFile?: string;
  /** Send update notices (and, on request, feeds and seated events) to this Tableside. */
  tablesideUrl?: string;
  tablesideApiKey?: string;
  /** PEM file to trust for Tableside's certificate. */
  tablesideCaFile?: string;
  /** Also offer HTTP/2 by ALPN. */
  http2?: boolean;
}

/**
 * The certificate lives in the data directory and is reused across runs, so a client told to trust
 * it (NODE_EXTRA_CA_CERTS, or rms-check, which trusts this file) keeps working after a restart.
 */
export function rmsSimCertDir(): string {
  return resolve(process.env.TABLESIDE_DATA ?? '.tableside', 'rms-sim');
}

export async function runRmsSim(opts: RmsSimOptions = {}): Promise<void> {
  if ((opts.tablesideUrl === undefined) !== (opts.tablesideApiKey === undefined)) {
    throw new Error('--tableside-url and --tableside-api-key go together');
  }
  const { tls, certFile } = await localCertificate(rmsSimCertDir());
  const sim = await startRmsSimulator({
    port: opts.port ?? 9444,
    apiKey: opts.apiKey,
    stateFile: opts.stateFile,
    tls,
    seed: true,
    http2: opts.http2,
    ...(opts.tablesideUrl !== undefined && opts.tablesideApiKey !== undefined
      ? { tableside: { tablesideUrl: opts.tablesideUrl, apiKey: opts.tablesideApiKey, ca: opts.tablesideCaFile ? readFileSync(opts.tablesideCaFile, 'utf8') : undefined } }
      : {}),
  });
  const venues = (await sim.control.listVenues()).map((v) => ({
    id: v.id, name: v.name, timezone: v.timezone, currency: v.currency, tables: v.tables.map((t) => t.id),
  }));
  process.stdout.write(`${JSON.stringify({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venues, caFile: certFile })}\n`);
  if (!opts.json) {
    process.stderr.write(
      `RMS simulator listening on ${sim.baseUrl} (certificate ${certFile}).\n` +
      `Check it: npx tableside rms-check --base-url ${sim.baseUrl} --api-key ${sim.apiKey} --venue ${venues[0]?.id ?? '<venue>'}\n`,
    );
  }

  await untilSignal();
  await sim.close();
}
