import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { startMapsBookingSimulator, type MapsBookingSimulator } from '../../maps-booking-simulator/src/index.ts';
import { startSimulator, type Simulator } from '../../pos-simulator/src/index.ts';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { onboardClusterVenue, type Cluster, type ClusterVenue } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { startHaproxy, type HaProxy } from '../helpers/haproxy.ts';
import { HttpClient, testCertFile, testTls } from '../helpers/http.ts';
import { freePort, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';

// The fleet drill's world (issue 29): a PostgreSQL of its own (so it can be restarted), three
// `tableside serve` replicas on fixed loopback ports behind HAProxy, the POS, RMS and Google
// simulators over HTTPS, and the partners, channels and venues the load uses, all made through the
// load balancer as a partner would (the CLI for what only an operator does).

export interface FleetVenues {
  live: ClusterVenue;
  deferred: ClusterVenue;
  stored: ClusterVenue;
  /** Content venue id of the RMS venue (rms-venue-1) linked to both channels. */
  rmsVenueId: string;
  /** The RMS venue whose POS location takes the seated events (externalId, POS location). */
  seating: { externalId: string; posVenueId: string };
}

export interface Fleet {
  pg: PrivatePostgres;
  lb: HaProxy;
  client: HttpClient;
  pos: Simulator;
  rms: RmsSimulator;
  google: MapsBookingSimulator;
  ports: number[];
  replicas: Array<ServeProcess | null>;
  patToken: string;
  rmsKey: string;
  bcAuth: string;
  googleAuth: string;
  venues: FleetVenues;
  /** Starts replica i on its port, retrying while it cannot (the database is restarting). */
  startReplica(i: number): Promise<void>;
}

export async function startFleet(opts: { seatingTables: number }): Promise<Fleet> {
  const pg = await startPrivatePostgres();
  const tls = { key: testTls().key, cert: testTls().cert };
  const pos = await startSimulator({ tls });
  // The RMS resends a notice it could not deliver for longer than a database restart lasts.
  const rms = await startRmsSimulator({ seed: true, tls, outbound: { retryDelaysMs: [500, 2000, 5000, 10_000, 20_000] } });
  const google = await startMapsBookingSimulator({ tls });
  const dir = mkdtempSync(join(tmpdir(), 'tableside-fleet-'));
  const posTypes = join(dir, 'pos-types.json');
  const entry = (code: string, extra: Record<string, unknown>) => ({
    code, name: code, baseUrl: pos.baseUrl, apiKey: pos.apiKey, caFile: testCertFile(), billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate', ...extra,
  });
  writeFileSync(posTypes, JSON.stringify([entry('sim', {}), entry('sim-deferred', { paymentConfirmation: 'deferred' }), entry('sim-stored', { billRetrieval: false })]));
  const ports = [await freePort(), await freePort(), await freePort()];
  const lb = await startHaproxy(ports);
  const env = {
    DATABASE_URL: pg.url, POS_TYPES: posTypes, TRUST_PROXY: '1', PUBLIC_BASE_URL: lb.url, SECRETS_KEY: randomBytes(32).toString('base64'),
    AUTH_FAILURE_LIMIT_PER_MIN: '100000', JOB_POLL_MS: '200', ORDER_SYNC_INTERVAL_S: '2', PAYMENT_CONFIRMATION_TIMEOUT_S: '30',
    ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: testCertFile(),
  };
  const replicas: Array<ServeProcess | null> = [null, null, null];
  const client = new HttpClient(lb.url);
  onTestFinished(async () => {
    await client.close();
    await lb.stop();
    for (const r of replicas) await r?.stop('SIGKILL');
    await google.close();
    await rms.close();
    await pos.close();
    pg.destroy();
  });
  const startReplica = async (i: number) => {
    for (let attempt = 0; ; attempt++) {
      try {
        replicas[i] = await startServe({ ...env, PORT: String(ports[i]), TABLESIDE_DATA: mkdtempSync(join(tmpdir(), `tableside-fleet-r${i}-`)) });
        return;
      } catch (err) {
        // Only a database that is not back yet is waited for; anything else is a failure.
        if (attempt >= 30 || /Invalid configuration/.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  };
  // The first start applies the migrations; the others then start together.
  await startReplica(0);
  await Promise.all([startReplica(1), startReplica(2)]);
  // HAProxy puts a replica in service after its first passing /readyz check.
  await eventually(async () => expect((await client.get('/readyz')).status).toBe(200), { timeoutMs: 30_000, intervalMs: 200, what: 'HAProxy to serve' });
  const cli = async (...args: string[]) => jsonOf(await runCli(args, { DATABASE_URL: pg.url, SECRETS_KEY: env.SECRETS_KEY }));
  const pat = await cli('partner', 'create', '--name', 'fleet pat', '--access', 'pat', '--json');
  const { accessToken } = await cli('token', 'issue', '--partner', pat.partnerId, '--json');
  const rmsPartner = await cli('partner', 'create', '--name', 'fleet rms', '--access', 'rms', '--json');
  const bc = await cli('channel', 'create', '--name', 'Fleet channel', '--protocol', 'tableside', '--json');
  const g = await cli('channel', 'create', '--name', 'Reserve with Google', '--protocol', 'google-v3', '--json');
  const f = { pg, lb, client, pos, rms, google, ports, replicas, patToken: accessToken, rmsKey: rmsPartner.apiKey, startReplica } as Fleet;
  f.bcAuth = `Bearer ${bc.credentials.apiKey}`;
  f.googleAuth = `Basic ${Buffer.from(`${g.credentials.username}:${g.credentials.password}`).toString('base64')}`;
  f.venues = await fleetVenues(f, [bc.id, g.id], opts.seatingTables);
  return f;
}

const ok = (what: string, res: { status: number; text: string; body: any }) => {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
};

async function fleetVenues(f: Fleet, channels: string[], seatingTables: number): Promise<FleetVenues> {
  // onboardClusterVenue reads only the simulator, a client and the token of a cluster.
  const c = { sim: f.pos, clients: [f.client], token: f.patToken } as unknown as Cluster;
  const live = await onboardClusterVenue(c, 'sim', { payment: 'immediate' }, 'fleet-live');
  const deferred = await onboardClusterVenue(c, 'sim-deferred', { payment: 'deferred', delayMs: 1000, outcome: 'confirmed' }, 'fleet-deferred');
  const stored = await onboardClusterVenue(c, 'sim-stored', { payment: 'immediate' }, 'fleet-stored');
  const key = f.rmsKey;
  const venue = ok('rms venue', await f.client.post('/v1/rms/venues', { token: key, body: { externalId: 'rms-venue-1', name: 'The Anchor', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London' } }));
  ok('booking services', await f.client.put('/v1/rms/booking-services', { token: key, body: { baseUrl: f.rms.baseUrl, apiKey: f.rms.apiKey } }));
  for (const ch of channels) ok('link', await f.client.put(`/v1/rms/booking-channels/${ch}/link-venues`, { token: key, body: { venues: [venue.id] } }));
  const seating = { externalId: 'fleet-seating', posVenueId: 'fleet-seating-pos' };
  await f.pos.control.createVenue({
    id: seating.posVenueId, currency: 'EUR', timezone: 'Europe/Madrid',
    tables: Array.from({ length: seatingTables }, (_, t) => ({ id: String(t + 1), name: `S${t + 1}` })), menu: [{ sku: 'X', name: 'Dish', price: 10 }],
  });
  ok('seating venue', await f.client.post('/v1/rms/venues', { token: key, body: { externalId: seating.externalId, name: 'Seating', countryCode: 'ES', city: 'Madrid', currency: 'EUR' } }));
  const link = ok('pos connection', await f.client.post(`/v1/rms/venues/${seating.externalId}/pos-connection`, { token: key, body: { posType: 'sim' } }));
  const url = new URL(link.onboarding.url);
  ok('onboarding', await f.client.post(`${url.pathname}${url.search}`, { body: `posVenueId=${seating.posVenueId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
  return { live, deferred, stored, rmsVenueId: venue.id, seating };
}
