// `tableside pos-sim`: the reference POS on its own, seeded, until SIGTERM/SIGINT (DESIGN 6.4).
// Prints one JSON line on stdout once it listens; with json nothing else goes to stdout.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startSimulator } from './index.ts';
import { selfSignedLocalhost, type TlsPair } from './tls.ts';

export interface PosSimOptions {
  port?: number;
  apiKey?: string;
  json?: boolean;
  stateFile?: string;
}

/**
 * The certificate lives in the data directory and is reused across runs, so a client told to trust
 * it (NODE_EXTRA_CA_CERTS, or pos-check, which trusts this file) keeps working after a restart.
 */
export function posSimCertDir(): string {
  return resolve(process.env.TABLESIDE_DATA ?? '.tableside', 'pos-sim');
}

/** The certificate and key kept in `dir` (created on first use); shared with `rms-sim`. */
export async function localCertificate(dir = posSimCertDir()): Promise<{ tls: TlsPair; certFile: string }> {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  try {
    return { tls: { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') }, certFile };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tls = await selfSignedLocalhost();
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyFile, tls.key, { mode: 0o600 });
  writeFileSync(certFile, tls.cert);
  return { tls, certFile };
}

export async function runPosSim(opts: PosSimOptions = {}): Promise<void> {
  const { tls, certFile } = await localCertificate();
  const sim = await startSimulator({
    port: opts.port ?? 9443,
    apiKey: opts.apiKey,
    stateFile: opts.stateFile,
    tls,
    seed: true,
  });
  const venues = (await sim.control.listVenues()).map((v) => ({ id: v.id, tables: v.tables.map((t) => t.id), skus: v.menu.map((m) => m.sku) }));
  process.stdout.write(`${JSON.stringify({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venues, caFile: certFile })}\n`);
  if (!opts.json) {
    process.stderr.write(
      `POS simulator listening on ${sim.baseUrl} (certificate ${certFile}).\n` +
      `Check it: npx tableside pos-check --base-url ${sim.baseUrl} --api-key ${sim.apiKey} --venue ${venues[0]?.id ?? '<venue>'}\n`,
    );
  }

  await untilSignal();
  await sim.close();
}

/** Resolves on the first SIGTERM or SIGINT (shared with `rms-sim`). */
export function untilSignal(): Promise<void> {
  return new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      done();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
