import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { startRmsSimulator } from '../../rms-simulator/src/index.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { createSchema, describePostgres, dropSchema, newSchemaName, postgresUrl, urlWithSchema } from '../helpers/db.ts';
import { HttpClient, testCertFile, testTls } from '../helpers/http.ts';

// Two `tableside serve` processes on one PostgreSQL and the reference RMS over HTTPS: a channel's
// create sent to both at once with one Idempotency-Key is one booking (the unique key in the
// database decides, never memory), and cancels of it sent to both at once are one cancel (the
// booking's cancel claim in the database decides).

describePostgres('channel bookings across two processes', () => {
  it('[CHN-05] [CHN-24] the same Idempotency-Key and body sent at once to two processes → one booking, the same answer everywhere; six cancels at once → one 200, five 402 booking_already_cancelled, one cancel at the RMS', async () => {
    const schema = newSchemaName();
    await createSchema(schema);
    const url = urlWithSchema(postgresUrl()!, schema);
    const tls = testTls();
    const sim = await startRmsSimulator({ seed: true, tls: { key: tls.key, cert: tls.cert } });
    const env = { DATABASE_URL: url, AUTH_FAILURE_LIMIT_PER_MIN: '100000', JOB_POLL_MS: '200', ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: testCertFile() };
    const servers: ServeProcess[] = [];
    const clients: HttpClient[] = [];
    onTestFinished(async () => {
      for (const c of clients) await c.close();
      for (const s of servers) await s.stop('SIGKILL');
      await sim.close();
      await dropSchema(schema);
    });
    for (let i = 0; i < 2; i++) {
      const data = mkdtempSync(join(tmpdir(), `tableside-chn-node${i}-`));
      servers.push(await startServe({ ...env, TABLESIDE_DATA: data }));
      clients.push(new HttpClient(servers[i]!.url, readFileSync(join(data, 'tls.crt'), 'utf8')));
    }
    const [a, b] = clients as [HttpClient, HttpClient];
    const partner = jsonOf(await runCli(['partner', 'create', '--name', 'rms', '--access', 'rms', '--json'], { DATABASE_URL: url }));
    const channel = jsonOf(await runCli(['channel', 'create', '--name', 'Dine Finder', '--protocol', 'tableside', '--json'], { DATABASE_URL: url }));
    const ok = (res: { status: number; body: any }) => {
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const venue = ok(await a.post('/v1/rms/venues', { token: partner.apiKey, body: { externalId: 'rms-venue-1', name: 'The Anchor', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London' } }));
    ok(await a.put('/v1/rms/booking-services', { token: partner.apiKey, body: { baseUrl: sim.baseUrl, apiKey: sim.apiKey } }));
    ok(await a.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: partner.apiKey, body: { venues: [venue.id] } }));

    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const body = { venueId: venue.id, partySize: 2, start: `${day}T19:00:00Z`, contact: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0001' } };
    const headers = { authorization: `Bearer ${channel.credentials.apiKey}`, 'idempotency-key': 'same-key-twice' };
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? b : a).post('/v1/bc/bookings', { body, headers })));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
    expect(await sim.control.bookings('rms-venue-1')).toHaveLength(1);

    const id: string = answers[0]!.body.id;
    const cancels = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? b : a).put(`/v1/bc/bookings/${id}/cancel`, { body: {}, headers: { authorization: headers.authorization } })));
    expect(cancels.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402, 402]);
    for (const r of cancels.filter((c) => c.status === 402)) expect(r.body.error.details).toMatchObject({ code: 'booking_already_cancelled' });
    expect(await sim.control.requests({ operation: 'cancel' })).toHaveLength(1);
    expect((await sim.control.bookings('rms-venue-1'))[0]).toMatchObject({ status: 'canceled' });
  });
});
