import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { startSimulator, type Simulator } from '../../pos-simulator/src/index.ts';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from './cli.ts';
import { createSchema, dropSchema, newSchemaName, postgresUrl, urlWithSchema } from './db.ts';
import { HttpClient, testCertFile, testTls, type HttpResponse } from './http.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

// The fleet of the rolling-upgrade test (test/db/rolling-upgrade.test.ts): `serve` replicas of two
// builds (the previous release's and this one's) on one PostgreSQL schema, the POS simulator, the
// reference RMS and a webhook receiver over HTTPS, and every flow of the service as one call each,
// made through whichever replica the load picks, retried only as the contract allows.

export type Release = 'old' | 'new';

export interface Replica {
  release: Release;
  server: ServeProcess;
  client: HttpClient;
}

export interface Fleet {
  url: string;
  pos: Simulator;
  rms: RmsSimulator;
  receiver: WebhookReceiver;
  replicas: Replica[];
  start(release: Release): Promise<Replica>;
  /**
   * SIGTERM, wait for the exit (the drain), then take it out of the fleet; returns the exit code. It
   * stays in rotation while it drains, as behind a load balancer that has not yet seen its /readyz
   * fail: calls sent to it meanwhile get 503 + Retry-After or a refused connection.
   */
  stop(replica: Replica): Promise<number | null>;
  cli(release: Release, ...args: string[]): Promise<any>;
}

export async function startFleet(entries: Record<Release, string | undefined>, afterStop: () => void = () => {}): Promise<Fleet> {
  const schema = newSchemaName();
  await createSchema(schema);
  const url = urlWithSchema(postgresUrl()!, schema);
  const tls = testTls();
  const pos = await startSimulator({ tls: { key: tls.key, cert: tls.cert } });
  const rms = await startRmsSimulator({ seed: true, tls: { key: tls.key, cert: tls.cert } });
  const receiver = await startWebhookReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'tableside-rolling-'));
  const posTypes = join(dir, 'pos-types.json');
  const entry = (code: string, name: string, billRetrieval: boolean) => ({ code, name, baseUrl: pos.baseUrl, apiKey: pos.apiKey, caFile: testCertFile(), billRetrieval, paymentForwarding: true, paymentConfirmation: 'immediate' });
  writeFileSync(posTypes, JSON.stringify([entry('sim', 'Simulator', true), entry('sim-stored', 'Simulator (stored bill)', false)]));
  const env = {
    DATABASE_URL: url, POS_TYPES: posTypes, AUTH_FAILURE_LIMIT_PER_MIN: '100000', JOB_POLL_MS: '200', ORDER_SYNC_INTERVAL_S: '1',
    ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: testCertFile(),
  };
  const all: Replica[] = [];
  const fleet: Fleet = {
    url, pos, rms, receiver,
    replicas: [],
    async start(release) {
      const data = mkdtempSync(join(tmpdir(), `tableside-rolling-${release}-`));
      const server = await startServe({ ...env, TABLESIDE_DATA: data }, ['serve'], 60_000, { entry: entries[release] });
      const replica: Replica = { release, server, client: new HttpClient(server.url, readFileSync(join(data, 'tls.crt'), 'utf8')) };
      all.push(replica);
      fleet.replicas.push(replica);
      return replica;
    },
    async stop(replica) {
      const code = await replica.server.stop('SIGTERM');
      fleet.replicas.splice(fleet.replicas.indexOf(replica), 1);
      return code;
    },
    cli: async (release, ...args) => jsonOf(await runCli(args, { DATABASE_URL: url }, 60_000, { entry: entries[release] })),
  };
  onTestFinished(async (ctx) => {
    if (ctx.task.result?.state === 'fail') for (const r of all) console.log(`${r.release} replica ${r.server.url} (exit ${r.server.child.exitCode ?? r.server.child.signalCode}):\n${r.server.output().slice(-3000)}`);
    for (const r of all) await r.client.close();
    for (const r of all) await r.server.stop('SIGKILL');
    afterStop();
    await receiver.close();
    await rms.close();
    await pos.close();
    await dropSchema(schema);
  });
  return fleet;
}

/** What the seeding made: the partners, venues and channels every flow uses. */
export interface World {
  patToken: string;
  live: { venueId: string; posVenueId: string; tables: Map<string, string> };
  stored: { venueId: string; tableId: string; total: number };
  rmsKey: string;
  rmsPartnerId: string;
  feederKey: string;
  venueId: string;
  seatExternalId: string;
  channelKey: string;
  googleBasic: string;
  webhookPath: string;
  /** What the flows made, for the end-of-run checks. */
  made: { payments: Array<{ orderId: string; ref: string }>; channelBookings: string[]; googleBookings: string[] };
}

const ok = (what: string, res: HttpResponse, ...statuses: number[]) => {
  const by = (res as { servedBy?: string }).servedBy;
  if (!(statuses.length ? statuses : [200]).includes(res.status)) throw new Error(`${what}${by ? ` (${by})` : ''}: ${res.status} ${res.text}`);
  return res.body;
};

/** A simulator location with `tables` tables onboarded as a pay-at-table venue through the real flow. */
async function patVenue(c: HttpClient, pos: Simulator, token: string, posType: string, posVenueId: string, tables: number) {
  await pos.control.createVenue({ id: posVenueId, currency: 'EUR', tables: Array.from({ length: tables }, (_, i) => ({ id: String(i + 1), name: `T${i + 1}` })), menu: [{ sku: 'X', name: 'Dish', price: 10 }] });
  const created = ok('pat venue', await c.post('/v1/pat/venues', { token, body: { name: posVenueId, address: 'a', city: 'Madrid', postalCode: '1', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType } }));
  const link = new URL(created.onboarding.url);
  ok('onboarding', await c.post(`${link.pathname}${link.search}`, { body: `posVenueId=${posVenueId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
  const listed = ok('tables', await c.get(`/v1/pat/venue/${created.id}/tables`, { token })).tables as Array<{ id: string; name: string }>;
  return { venueId: created.id as string, tables: new Map(listed.map((t) => [t.name, t.id])) };
}

/** Seeds through the API of `c` (an old replica) and the old release's CLI, as an operator and partners would. */
export async function seedWorld(fleet: Fleet, c: HttpClient): Promise<World> {
  const pat = await fleet.cli('old', 'partner', 'create', '--name', 'rolling pat', '--access', 'pat', '--json');
  const { accessToken: patToken } = await fleet.cli('old', 'token', 'issue', '--partner', pat.partnerId, '--json');
  const live = await patVenue(c, fleet.pos, patToken, 'sim', 'rolling-live', 8);
  const stored = await patVenue(c, fleet.pos, patToken, 'sim-stored', 'rolling-stored', 2);
  await fleet.pos.control.openOrder('rolling-stored', { tables: ['1'], checks: [{ items: [{ sku: 'X', quantity: 3 }] }] });

  const rms = await fleet.cli('old', 'partner', 'create', '--name', 'rolling rms', '--access', 'rms', '--json');
  const feeder = await fleet.cli('old', 'partner', 'create', '--name', 'rolling feeder', '--access', 'rms', '--json');
  const channel = await fleet.cli('old', 'channel', 'create', '--name', 'Rolling site', '--protocol', 'tableside', '--json');
  const google = await fleet.cli('old', 'channel', 'create', '--name', 'Rolling Google', '--protocol', 'google-v3', '--json');
  const venue = ok('rms venue', await c.post('/v1/rms/venues', { token: rms.apiKey, body: { externalId: 'rms-venue-1', name: 'The Anchor', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London', maxCovers: 6 } }));
  ok('booking services', await c.put('/v1/rms/booking-services', { token: rms.apiKey, body: { baseUrl: fleet.rms.baseUrl, apiKey: fleet.rms.apiKey } }));
  for (const ch of [channel, google]) ok('link', await c.put(`/v1/rms/booking-channels/${ch.id}/link-venues`, { token: rms.apiKey, body: { venues: [venue.id] } }));
  const webhookPath = '/rolling';
  ok('webhook endpoint', await c.post('/v1/webhooks/endpoints', { token: rms.apiKey, body: { url: `${fleet.receiver.url}${webhookPath}`, events: ['booking.created', 'booking.canceled'] } }));

  // The seated reservations' venue: a content venue of the RMS partner on a POS location of its own.
  const seatExternalId = 'rolling-seat';
  await fleet.pos.control.createVenue({ id: 'rolling-seat-pos', currency: 'EUR', timezone: 'Europe/Madrid', tables: Array.from({ length: 80 }, (_, t) => ({ id: String(t + 1), name: `T${t + 1}` })), menu: [{ sku: 'X', name: 'Dish', price: 10 }] });
  ok('seat venue', await c.post('/v1/rms/venues', { token: rms.apiKey, body: { externalId: seatExternalId, name: 'Seat venue', countryCode: 'ES', city: 'Madrid', currency: 'EUR' } }));
  const link = ok('pos connection', await c.post(`/v1/rms/venues/${seatExternalId}/pos-connection`, { token: rms.apiKey, body: { posType: 'sim' } }));
  const form = new URL(link.onboarding.url);
  ok('seat onboarding', await c.post(`${form.pathname}${form.search}`, { body: 'posVenueId=rolling-seat-pos', headers: { 'content-type': 'application/x-www-form-urlencoded' } }));

  return {
    patToken,
    live: { venueId: live.venueId, posVenueId: 'rolling-live', tables: live.tables },
    stored: { venueId: stored.venueId, tableId: stored.tables.get('T1')!, total: 30 },
    rmsKey: rms.apiKey, rmsPartnerId: rms.partnerId, feederKey: feeder.apiKey,
    venueId: venue.id, seatExternalId,
    channelKey: channel.credentials.apiKey,
    googleBasic: `Basic ${Buffer.from(`${google.credentials.username}:${google.credentials.password}`).toString('base64')}`,
    webhookPath,
    made: { payments: [], channelBookings: [], googleBookings: [] },
  };
}

/** How the load's calls ended: a call retried only on 503 + Retry-After or a refused/reset connection. */
export interface Tally {
  calls: number;
  retried503: number;
  retriedConnection: number;
  /** The POS or RMS did not answer in time, and the answer says to retry with the same key. */
  retriedUpstream: number;
  failed: string[];
}

export const newTally = (): Tally => ({ calls: 0, retried503: 0, retriedConnection: 0, retriedUpstream: 0, failed: [] });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One request through the fleet, as a client behind a load balancer sees it: sent to the next
 * replica; a 503 with Retry-After is retried after that delay, and a connection refused or reset (a
 * replica gone) at once, on another replica. Every request the flows send is idempotent (a GET, or a
 * write keyed by its externalReference, idempotency key, Google token, booking id, webhook-id or
 * feed nonce), so the retry is one the contract allows. Anything else is the answer.
 */
export async function through(fleet: Fleet, tally: Tally, what: string, send: (c: HttpClient) => Promise<HttpResponse>, pinned?: Replica): Promise<HttpResponse> {
  tally.calls++;
  for (let attempt = 0; attempt < 8; attempt++) {
    const replica = pinned ?? fleet.replicas[(tally.calls + attempt) % fleet.replicas.length]!;
    let res: HttpResponse;
    try {
      res = await send(replica.client);
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (pinned || !/ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET|UND_ERR_CLOSED|EPIPE/.test(`${code} ${(err as Error).message}`)) throw err;
      tally.retriedConnection++;
      await sleep(100);
      continue;
    }
    if (res.status === 503 && res.headers['retry-after'] !== undefined && !pinned) {
      tally.retried503++;
      await sleep(Number(res.headers['retry-after']) * 1000);
      continue;
    }
    // The POS or the RMS did not answer in time (a 502 of a payment: "retrying with the same
    // externalReference is safe"; a 402 rms_unavailable of a channel booking: "retry later with the
    // same Idempotency-Key"): the simulators' slowness on a loaded machine, not the fleet's, retried
    // as the answer says and counted apart.
    if (upstreamRetry(res)) {
      tally.retriedUpstream++;
      await sleep(1000);
      continue;
    }
    // Named in a failure: which release's replica gave the answer.
    return Object.assign(res, { servedBy: `the ${replica.release} release's replica ${replica.server.url}` });
  }
  throw new Error(`${what}: no answer after 8 attempts`);
}

function upstreamRetry(res: HttpResponse): boolean {
  const error = (res.body as { error?: { code?: unknown; details?: { code?: string } } } | null)?.error;
  if (res.status === 402) return error?.details?.code === 'rms_unavailable';
  return res.status === 502 && /retrying with the same externalReference is safe/.test(res.text);
}

let seq = 0;
/** The live venue's tables with no open order, shared by every caller's flows. */
const tablesFree = new WeakMap<World, string[]>();

/** Every flow of the service, each one call or a short chain of calls; throws when an answer is not the contract's. */
export function flows(fleet: Fleet, w: World, tally: Tally, pinned?: Replica) {
  const call = (what: string, send: (c: HttpClient) => Promise<HttpResponse>, ...statuses: number[]) =>
    through(fleet, tally, what, send, pinned).then((res) => ok(what, res, ...statuses));
  const freeTables = (tablesFree.get(w) ?? tablesFree.set(w, [...w.live.tables.keys()]).get(w))!;
  const day = (n: number) => new Date(Date.now() + (2 + Math.floor(n / 4)) * 86_400_000).toISOString().slice(0, 10);
  const at = (n: number, hour: number) => `${day(n)}T${hour}:${String(15 * (n % 4)).padStart(2, '0')}:00Z`;
  return {
    /** Live bill, then a payment of it in full (immediate confirmation), on a table of its own. */
    async livePayment() {
      const table = freeTables.shift();
      if (!table) return;
      try {
        await fleet.pos.control.openOrder(w.live.posVenueId, { tables: [table.slice(1)], checks: [{ items: [{ sku: 'X', quantity: 1 }] }] });
        const bill = await call('live bill', (c) => c.get(`/v1/pat/venue/${w.live.venueId}/table/${w.live.tables.get(table)}/bill`, { token: w.patToken }));
        const ref = `rolling-${++seq}`;
        const paid = await call('payment', (c) => c.post(`/v1/pat/venue/${w.live.venueId}/order/${bill.orderId}/payment`, { token: w.patToken, body: { externalReference: ref, amount: bill.totals.totalDue, type: 'full' } }));
        if (paid.status !== 'confirmed') throw new Error(`payment ${ref}: ${JSON.stringify(paid)}`);
        w.made.payments.push({ orderId: bill.orderId, ref });
      } finally {
        freeTables.push(table);
      }
    },
    async storedBill() {
      const bill = await call('stored bill', (c) => c.get(`/v1/pat/venue/${w.stored.venueId}/table/${w.stored.tableId}/bill`, { token: w.patToken }));
      if (bill.totals.total !== w.stored.total) throw new Error(`stored bill: ${JSON.stringify(bill.totals)}`);
    },
    async channelBooking() {
      const n = ++seq;
      const made = await call('channel booking', (c) => c.post('/v1/bc/bookings', {
        headers: { authorization: `Bearer ${w.channelKey}`, 'idempotency-key': `rolling-${n}` },
        body: { venueId: w.venueId, partySize: 2, start: at(n, 19), contact: { firstName: 'Ada', lastName: `L${n}`, email: `ada${n}@example.com`, phone: '+44 20 7946 0001' } },
      }));
      await call('channel cancel', (c) => c.put(`/v1/bc/bookings/${made.id}/cancel`, { body: {}, headers: { authorization: `Bearer ${w.channelKey}` } }));
      w.made.channelBookings.push(made.id);
    },
    async google() {
      const n = ++seq;
      const start = String(Date.parse(at(n, 12)) / 1000);
      await call('google lookup', (c) => c.post('/v3/BatchAvailabilityLookup', { headers: { authorization: w.googleBasic }, body: { merchant_id: w.venueId, slot_time: [{ service_id: 'dining', start_sec: start, duration_sec: '5400', resource_ids: { party_size: 2 } }] } }));
      const made = await call('google create', (c) => c.post('/v3/CreateBooking', {
        headers: { authorization: w.googleBasic },
        body: { slot: { merchant_id: w.venueId, service_id: 'dining', start_sec: start, duration_sec: '5400', resources: { party_size: 2 } }, user_information: { user_id: `u${n}`, given_name: 'Ada', family_name: `G${n}`, telephone: '+44 20 7946 0001', email: `g${n}@example.com` }, idempotency_token: `rolling-${n}` },
      }));
      if (made.booking_failure || !made.booking?.booking_id) throw new Error(`google create: ${JSON.stringify(made)}`);
      w.made.googleBookings.push(made.booking.booking_id);
    },
    async seated() {
      const n = ++seq;
      await call('seated reservation', (c) => c.post('/v1/rms/pos/reservations', { token: w.rmsKey, body: { bookingId: `rolling-seat-${n}`, venueId: w.seatExternalId, status: 'seated', partySize: 2, tables: [String(1 + (n % 80))], date: '2026-01-15T20:00:00+01:00' } }), 200, 202);
    },
    async notice() {
      const n = ++seq;
      await call('notice', (c) => c.post('/v1/rms/notifications', { token: w.feederKey, headers: { 'webhook-id': `msg_rolling_${n}` }, body: { entity: 'booking', entityId: `phone-${n}`, action: 'update' } }), 202);
    },
    async feedShard() {
      const n = ++seq;
      const data = Array.from({ length: 20 }, (_, r) => ({ venueId: `feed-v${r % 5}`, date: '2026-12-12', partySize: 1 + (r % 4), slotData: [{ startSec: 1_797_000_000 + r * 900, totalSpots: 2, openSpots: 1, deposit: false, depositAmount: 0, requiresCc: false }] }));
      await call('feed shard', (c) => c.post('/v1/rms/availability-feed', { token: w.feederKey, body: { metadata: { total_shards: 1, shard_number: 0, nonce: `rolling-${n}` }, data } }), 202);
    },
    async contentReads() {
      await call('content venues', (c) => c.get('/v1/rms/venues', { token: w.rmsKey }));
      await call('channel venues', (c) => c.get('/v1/bc/venues', { token: w.channelKey }));
      await call('booking channels', (c) => c.get('/v1/rms/booking-channels', { token: w.rmsKey }));
    },
  };
}
