import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { startSimulator, type Simulator, type VenueBehaviour } from '../../pos-simulator/src/index.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from './cli.ts';
import { createSchema, dropSchema, newSchemaName, postgresUrl, urlWithSchema } from './db.ts';
import { HttpClient, testCertFile, testTls } from './http.ts';

// Several real `tableside serve` processes on one PostgreSQL schema, with the POS simulator over
// HTTPS and a pay-at-table partner: what the multi-process and kill drills run on (PostgreSQL only).

export interface Cluster {
  /** DATABASE_URL of the cluster's schema. */
  url: string;
  sim: Simulator;
  servers: ServeProcess[];
  clients: HttpClient[];
  token: string;
  baseEnv: Record<string, string>;
  /** Starts one more process on the same database (after a kill, say); closed with the test. */
  startNode(): Promise<{ server: ServeProcess; client: HttpClient }>;
}

export async function startCluster(count: number, env: Record<string, string> = {}): Promise<Cluster> {
  const schema = newSchemaName();
  await createSchema(schema);
  const url = urlWithSchema(postgresUrl()!, schema);
  const tls = testTls();
  const sim = await startSimulator({ tls: { key: tls.key, cert: tls.cert } });
  const dir = mkdtempSync(join(tmpdir(), 'tableside-cluster-'));
  const posTypesFile = join(dir, 'pos-types.json');
  writeFileSync(posTypesFile, JSON.stringify([
    { code: 'sim', name: 'Simulator', baseUrl: sim.baseUrl, apiKey: sim.apiKey, caFile: testCertFile(), billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate' },
    { code: 'sim-deferred', name: 'Simulator (deferred)', baseUrl: sim.baseUrl, apiKey: sim.apiKey, caFile: testCertFile(), billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'deferred' },
  ]));
  const baseEnv = { DATABASE_URL: url, POS_TYPES: posTypesFile, AUTH_FAILURE_LIMIT_PER_MIN: '100000', JOB_POLL_MS: '200', ...env };
  const servers: ServeProcess[] = [];
  const clients: HttpClient[] = [];
  const startNode = async () => {
    const data = mkdtempSync(join(tmpdir(), `tableside-node${servers.length}-`));
    const server = await startServe({ ...baseEnv, TABLESIDE_DATA: data });
    const client = new HttpClient(server.url, readFileSync(join(data, 'tls.crt'), 'utf8'));
    servers.push(server);
    clients.push(client);
    return { server, client };
  };
  onTestFinished(async () => {
    for (const c of clients) await c.close();
    for (const s of servers) await s.stop('SIGKILL');
    await sim.close();
    await dropSchema(schema);
  });
  for (let i = 0; i < count; i++) await startNode();
  const partner = jsonOf(await runCli(['partner', 'create', '--name', 'cluster', '--access', 'pat', '--json'], { DATABASE_URL: url }));
  const { accessToken } = jsonOf(await runCli(['token', 'issue', '--partner', partner.partnerId, '--json'], { DATABASE_URL: url }));
  return { url, sim, servers, clients, token: accessToken, baseEnv, startNode };
}

export interface ClusterVenue {
  venueId: string;
  posVenueId: string;
  tableId(name: string): string;
}

/** A simulator location with 8 tables (T1…T8) and a venue onboarded onto it through the real flow. */
export async function onboardClusterVenue(c: Cluster, posType: string, behaviour: VenueBehaviour, posVenueId = `cluster-${posType}`): Promise<ClusterVenue> {
  await c.sim.control.createVenue({ id: posVenueId, currency: 'EUR', tables: Array.from({ length: 8 }, (_, i) => ({ id: String(i + 1), name: `T${i + 1}` })), menu: [{ sku: 'X', name: 'Dish', price: 10 }], behaviour: behaviour as never });
  const created = await c.clients[0].post('/v1/pat/venues', {
    token: c.token,
    body: { name: 'Cluster venue', address: 'a', city: 'Madrid', postalCode: '1', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType },
  });
  const url = new URL(created.body.onboarding.url);
  const page = await c.clients[0].post(`${url.pathname}${url.search}`, { body: `posVenueId=${posVenueId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(page.status).toBe(200);
  const tables = (await c.clients[0].get(`/v1/pat/venue/${created.body.id}/tables`, { token: c.token })).body.tables as Array<{ id: string; name: string }>;
  return { venueId: created.body.id as string, posVenueId, tableId: (name: string) => tables.find((t) => t.name === name)!.id };
}
