import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ControlClient } from '../../pos-simulator/src/index.ts';
import { startServe } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { HttpClient } from '../helpers/http.ts';

describe('graceful shutdown', () => {
  it('[DES-046] SIGTERM lets an in-flight request finish, then closes the store and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tableside-shutdown-'));
    // The sandbox's deferred venue holds a payment request for about two seconds.
    const server = await startServe({ TABLESIDE_DATA: dir, PAYMENT_INLINE_WAIT_MS: '5000' }, ['serve', '--sandbox']);
    onTestFinished(() => server.stop('SIGKILL').then(() => undefined));
    const sandbox = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'));
    const http = new HttpClient(server.url, readFileSync(join(dir, 'tls.crt'), 'utf8'));
    onTestFinished(() => http.close());
    const brasserie = sandbox.venueIds[1];
    const auth = { token: sandbox.accessToken };
    const tables = (await http.get(`/v1/pat/venue/${brasserie}/tables`, auth)).body.tables;
    const bill = await http.get(`/v1/pat/venue/${brasserie}/table/${tables[0].id}/bill`, auth);
    expect(bill.status).toBe(200);

    const inFlight = http.post(`/v1/pat/venue/${brasserie}/order/${bill.body.orderId}/payment`, {
      ...auth,
      body: { externalReference: 'during-shutdown', amount: bill.body.totals.totalDue, type: 'full' },
    });
    // SIGTERM once the request is being served: its forward has reached the sandbox's POS.
    const tls = readFileSync(join(dir, 'tls.crt'), 'utf8');
    const pos = new ControlClient(sandbox.posSimulator.baseUrl, sandbox.posSimulator.apiKey, tls);
    onTestFinished(() => pos.close());
    const posVenueId = sandbox.venues[1].posVenueId;
    await eventually(async () => (await pos.requests(posVenueId)).some((r) => r.method === 'POST' && r.path.endsWith('/payments')), {
      what: 'the forward of the in-flight payment at the POS',
    });
    const exit = server.stop('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('confirmed');
    expect(await exit).toBe(0);
  });
});
