// Certificate `tableside rms-sim` writes to its data directory; trusted so that the documented
// `rms-sim` + `rms-check` run works without flags. It is a localhost-only, non-CA certificate, so
// trusting it cannot vouch for any other host.

import { resolve } from 'node:path';

export function localRmsSimCertFile(): string {
  return resolve(process.env.TABLESIDE_DATA ?? '.tableside', 'rms-sim', 'cert.pem');
}
