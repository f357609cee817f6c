import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { startMapsBookingSimulator } from '../../maps-booking-simulator/src/index.ts';
import { startRmsSimulator } from '../../rms-simulator/src/index.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { createSchema, describePostgres, dropSchema, newSchemaName, postgresUrl, urlWithSchema } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { HttpClient, testCertFile, testTls } from '../helpers/http.ts';

// Google's real-time updates (DESIGN 8.7b) with two `tableside serve` processes on one PostgreSQL:
// the RMS's changes of one booking arrive as notices at either process, and whichever runs the
// booking's job, Google receives its states in the order they happened and ends at the latest.
// It runs in `npm test` on PostgreSQL (a process per replica costs ~30 s, within CI's budget);
// `npm run drill:google-rtu` runs it alone.

describePostgres('Google real-time updates across two processes', () => {
  it('[CHN-36] [CHN-34] notices of one booking at two processes: Google hears its states in order, never an older after a newer, and ends at the RMS’s latest', async () => {
    const schema = newSchemaName();
    await createSchema(schema);
    const url = urlWithSchema(postgresUrl()!, schema);
    const tls = testTls();
    const rms = await startRmsSimulator({ seed: true, tls: { key: tls.key, cert: tls.cert } });
    const google = await startMapsBookingSimulator({ tls: { key: tls.key, cert: tls.cert } });
    const env = { DATABASE_URL: url, AUTH_FAILURE_LIMIT_PER_MIN: '100000', JOB_POLL_MS: '200', ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: testCertFile() };
    const servers: ServeProcess[] = [];
    const clients: HttpClient[] = [];
    onTestFinished(async () => {
      for (const c of clients) await c.close();
      for (const s of servers) await s.stop('SIGKILL');
      await google.close();
      await rms.close();
      await dropSchema(schema);
    });
    for (let i = 0; i < 2; i++) {
      const data = mkdtempSync(join(tmpdir(), `tableside-rtu-node${i}-`));
      servers.push(await startServe({ ...env, TABLESIDE_DATA: data }));
      clients.push(new HttpClient(servers[i]!.url, readFileSync(join(data, 'tls.crt'), 'utf8')));
    }
    const [a, b] = clients as [HttpClient, HttpClient];
    const cli = async (...args: string[]) => jsonOf(await runCli(args, { DATABASE_URL: url }));
    const partner = await cli('partner', 'create', '--name', 'rms', '--access', 'rms', '--json');
    const channel = await cli('channel', 'create', '--name', 'Reserve with Google', '--protocol', 'google-v3', '--json');
    const keyFile = join(mkdtempSync(join(tmpdir(), 'tableside-rtu-key-')), 'key.json');
    writeFileSync(keyFile, JSON.stringify(await google.control.generateServiceAccount({ partnerId: '20001234' })));
    await cli('channel', 'google-rtu', '--channel', channel.id, '--partner-id', '20001234', '--service-account', keyFile, '--api-base', google.baseUrl, '--json');
    const ok = (res: { status: number; body: any }) => {
      if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const venue = ok(await a.post('/v1/rms/venues', { token: partner.apiKey, body: { externalId: 'rms-venue-1', name: 'The Anchor', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London', maxCovers: 6 } }));
    ok(await a.put('/v1/rms/booking-services', { token: partner.apiKey, body: { baseUrl: rms.baseUrl, apiKey: rms.apiKey } }));
    ok(await a.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: partner.apiKey, body: { venues: [venue.id] } }));

    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const open = (await rms.control.bookings('rms-venue-1')).length === 0;
    expect(open).toBe(true);
    const basic = `Basic ${Buffer.from(`${channel.credentials.username}:${channel.credentials.password}`).toString('base64')}`;
    const created = ok(await a.post('/v3/CreateBooking', {
      headers: { authorization: basic },
      body: {
        slot: { merchant_id: venue.id, service_id: 'dining', start_sec: String(Date.parse(`${day}T19:00:00Z`) / 1000), duration_sec: '5400', resources: { party_size: 2 } },
        user_information: { user_id: 'u1', given_name: 'Ada', family_name: 'Lovelace', telephone: '+44 20 7946 0001', email: 'ada@example.com' },
        idempotency_token: 'cluster-1',
      },
    }));
    const bookingId: string = created.booking.booking_id;
    const [rmsBooking] = await rms.control.bookings('rms-venue-1');
    const rmsClient = new HttpClient(rms.baseUrl, tls.cert);
    onTestFinished(() => rmsClient.close());
    // The restaurant changes the booking four times; each change's notice goes to one process or the other.
    const steps: Array<() => Promise<unknown>> = [3, 4, 5].map((size) => () => rmsClient.put(`/booking/${rmsBooking!.id}`, { token: rms.apiKey, body: { partySize: size } }));
    steps.push(() => rmsClient.put(`/booking/${rmsBooking!.id}/cancel`, { token: rms.apiKey, body: {} }));
    for (const [i, step] of steps.entries()) {
      await step();
      const res = await (i % 2 ? b : a).post('/v1/rms/notifications', { token: partner.apiKey, body: { entity: 'booking', entityId: rmsBooking!.id, action: i === 3 ? 'cancel' : 'update' } });
      expect(res.status).toBe(202);
    }
    await eventually(async () => {
      const held = (await google.control.bookings()).find((x) => x.name.endsWith(bookingId));
      expect(held).toMatchObject({ status: 'CANCELED', partySize: 5 });
    }, { what: 'Google holding the latest state', timeoutMs: 60_000 });
    const sent = (await google.control.calls({ operation: 'notifyBooking' })).filter((c) => c.bookingId === bookingId);
    expect(sent.every((c) => c.answer?.status === 200)).toBe(true);
    // In the order received: party sizes never go back, and nothing follows the cancellation.
    const sizes = sent.map((c) => (c.body as { partySize?: number }).partySize).filter((n): n is number => n !== undefined);
    expect(sizes).toEqual([...sizes].sort((x, y) => x - y));
    const cancelAt = sent.findIndex((c) => (c.body as { status?: string }).status === 'CANCELED');
    expect(cancelAt).toBe(sent.length - 1);
  }, 240_000);
});
