// Webhook deliveries per second, beside a baseline in the same run: the same number of signed POSTs
// sent bare with undici (Standard Webhooks signature computed per request, 16 in flight) to the same
// local HTTPS receiver. The service side is the whole path: events emitted through the outbox in
// their own transactions, fan-out jobs, one delivery job per attempt claimed FOR UPDATE SKIP LOCKED,
// the POST, and the attempt recorded. Runs on PostgreSQL in a fresh schema (dropped at the end).
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bin/run-ts.mjs bench/webhooks.ts
//
// Then a payment's latency (sandbox venue, immediate POS, one at a time) with no endpoint and with
// BENCH_ENDPOINTS endpoints subscribed to payment.confirmed, as a ratio.
// Options: BENCH_EVENTS (2000), BENCH_ENDPOINTS (2: every event goes to each), BENCH_CONCURRENCY (16,
// baseline), BENCH_PAYMENTS (300 per phase).

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';

const BASE_URL = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const schema = `bench_webhooks_${Date.now().toString(36)}`;
const dir = mkdtempSync(join(tmpdir(), 'tableside-bench-wh-'));
const url = new URL(BASE_URL);
url.searchParams.set('options', `-c search_path=${schema}`);

const admin = new pg.Client({ connectionString: BASE_URL });
await admin.connect();
await admin.query(`CREATE SCHEMA "${schema}"`);

// The receiver: answers 204 to every POST, counts them.
const { loadOrCreateSelfSigned } = await import('../src/lib/tls.ts');
const tls = await loadOrCreateSelfSigned(dir);
process.env.NODE_EXTRA_CA_CERTS = tls.certFile; // read by the service's webhook sender when it is built
let received = 0;
let onReceived: (() => void) | null = null;
const receiver = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    onReceived?.();
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const target = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const waitFor = (n: number) => new Promise<void>((resolve) => {
  onReceived = () => received >= n && resolve();
  if (received >= n) resolve();
});

try {
  // Baseline: the same signed POSTs, bare.
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const wh = new Webhook(secret);
  const agent = new Agent({ connect: { ca: tls.cert }, connections: 16 });
  const body = JSON.stringify({ type: 'order.closed', timestamp: new Date().toISOString(), data: { orderId: 'x', entityId: 'x', sequence: 1 } });
  const total = EVENTS * ENDPOINTS;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < total) {
      const i = next++;
      const at = new Date();
      const id = `msg_${i}`;
      const res = await request(`${target}/bare`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': wh.sign(id, at, body) },
        body,
      });
      await res.body.dump();
    }
  }));
  const bareSeconds = (performance.now() - t0) / 1000;
  await agent.close();
  received = 0;

  // The service: a real process-like start on PostgreSQL with its job poller.
  const [{ loadConfig }, { startService }, { emit }, { uuidv7 }] = await Promise.all([
    import('../src/config.ts'), import('../src/app/service.ts'), import('../src/db/outbox.ts'), import('../src/lib/ids.ts'),
  ]);
  const config = loadConfig({ DATABASE_URL: url.toString(), TABLESIDE_DATA: dir, PORT: '0', LOG_LEVEL: 'warn', ALLOW_PRIVATE_TARGETS: '1', JOB_POLL_MS: '200' });
  const service = await startService(config);
  const db = service.store.db;
  const partner = await service.app.services.auth.createPartner({ name: 'bench', access: ['pat'] });
  const venueId = uuidv7();
  await db.kysely.insertInto('venues' as never).values({ id: venueId, name: 'V', currency: 'EUR', created_at: new Date(), updated_at: new Date() } as never).execute();
  await service.app.services.auth.grantVenue(partner.partnerId, venueId);
  for (let e = 0; e < ENDPOINTS; e++) {
    await service.app.services.webhookEndpoints.create({ kind: 'partner', id: partner.partnerId }, { url: `${target}/ep${e}`, events: ['order.closed'] });
  }
  const t1 = performance.now();
  const done = waitFor(total);
  // Events come from concurrent changes (8 at a time), as from requests.
  let emitted = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (emitted < EVENTS) {
      const i = emitted++;
      await db.kysely.transaction().execute((tx) => emit(tx, { venueId }, { type: 'order.closed', entityId: `order-${i}`, data: { i } }, new Date()));
    }
  }));
  const emitSeconds = (performance.now() - t1) / 1000;
  await done;
  const serviceSeconds = (performance.now() - t1) / 1000;
  await service.close();

  // A payment's latency with and without webhooks subscribed: the sandbox (its in-process POS
  // simulator, an immediate venue, an open order), small partial payments one after another, then
  // the same with two endpoints subscribed to payment.confirmed (delivered meanwhile by the poller).
  const { fmt, load } = await import('./lib/load.ts');
  const schema2 = `${schema}_pay`;
  await admin.query(`CREATE SCHEMA "${schema2}"`);
  const url2 = new URL(BASE_URL);
  url2.searchParams.set('options', `-c search_path=${schema2}`);
  // The same data directory (its certificate): two self-signed certificates for one name in one trust list confuse OpenSSL.
  let payLines: string[] = [];
  try {
    const sandbox = await startService(loadConfig({ DATABASE_URL: url2.toString(), TABLESIDE_DATA: dir, PORT: '0', LOG_LEVEL: 'warn', ALLOW_PRIVATE_TARGETS: '1', JOB_POLL_MS: '200' }, { sandbox: true }));
    try {
      const s = sandbox.sandbox!;
      const client = new Agent({ connect: { ca: sandbox.tls.cert }, connections: 4 });
      const auth = { authorization: `Bearer ${s.accessToken}` };
      const venue = s.venueIds[0]!;
      const tables = (await (await request(`${sandbox.url}/v1/pat/venue/${venue}/tables`, { dispatcher: client, headers: auth })).body.json()) as { tables: Array<{ id: string }> };
      const bill = (await (await request(`${sandbox.url}/v1/pat/venue/${venue}/table/${tables.tables[0]!.id}/bill`, { dispatcher: client, headers: auth })).body.json()) as { orderId: string };
      const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 300);
      let ref = 0;
      const pay = () => load(client, sandbox.url, () => ({
        method: 'POST',
        path: `/v1/pat/venue/${venue}/order/${bill.orderId}/payment`,
        headers: auth,
        body: JSON.stringify({ externalReference: `bench-${++ref}`, amount: 0.01, type: 'partial' }),
      }), PAYMENTS, 1);
      const none = await pay();
      for (let e = 0; e < ENDPOINTS; e++) {
        await sandbox.app.services.webhookEndpoints.create({ kind: 'partner', id: s.partnerId }, { url: `${target}/pay${e}`, events: ['payment.confirmed'] });
      }
      const subscribed = await pay();
      await client.close();
      payLines = [
        `payment, no webhook endpoint:                       ${fmt(none)}`,
        `payment, ${ENDPOINTS} endpoints subscribed to payment.confirmed: ${fmt(subscribed)}`,
        `ratio subscribed / none: p50 ${(subscribed.p50 / none.p50).toFixed(2)}, p99 ${(subscribed.p99 / none.p99).toFixed(2)}`,
      ];
    } finally {
      await sandbox.close();
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema2}" CASCADE`);
  }

  const bareRate = total / bareSeconds;
  const serviceRate = total / serviceSeconds;
  console.log(`deliveries: ${EVENTS} events x ${ENDPOINTS} endpoints = ${total} signed POSTs`);
  console.log(`baseline, bare signed POSTs with undici (${CONCURRENCY} in flight): ${bareRate.toFixed(0)} POST/s`);
  console.log(`service, outbox -> fan-out -> delivery jobs -> POST -> attempt recorded: ${serviceRate.toFixed(0)} deliveries/s (events emitted in ${emitSeconds.toFixed(1)} s)`);
  console.log(`ratio service / baseline: ${(serviceRate / bareRate).toFixed(3)}`);
  for (const line of payLines) console.log(line);
} finally {
  receiver.close();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
