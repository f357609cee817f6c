import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { HttpClient } from '../helpers/http.ts';

// DESIGN 8.6 (RMS part): `tableside serve --sandbox` runs the reference RMS in-process, connects the
// sandbox partner's booking services to it, makes its venues the partner's content venues and
// writes rmsApiKey to sandbox.json; the README's steps (find a slot, book, read the booking) work.

describe('the sandbox RMS', () => {
  let dir: string;
  let serve: ServeProcess | null = null;
  const sandbox = () => JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'));
  const ca = () => readFileSync(join(dir, 'tls.crt'), 'utf8');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tableside-sandbox-rms-'));
    serve = await startServe({ TABLESIDE_DATA: dir }, ['serve', '--sandbox'], 120_000);
  }, 180_000);
  afterAll(async () => {
    await serve?.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('sandbox.json has rmsApiKey; the partner is connected; a slot found at the RMS is booked and its notice reaches Tableside', async () => {
    const s = sandbox();
    expect(s).toMatchObject({ rmsApiKey: expect.any(String), rmsBaseUrl: expect.stringMatching(/^https:\/\//), rmsVenues: expect.any(Array) });
    expect(s.rmsVenues.map((v: any) => v.externalId)).toEqual(['rms-venue-1', 'rms-venue-2', 'rms-venue-3']);
    const tableside = new HttpClient(s.baseUrl, ca());
    const rms = new HttpClient(s.rmsBaseUrl, ca());
    try {
      const connected = await tableside.get('/v1/rms/booking-services', { token: s.apiKey });
      expect(connected.body).toMatchObject({ baseUrl: s.rmsBaseUrl, apiKeySet: true, lastHealthCheck: { ok: true } });
      const venue = await tableside.get(`/v1/rms/venues/${s.rmsVenues[0].id}`, { token: s.apiKey });
      expect(venue.body).toMatchObject({ externalId: 'rms-venue-1', name: 'The Anchor' });

      // The README's walk: find a slot at the RMS, book it, read it back.
      const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
      const slots = await rms.get('/availability', { token: s.rmsApiKey, query: { venueId: 'rms-venue-1', date, partySize: 2 } });
      expect(slots.status).toBe(200);
      const open = slots.body.slotData.find((x: any) => x.openSpots > 0);
      expect(open).toBeDefined();
      const created = await rms.post('/booking', {
        token: s.rmsApiKey,
        headers: { 'idempotency-key': `sandbox-${Date.now()}` },
        body: { venueId: 'rms-venue-1', bookingChannel: { id: 'readme', name: 'README' }, partySize: 2, date: new Date(open.startSec * 1000).toISOString(), contact: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', telephone: '+44 20 7946 0001' } },
      });
      expect(created.status).toBe(200);
      const read = await rms.get(`/booking/${created.body.id}`, { token: s.rmsApiKey });
      expect(read.body).toMatchObject({ id: created.body.id, status: 'confirmed', partySize: 2 });
      // The RMS told Tableside (a booking Tableside did not make: acknowledged, never an error).
      const control = await eventually(async () => {
        const out = await rms.get('/_control/outbound', { token: s.rmsApiKey });
        const mine = out.body.filter((e: any) => e.kind === 'notice' && e.body.entityId === created.body.id);
        expect(mine[0]?.attempts[0]?.status).toBe(202);
        return mine;
      }, { what: 'the notice delivered' });
      expect(control.length).toBeGreaterThan(0);
    } finally {
      await tableside.close();
      await rms.close();
    }
  });

  it('a restart reconnects to the RMS on its new port and keeps its key, venues and bookings', async () => {
    const before = sandbox();
    await serve!.stop('SIGTERM');
    serve = await startServe({ TABLESIDE_DATA: dir }, ['serve', '--sandbox'], 120_000);
    const after = sandbox();
    expect(after.rmsApiKey).toBe(before.rmsApiKey);
    expect(after.rmsVenues).toEqual(before.rmsVenues);
    const tableside = new HttpClient(after.baseUrl, ca());
    try {
      expect((await tableside.get('/v1/rms/booking-services', { token: after.apiKey })).body.baseUrl).toBe(after.rmsBaseUrl);
      const list = await tableside.get('/v1/rms/venues', { token: after.apiKey, query: { limit: 50 } });
      expect(list.body.data.filter((v: any) => v.externalId?.startsWith('rms-venue-')).length).toBe(3);
    } finally {
      await tableside.close();
    }
  }, 180_000);
});
