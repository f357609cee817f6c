import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { startMapsBookingSimulator, type MapsBookingSimulator, type ServiceAccountKeyFile } from '../../maps-booking-simulator/src/index.ts';
import type { GoogleRtuService } from '../channels/google-rtu.service.ts';
import { loadOrCreateSelfSigned } from '../lib/tls.ts';
import { rememberedPort, sandboxFile, startOnRememberedPort, writeSandboxJson } from './ports.ts';

export type { MapsBookingSimulator };

// The sandbox's Google (DESIGN 8.7c): the simulated Maps Booking API in-process on its own HTTPS
// port, with a service account generated on first start and kept in the data directory (its key
// file, like the one Google lets one download), so after a restart the simulator knows the account
// again and the sandbox's google-v3 channel keeps sending its real-time updates there. sandbox.json
// → googleApi says where it is and how to read the calls it received (a read-only key).

/** Google's partner id of the sandbox (any digits: the simulator checks it against the account). */
export const SANDBOX_GOOGLE_PARTNER = '10000001';
const keyFileOf = (dataDir: string) => join(dataDir, 'google-service-account.json');

function savedKeyFile(dataDir: string): ServiceAccountKeyFile | null {
  try {
    return existsSync(keyFileOf(dataDir)) ? (JSON.parse(readFileSync(keyFileOf(dataDir), 'utf8')) as ServiceAccountKeyFile) : null;
  } catch {
    return null;
  }
}

/**
 * A first start's service account, asked for as soon as the simulator listens: generating its RSA
 * key takes 0.1-0.6 s in the thread pool, which the first start used to wait for with nothing else
 * to do (a profile: 0.52 s of the main thread idle); now the store opens and the sandbox is seeded
 * meanwhile. connectSandboxGoogle takes it.
 */
const generating = new WeakMap<MapsBookingSimulator, Promise<ServiceAccountKeyFile>>();

export async function startSandboxGoogle(dataDir: string): Promise<MapsBookingSimulator> {
  const tls = await loadOrCreateSelfSigned(dataDir);
  const saved = savedKeyFile(dataDir);
  const serviceAccounts = saved ? [{ partnerId: SANDBOX_GOOGLE_PARTNER, clientEmail: saved.client_email, publicKey: saved.private_key }] : [];
  const google = await startOnRememberedPort(rememberedPort(sandboxFile(dataDir), 'google'), (port) =>
    startMapsBookingSimulator({ port, tls: { key: tls.key, cert: tls.cert }, serviceAccounts }));
  if (!saved) {
    const key = google.control.generateServiceAccount({ partnerId: SANDBOX_GOOGLE_PARTNER });
    // Awaited by connectSandboxGoogle; a start that fails before it must not leave a rejection unhandled.
    key.catch(() => {});
    generating.set(google, key);
  }
  return google;
}

export interface SandboxGoogleApi {
  /** The simulated Maps Booking API (the channel's --api-base). */
  baseUrl: string;
  partnerId: string;
  /** GET it with `Authorization: Bearer <readKey>`: every call Google received (`?operation=notifyBooking`). */
  calls: string;
  readKey: string;
}

/** Points the sandbox's google-v3 channel at the simulator; safe on every start. */
export async function connectSandboxGoogle(deps: {
  google: MapsBookingSimulator;
  dataDir: string;
  channelId: string;
  googleRtu: Pick<GoogleRtuService, 'trust' | 'configure' | 'isConfiguredAs'>;
  log: Logger;
}): Promise<SandboxGoogleApi> {
  const { google, dataDir } = deps;
  deps.googleRtu.trust(google.ca);
  let key = savedKeyFile(dataDir);
  if (!key) {
    key = await (generating.get(google) ?? google.control.generateServiceAccount({ partnerId: SANDBOX_GOOGLE_PARTNER }));
    writeFileSync(keyFileOf(dataDir), JSON.stringify(key, null, 2) + '\n', { mode: 0o600 });
  }
  // The simulator's port may have changed since the key file was written: its token endpoint is this one.
  const serviceAccount = JSON.stringify({ ...key, token_uri: google.tokenUri });
  const config = { channel: deps.channelId, partnerId: SANDBOX_GOOGLE_PARTNER, serviceAccount, apiBase: google.baseUrl };
  // A restart whose simulator kept its port and key file finds the channel configured so: one read
  // instead of sealing the key again and rewriting the row. A changed port or key, a disabled or
  // missing configuration is written as at the first start.
  if (!(await deps.googleRtu.isConfiguredAs(config))) await deps.googleRtu.configure(config);
  deps.log.info({ google: google.baseUrl }, 'sandbox Google Maps Booking API connected');
  return { baseUrl: google.baseUrl, partnerId: SANDBOX_GOOGLE_PARTNER, calls: `${google.baseUrl}/_control/calls`, readKey: google.readKey };
}

/** Adds `googleApi` to sandbox.json. */
export function writeSandboxGoogle<T extends object>(file: string, sandbox: T, googleApi: SandboxGoogleApi): T & { googleApi: SandboxGoogleApi } {
  const next = { ...sandbox, googleApi };
  writeSandboxJson(file, next);
  return next;
}
