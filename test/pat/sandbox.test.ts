import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { HttpClient, type HttpResponse } from '../helpers/http.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/streams.ts';
import { createServer, type Server } from 'node:net';
import { request as httpsRequest } from 'node:https';

// Sandbox mode through the real CLI (DESIGN 4, 6.1): `tableside serve --sandbox` on a fresh data
// directory runs the POS simulator in-process, seeds a partner with two connected venues, tables and
// open orders, and writes sandbox.json; a newcomer reads a bill and pays it with those credentials.
// A second start on the same directory seeds nothing again.

interface SandboxJson {
  baseUrl: string;
  caFile: string;
  partnerId: string;
  apiKey: string;
  accessToken: string;
  venueIds: string[];
  posSimulator: { baseUrl: string; apiKey: string } | null;
  seating: { externalId: string; venueId: string; posTables: string[]; skus: string[] } | null;
  rmsBaseUrl: string;
  channels: unknown[];
}

let dir: string;
let serve: ServeProcess | null = null;
let first: SandboxJson;
let http: HttpClient;

const readSandbox = (): SandboxJson => JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'));
const ca = () => readFileSync(join(dir, 'tls.crt'), 'utf8');

async function startSandbox(env: Record<string, string> = {}): Promise<ServeProcess> {
  // A generous POS timeout: the machine running the suite may be busy.
  return startServe({ TABLESIDE_DATA: dir, POS_TIMEOUT_MS: '15000', ...env }, ['serve', '--sandbox'], 120_000);
}

/** The status of GET /healthz on the port, or null while nothing answers (the certificate is not checked: it may not exist yet). */
function healthz(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** What a script that waits for /healthz then reads sandbox.json would find: the file's content at the first 200. */
let sandboxAtFirstHealthy: Partial<SandboxJson> | null | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tableside-sandbox-'));
  const port = await freePort();
  let starting = true;
  const watching = eventually(async () => {
    if (!starting) return true;
    if ((await healthz(port)) !== 200) return false;
    sandboxAtFirstHealthy = existsSync(join(dir, 'sandbox.json')) ? JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8')) : null;
    return true;
  }, { intervalMs: 5, timeoutMs: 120_000, what: '/healthz answering 200' });
  serve = await startSandbox({ PORT: String(port) }).finally(() => (starting = false));
  await watching;
  first = readSandbox();
  http = new HttpClient(first.baseUrl, ca());
}, 180_000);

afterAll(async () => {
  await http?.close();
  await serve?.stop('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** The first table of the venue whose bill answers 200 (a seeded open order). */
async function openBill(client: HttpClient, token: string, venueId: string): Promise<HttpResponse> {
  const tables = await client.get(`/v1/pat/venue/${venueId}/tables`, { token });
  expect(tables.status, tables.text).toBe(200);
  for (const t of tables.body.tables) {
    const bill = await client.get(`/v1/pat/venue/${venueId}/table/${t.id}/bill`, { token });
    if (bill.status === 200) return bill;
    expect(bill.status, bill.text).toBe(404);
  }
  throw new Error(`no table of venue ${venueId} has an open order`);
}

describe('tableside serve --sandbox', () => {
  it('[DES-067] the first start seeds a partner and writes sandbox.json with baseUrl, apiKey, accessToken and venueIds; credentials are printed', () => {
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(true);
    expect(first.baseUrl).toBe(serve!.url);
    expect(first.baseUrl).toMatch(/^https:\/\//);
    expect(typeof first.apiKey).toBe('string');
    expect(first.apiKey.length).toBeGreaterThan(0);
    expect(typeof first.accessToken).toBe('string');
    expect(first.accessToken.length).toBeGreaterThan(0);
    expect(first.venueIds).toHaveLength(2);
    const output = serve!.output();
    expect(output).toContain(first.accessToken);
    expect(output).toContain(first.apiKey);
    for (const id of first.venueIds) expect(output).toContain(id);
    // The banner names the file where it is (TABLESIDE_DATA here is not ./.tableside).
    expect(output).toContain(`Sandbox credentials (also in ${join(dir, 'sandbox.json')}):`);
  });

  it('[DES-067] [DES-066] sandbox.json is complete before /healthz first answers 200 (a script waiting for health reads it at once)', () => {
    expect(sandboxAtFirstHealthy, 'sandbox.json did not exist when /healthz first answered 200').not.toBeNull();
    // Seen by the watcher only if it caught the service healthy before the banner; either way the file was whole.
    if (sandboxAtFirstHealthy) expect(sandboxAtFirstHealthy).toEqual(first);
    expect(first.caFile).toBe(join(dir, 'tls.crt'));
  });

  it('[DES-067] the start banner lists every venue /v1/pat/venues answers', async () => {
    const venues = await http.get('/v1/pat/venues', { token: first.accessToken });
    const banner = /pay-at-table venues: (.*)/.exec(serve!.output())?.[1] ?? '';
    const listed = banner.match(/[0-9a-f]{8}-[0-9a-f-]{27}/g) ?? [];
    expect(listed.sort()).toEqual(venues.body.venues.map((v: { id: string }) => v.id).sort());
  });

  it('[DES-067] the seeded venues are connected, with tables and open orders', async () => {
    const venues = await http.get('/v1/pat/venues', { token: first.accessToken });
    expect(venues.status).toBe(200);
    // The two pay-at-table venues, and the seatable venue of the RMS side (sandbox.json's seating).
    expect(venues.body.total).toBe(3);
    expect(venues.body.venues.map((v: { id: string }) => v.id).sort()).toEqual([...first.venueIds, first.seating!.venueId].sort());
    for (const v of venues.body.venues) expect(v.posCode).toMatch(/^simulator/);
    for (const venueId of first.venueIds) {
      const tables = await http.get(`/v1/pat/venue/${venueId}/tables`, { token: first.accessToken });
      expect(tables.status).toBe(200);
      expect(tables.body.tables.length).toBeGreaterThan(0);
      const bill = await openBill(http, first.accessToken, venueId);
      expect(bill.body.status).toBe('open');
      expect(bill.body.totals.totalDue).toBeGreaterThan(0);
    }
  });

  it('[DES-074] a built-in POS type "simulator" is listed and the seeded venues use it', async () => {
    const res = await http.get('/v1/pat/pos-types', { token: first.accessToken });
    expect(res.status).toBe(200);
    const codes = res.body.posTypes.map((t: { code: string }) => t.code);
    expect(codes).toContain('simulator');
    expect(codes).toContain('simulator-deferred');
    for (const t of res.body.posTypes) expect(Object.keys(t).sort()).toEqual(['code', 'name']);
    const features = await Promise.all(first.venueIds.map((id) => http.get(`/v1/pat/venue/${id}/features`, { token: first.accessToken })));
    expect(features.map((f) => f.status)).toEqual([200, 200]);
    expect(features.map((f) => f.body.posCode).sort()).toEqual(['simulator', 'simulator-deferred']);
    expect(features.map((f) => f.body.payAtTable.paymentConfirmation).sort()).toEqual(['deferred', 'immediate']);
  });

  it('[DES-066] [DES-074] the POS simulator runs in the serve process, on its own HTTPS port, and the simulator type points at it', async () => {
    const sim = first.posSimulator!;
    expect(sim).not.toBeNull();
    expect(sim.baseUrl).toMatch(/^https:\/\//);
    expect(new URL(sim.baseUrl).port).not.toBe(new URL(first.baseUrl).port);
    // In-process: the serve process starts no other process (the TypeScript loader's esbuild
    // service aside); the simulator stops with it (checked in DES-068 below).
    const children = spawnSync('ps', ['--ppid', String(serve!.child.pid), '-o', 'args='], { encoding: 'utf8' });
    expect(children.error).toBeUndefined();
    expect(children.stdout.split('\n').filter((l) => l.trim() !== '' && !/esbuild/.test(l))).toEqual([]);
    const simClient = new HttpClient(sim.baseUrl, ca());
    try {
      const tables = await simClient.get('/venue/sim-venue-1/tables', { token: sim.apiKey });
      expect(tables.status).toBe(200);
      // The service's calls for the seeded venue arrive at this simulator.
      const venue = first.venueIds[0];
      await http.get(`/v1/pat/venue/${venue}/tables`, { token: first.accessToken });
      const features = await http.get(`/v1/pat/venue/${venue}/features`, { token: first.accessToken });
      expect(features.body.posCode).toBe('simulator');
      await openBill(http, first.accessToken, venue);
      const log = await simClient.get('/_control/venues/sim-venue-1/requests', { token: sim.apiKey });
      expect(log.status).toBe(200);
      expect(log.body.some((r: { method: string; path: string }) => r.method === 'GET' && r.path === '/venue/sim-venue-1/orders')).toBe(true);
      for (const r of log.body) expect(r.headers.authorization).toBe(`Bearer ${sim.apiKey}`);
    } finally {
      await simClient.close();
    }
  });

  it('[DES-069] with the sandbox.json credentials a seeded bill is read (200) and paid in full (200 confirmed)', async () => {
    const venueId = first.venueIds[0];
    const features = await http.get(`/v1/pat/venue/${venueId}/features`, { token: first.accessToken });
    expect(features.body.payAtTable.paymentConfirmation).toBe('immediate');
    const bill = await openBill(http, first.accessToken, venueId);
    expect(bill.status).toBe(200);
    const paid = await http.post(`/v1/pat/venue/${venueId}/order/${bill.body.orderId}/payment`, {
      token: first.accessToken,
      body: { externalReference: `sandbox-${Date.now()}`, amount: bill.body.totals.totalDue, type: 'full', currency: 'EUR', paymentMethod: 'card' },
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.status).toBe('confirmed');
    expect(paid.body.orderStatus).toBe('closed');
    // The table's bill is gone: the order is closed.
    const after = await http.get(`/v1/pat/venue/${venueId}/table/${bill.body.tableId}/bill`, { token: first.accessToken });
    expect(after.status).toBe(404);
  });

  it('[DES-069] the deferred sandbox venue’s bill is paid too, reaching confirmed', async () => {
    const venueId = first.venueIds[1];
    const bill = await openBill(http, first.accessToken, venueId);
    const ref = `sandbox-deferred-${Date.now()}`;
    const paid = await http.post(`/v1/pat/venue/${venueId}/order/${bill.body.orderId}/payment`, {
      token: first.accessToken,
      body: { externalReference: ref, amount: bill.body.totals.totalDue, type: 'full' },
    });
    expect([200, 202], paid.text).toContain(paid.status);
    // The integration loop of spec 4.7: poll about once a second until terminal.
    const poll = async () => (await http.get(`/v1/pat/venue/${venueId}/order/${bill.body.orderId}/payment/${ref}`, { token: first.accessToken })).body.status;
    let status: string = paid.body.status;
    if (status === 'pending') {
      status = await eventually(async () => {
        const now: string = await poll();
        return now !== 'pending' && now;
      }, { intervalMs: 1000, timeoutMs: 60_000, what: 'a terminal status' });
    }
    expect(status).toBe('confirmed');
  });

  it('[DES-127] `tableside venue suspend` and `venue resume`, run while the server owns the directory, switch a venue off and on', async () => {
    const [venueId] = first.venueIds;
    const cli = (...args: string[]) => runCli(args, { TABLESIDE_DATA: dir });
    const features = () => http.get(`/v1/pat/venue/${venueId}/features`, { token: first.accessToken });
    expect((await features()).status).toBe(200);

    const suspended = await cli('venue', 'suspend', '--venue', venueId, '--json');
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(jsonOf(suspended)).toEqual({ venueId, status: 'suspended', suspendedReason: 'operator' });
    expect((await features()).status).toBe(404);

    const resumed = await cli('venue', 'resume', '--venue', venueId, '--json');
    expect(jsonOf(resumed)).toEqual({ venueId, status: 'active', suspendedReason: null });
    expect((await features()).status).toBe(200);

    const bad = await cli('venue', 'suspend', '--venue', 'not-a-venue', '--json');
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/UUID/);
  });

  it('[DES-106] [BKG-25] [BKG-29] the sandbox seats a booking: sandbox.json names a seatable venue; the seated booking’s bill shows partySize and prepayment', async () => {
    const seating = first.seating!;
    expect(seating).toMatchObject({ externalId: 'sandbox-trattoria', venueId: expect.any(String) });
    const posTables = await http.get(`/v1/rms/venues/${seating.externalId}/pos-tables`, { token: first.apiKey });
    expect(posTables.status, posTables.text).toBe(200);
    expect(posTables.body.tables.map((t: { id: string }) => t.id)).toEqual(seating.posTables);
    const res = await http.post('/v1/rms/pos/reservations', {
      token: first.apiKey,
      body: { bookingId: 'sandbox-demo-1', venueId: seating.externalId, status: 'seated', partySize: 2, tables: [seating.posTables[0]], date: new Date().toISOString(), prepayment: 10, items: [{ sku: 'MARGHERITA', quantity: 2 }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('opened');
    const tables = await http.get(`/v1/pat/venue/${seating.venueId}/tables`, { token: first.accessToken });
    const table = tables.body.tables.find((t: { name: string }) => t.name === 'Tavolo 1');
    const bill = await http.get(`/v1/pat/venue/${seating.venueId}/table/${table.id}/bill`, { token: first.accessToken });
    expect(bill.status, bill.text).toBe(200);
    expect(bill.body).toMatchObject({ orderId: res.body.orderId, partySize: 2 });
    expect(bill.body.totals).toMatchObject({ total: 22, prepayment: 10, totalDue: 12 });
  });

  it('[DES-068] a later start on the same directory seeds nothing again: same partner and venues, the old token still works', async () => {
    const code = await serve!.stop('SIGTERM');
    expect(code).toBe(0);
    serve = null;
    // The in-process simulator stopped with it.
    const simClient = new HttpClient(first.posSimulator!.baseUrl, ca());
    await expect(simClient.get('/venue/sim-venue-1/tables', { token: first.posSimulator!.apiKey })).rejects.toThrow();
    await simClient.close();

    // The reference RMS's port is taken meanwhile; the POS simulator's is not.
    const squatter: Server = createServer();
    await new Promise<void>((r) => squatter.listen(Number(new URL(first.rmsBaseUrl).port), '127.0.0.1', () => r()));
    try {
      serve = await startSandbox();
    } finally {
      await new Promise((r) => squatter.close(r));
    }
    const second = readSandbox();
    // Saved URLs stay valid across a restart; a port taken since is replaced and recorded.
    expect(second.posSimulator!.baseUrl).toBe(first.posSimulator!.baseUrl);
    expect(second.rmsBaseUrl).not.toBe(first.rmsBaseUrl);
    const third = await fetchRmsVenues(second);
    expect(third).toBeGreaterThan(0);
    expect(second.partnerId).toBe(first.partnerId);
    expect(second.venueIds).toEqual(first.venueIds);
    expect(second.baseUrl).toBe(serve.url);
    await http.close();
    http = new HttpClient(second.baseUrl, ca());

    const venues = await http.get('/v1/pat/venues', { token: first.accessToken });
    expect(venues.status, venues.text).toBe(200);
    expect(venues.body.total).toBe(3);
    expect(second.seating).toEqual(first.seating);
    expect(venues.body.venues.map((v: { id: string }) => v.id).sort()).toEqual([...first.venueIds, first.seating!.venueId].sort());
    for (const venueId of first.venueIds) {
      expect((await http.get(`/v1/pat/venue/${venueId}/features`, { token: first.accessToken })).status).toBe(200);
      const tables = await http.get(`/v1/pat/venue/${venueId}/tables`, { token: first.accessToken });
      expect(tables.status).toBe(200);
      // Tables were not imported twice either.
      expect(new Set(tables.body.tables.map((t: { name: string }) => t.name)).size).toBe(tables.body.tables.length);
    }
    const posTypes = await http.get('/v1/pat/pos-types', { token: second.accessToken });
    expect(posTypes.body.posTypes.filter((t: { code: string }) => t.code === 'simulator')).toHaveLength(1);
  }, 180_000);
});

/** The reference RMS answers on the URL sandbox.json names: its venues. */
async function fetchRmsVenues(sandbox: SandboxJson & { rmsApiKey?: string }): Promise<number> {
  const rms = new HttpClient(sandbox.rmsBaseUrl, ca());
  try {
    const res = await rms.get('/_control/venues', { token: (sandbox as { rmsApiKey: string }).rmsApiKey });
    expect(res.status, res.text).toBe(200);
    return res.body.length;
  } finally {
    await rms.close();
  }
}

describe('tableside serve --sandbox after an interrupted first start', () => {
  it('[DES-067] [DES-068] a first start that seeded one venue and stopped is completed by the next start, nothing seeded twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tableside-sandbox-partial-'));
    const stateFile = join(dataDir, 'pos-sim-state.json');
    // The simulator's second demo location answers its tables with an id listed twice, which the
    // service refuses: the first start seeds the first venue, then fails on the second.
    const venue2 = {
      id: 'sim-venue-2', name: 'Simulated Brasserie', timezone: 'Europe/London', currency: 'GBP', itemsSupported: true,
      behaviour: { payment: 'immediate' }, menu: [], nextOrderNo: 1, nextCheckNo: 1, nextItemId: 1,
      tables: [{ id: '201', name: 'Table 1' }, { id: '201', name: 'Table 1 again' }],
    };
    const state = { version: 1, apiKey: 'sim_partial_test_key', clock: { offsetMs: 0, frozenAt: null }, broken: null, venues: [venue2], orders: [], payments: [] };
    writeFileSync(stateFile, JSON.stringify(state));
    let running: ServeProcess | null = null;
    let client: HttpClient | null = null;
    try {
      const failed = await startServe({ TABLESIDE_DATA: dataDir, POS_TIMEOUT_MS: '15000' }, ['serve', '--sandbox'], 120_000).then(
        async (s) => {
          await s.stop('SIGTERM');
          return 'started';
        },
        (err: Error) => err.message,
      );
      // (Its output names the duplicate table id; the helper may reject before it has read it all.)
      expect(failed).toMatch(/serve exited with [1-9]/);

      // The location is fixed on the POS side; the next start completes the sandbox.
      const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
      saved.venues.find((v: { id: string }) => v.id === 'sim-venue-2').tables = [{ id: '201', name: 'Table 1' }, { id: '202', name: 'Table 2' }];
      writeFileSync(stateFile, JSON.stringify(saved));
      running = await startServe({ TABLESIDE_DATA: dataDir, POS_TIMEOUT_MS: '15000' }, ['serve', '--sandbox'], 120_000);
      const sandbox = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as SandboxJson;
      expect(sandbox.venueIds).toHaveLength(2);
      client = new HttpClient(sandbox.baseUrl, readFileSync(join(dataDir, 'tls.crt'), 'utf8'));
      const venues = await client.get('/v1/pat/venues', { token: sandbox.accessToken });
      // The two pay-at-table venues and the seatable one, each once.
      expect(venues.body.total).toBe(3);
      expect(venues.body.venues.map((v: { posCode: string }) => v.posCode).sort()).toEqual(['simulator', 'simulator', 'simulator-deferred']);
      expect(venues.body.venues.map((v: { id: string }) => v.id)).toContain(sandbox.seating!.venueId);
      expect((await client.get(`/v1/pat/venue/${sandbox.venueIds[1]}/tables`, { token: sandbox.accessToken })).body.tables).toHaveLength(2);
    } finally {
      await client?.close();
      await running?.stop('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
