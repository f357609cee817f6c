import { join } from 'node:path';
import type { Logger } from 'pino';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import type { VenuesService } from '../content/venues.service.ts';
import { loadOrCreateSelfSigned } from '../lib/tls.ts';
import type { BookingServicesService } from '../rms/booking-services.service.ts';
import type { RmsClients } from '../rms/rms-client.ts';
import { rememberedPort, sandboxFile, startOnRememberedPort, writeSandboxJson } from './ports.ts';

export type { RmsSimulator };

// The sandbox's RMS (DESIGN 8.6): the reference RMS in-process on its own HTTPS port, its state
// (venues, bookings, key) kept in the data directory. The sandbox partner's booking services point
// at it, its demo venues are the partner's content venues (externalId = the RMS venue id), and it
// sends its notices and feeds to this Tableside with the partner's key.

export async function startSandboxRms(dataDir: string): Promise<RmsSimulator> {
  const tls = await loadOrCreateSelfSigned(dataDir);
  // The port of the previous start when it is still free (ports.ts): saved RMS URLs stay valid.
  return startOnRememberedPort(rememberedPort(sandboxFile(dataDir), 'rms'), (port) =>
    startRmsSimulator({ port, stateFile: join(dataDir, 'rms-sim-state.json'), tls: { key: tls.key, cert: tls.cert }, seed: true }));
}

const COUNTRY_OF_ZONE: Record<string, string> = { 'Europe/London': 'GB', 'America/New_York': 'US', 'Europe/Paris': 'FR', 'Europe/Madrid': 'ES' };

export interface SandboxRms {
  baseUrl: string;
  apiKey: string;
  /** Content venue id of each RMS venue. */
  venues: Array<{ id: string; externalId: string; name: string }>;
}

/** Connects the sandbox partner to the in-process RMS; safe on every start (the RMS port may change when the previous one was taken). */
export async function connectSandboxRms(deps: {
  rms: RmsSimulator;
  partnerId: string;
  partnerApiKey: string;
  baseUrl: string;
  dataDir: string;
  venues: Pick<VenuesService, 'getByExternalId' | 'upsertByExternalId'>;
  bookingServices: Pick<BookingServicesService, 'put' | 'endpoint'>;
  rmsClients: Pick<RmsClients, 'trust'>;
  log: Logger;
}): Promise<SandboxRms> {
  const { rms, partnerId } = deps;
  deps.rmsClients.trust(rms.ca);
  // A restart whose RMS kept its port and key (ports.ts) has nothing to change: put would check the
  // RMS's health over a new TLS connection and rewrite the row (0.18-0.28 s of a restart's CPU,
  // timed under load). A key that cannot be unsealed (SECRETS_KEY changed) is put again.
  const connected = await deps.bookingServices.endpoint(partnerId).catch(() => null);
  if (connected?.baseUrl !== rms.baseUrl || connected.apiKey !== rms.apiKey) {
    await deps.bookingServices.put(partnerId, { baseUrl: rms.baseUrl, apiKey: rms.apiKey });
  }
  const venues: SandboxRms['venues'] = [];
  for (const v of rms.venues()) {
    const content = {
      name: v.name, city: v.timezone.split('/')[1]?.replace(/_/g, ' ') ?? 'London', countryCode: COUNTRY_OF_ZONE[v.timezone] ?? 'GB',
      currency: v.currency, timezone: v.timezone,
    };
    // A restart finds the venue as the RMS describes it: one read instead of a write (a transaction,
    // the partner's list version bumped, updatedAt moved; 0.13-0.24 s of a restart's CPU for three).
    // Not found (or unreadable) is written, as a changed venue is.
    const stored = await deps.venues.getByExternalId(partnerId, v.id).catch(() => null);
    const same = stored && (Object.keys(content) as Array<keyof typeof content>).every((k) => stored[k] === content[k]);
    const venue = same ? stored : (await deps.venues.upsertByExternalId(partnerId, v.id, content)).venue;
    venues.push({ id: venue.id, externalId: v.id, name: v.name });
  }
  const tls = await loadOrCreateSelfSigned(deps.dataDir);
  rms.setTableside({ tablesideUrl: deps.baseUrl, apiKey: deps.partnerApiKey, ca: tls.cert });
  deps.log.info({ rms: rms.baseUrl, venues: venues.length }, 'sandbox RMS connected');
  return { baseUrl: rms.baseUrl, apiKey: rms.apiKey, venues };
}

/** Adds the RMS to sandbox.json: `rmsApiKey` (the reference RMS's key), its URL and the venues. */
export function writeSandboxRms<T extends object>(file: string, sandbox: T, rms: SandboxRms): T & { rmsBaseUrl: string; rmsApiKey: string; rmsVenues: SandboxRms['venues'] } {
  const next = { ...sandbox, rmsBaseUrl: rms.baseUrl, rmsApiKey: rms.apiKey, rmsVenues: rms.venues };
  writeSandboxJson(file, next);
  return next;
}
