import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { Venue } from '../../src/content/venues.schemas.ts';
import { connectSandboxRms, type RmsSimulator } from '../../src/sandbox/rms.ts';

// A sandbox restart finds the RMS's venues already made the partner's content venues: writing them
// again (a transaction each, the list version bumped) cost a restart ~0.15-0.25 s of CPU and
// changed nothing but updatedAt. A venue the RMS changed meanwhile is still written.

const RMS_VENUES = [
  { id: 'rms-venue-1', name: 'The Anchor', timezone: 'Europe/London', currency: 'GBP' },
  { id: 'rms-venue-2', name: 'Harbour Room', timezone: 'Europe/London', currency: 'GBP' },
];

function fakes(stored: Record<string, Partial<Venue>>) {
  const upserts: string[] = [];
  const rms = {
    baseUrl: 'https://127.0.0.1:1', apiKey: 'rms-key', ca: 'ca',
    venues: () => RMS_VENUES,
    setTableside: () => {},
  } as unknown as RmsSimulator;
  const venues = {
    getByExternalId: async (_partnerId: string, externalId: string) => {
      const v = stored[externalId];
      if (!v) throw Object.assign(new Error('not found'), { statusCode: 404 });
      return v as Venue;
    },
    upsertByExternalId: async (_partnerId: string, externalId: string) => {
      upserts.push(externalId);
      return { venue: { id: `venue-of-${externalId}` } as Venue, created: !stored[externalId] };
    },
  };
  const bookingServices = { endpoint: async () => ({ baseUrl: rms.baseUrl, apiKey: rms.apiKey }), put: async () => { throw new Error('not expected'); } };
  return { rms, venues, bookingServices, upserts };
}

describe('connectSandboxRms on a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tableside-rms-connect-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const connect = (f: ReturnType<typeof fakes>) =>
    connectSandboxRms({
      rms: f.rms, partnerId: 'p1', partnerApiKey: 'k', baseUrl: 'https://127.0.0.1:2', dataDir,
      venues: f.venues as never, bookingServices: f.bookingServices as never, rmsClients: { trust: () => {} } as never, log: pino({ level: 'silent' }),
    });
  const as = (id: string, name: string) => ({ id, name, city: 'London', countryCode: 'GB', currency: 'GBP', timezone: 'Europe/London' });

  it('[DES-068] writes no venue the partner already has as the RMS describes it', async () => {
    const f = fakes({ 'rms-venue-1': as('v1', 'The Anchor'), 'rms-venue-2': as('v2', 'Harbour Room') });
    const rms = await connect(f);
    expect(f.upserts).toEqual([]);
    expect(rms.venues).toEqual([
      { id: 'v1', externalId: 'rms-venue-1', name: 'The Anchor' },
      { id: 'v2', externalId: 'rms-venue-2', name: 'Harbour Room' },
    ]);
  });

  it('[DES-068] writes a venue the RMS changed or the partner lacks', async () => {
    const f = fakes({ 'rms-venue-1': as('v1', 'The Old Anchor') });
    const rms = await connect(f);
    expect(f.upserts).toEqual(['rms-venue-1', 'rms-venue-2']);
    expect(rms.venues.map((v) => v.id)).toEqual(['venue-of-rms-venue-1', 'venue-of-rms-venue-2']);
  });
});
