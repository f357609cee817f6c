import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServe, type ServeProcess } from '../helpers/cli.ts';
import { HttpClient } from '../helpers/http.ts';

// DESIGN 8.6 (channels part): `tableside serve --sandbox` creates a channel of each protocol linked
// to the sandbox RMS venues and writes their credentials to sandbox.json; the README's walk (find a
// slot, book it through the channel API, read it back) works with them.

describe('the sandbox channels', () => {
  let dir: string;
  let serve: ServeProcess | null = null;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tableside-sandbox-chn-'));
    serve = await startServe({ TABLESIDE_DATA: dir }, ['serve', '--sandbox'], 120_000);
  }, 180_000);
  afterAll(async () => {
    await serve?.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('[CHN-01] [CHN-03] [CHN-04] sandbox.json lists a tableside and a google-v3 channel; a table is booked through the channel API from the README', async () => {
    const s = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'));
    expect(s.channels.map((c: any) => c.protocol)).toEqual(['tableside', 'google-v3']);
    const [bc, google] = s.channels;
    expect(bc.credentials).toEqual({ apiKey: expect.any(String) });
    expect(google.credentials).toEqual({ username: expect.any(String), password: expect.any(String) });
    const http = new HttpClient(s.baseUrl, readFileSync(join(dir, 'tls.crt'), 'utf8'));
    try {
      const venues = await http.get('/v1/bc/venues', { token: bc.credentials.apiKey });
      expect(venues.body.total).toBe(3);
      const venueId = s.rmsVenues[0].id;
      const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
      const slots = await http.get(`/v1/bc/venues/${venueId}/availability?date=${date}&partySize=2`, { token: bc.credentials.apiKey });
      expect(slots.status).toBe(200);
      const slot = slots.body.slots.find((x: any) => x.openSpots > 0);
      expect(slot).toBeDefined();
      const booked = await http.post('/v1/bc/bookings', {
        token: bc.credentials.apiKey,
        headers: { 'idempotency-key': 'readme-1' },
        body: { venueId, partySize: 2, start: slot.start, contact: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0001' } },
      });
      expect(booked.status).toBe(200);
      expect(booked.body).toMatchObject({ venueId, channelId: bc.id, status: 'confirmed', partySize: 2 });
      expect((await http.get(`/v1/bc/bookings/${booked.body.id}`, { token: bc.credentials.apiKey })).body.status).toBe('confirmed');
      const basic = `Basic ${Buffer.from(`${google.credentials.username}:${google.credentials.password}`).toString('base64')}`;
      expect((await http.get('/v3/HealthCheck', { headers: { authorization: basic } })).status).toBe(200);
    } finally {
      await http.close();
    }
  });

  it('[CHN-38] [CHN-34] the sandbox runs the Maps Booking API simulator, names it in sandbox.json (googleApi) and sends the google-v3 channel’s updates there: the README walk-through, run verbatim', async () => {
    const s = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'));
    expect(s.googleApi).toEqual({ baseUrl: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/), partnerId: expect.stringMatching(/^\d+$/), calls: `${s.googleApi.baseUrl}/_control/calls`, readKey: expect.any(String) });
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const script = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('### Try it: see what Google hears')))![1]!;
    // The README runs from the project root, where .tableside is the sandbox's data directory.
    const cwd = mkdtempSync(join(tmpdir(), 'tableside-readme-'));
    symlinkSync(dir, join(cwd, '.tableside'));
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', ['-c', script], { cwd, timeout: 90_000 }, (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
    expect(out.code, out.stderr).toBe(0);
    const heard = JSON.parse(out.stdout.trim().split('\n').at(-1)!);
    expect(heard).toEqual([{
      path: expect.stringMatching(new RegExp(`^/v1alpha/notification/partners/${s.googleApi.partnerId}/bookings/[0-9a-f-]{36}$`)),
      updateMask: 'status', body: expect.objectContaining({ merchantId: s.rmsVenues[0].id, serviceId: 'dining', status: 'CANCELED' }), status: 200,
    }]);
    rmSync(cwd, { recursive: true, force: true });
  }, 120_000);
});
