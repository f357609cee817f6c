import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateDir } from '../../src/db/template.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { HttpClient } from '../helpers/http.ts';

// The CLI contract of DESIGN 4, driven as an operator would: the real command in a child process,
// against an embedded data directory, with and without a server owning it.

let dataDir: string;
let server: ServeProcess | null = null;
let http: HttpClient;

const env = () => ({ TABLESIDE_DATA: dataDir });
const cli = (...args: string[]) => runCli(args, env());

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tableside-cli-'));
});
afterAll(async () => {
  await http?.close();
  await server?.stop();
});

describe('without a server', () => {
  it('[DES-051] [DES-064] [DES-047] `tableside migrate` works right after install (plain node, no build) and is idempotent', async () => {
    // bin/tableside.mjs itself, through tsx, as `npx tableside` runs it (the other tests spawn the
    // run's bundle of the same sources, test/cli-bundle.ts).
    const first = await runCli(['migrate', '--json'], env(), 60_000, { realBin: true });
    expect(first.code, first.stderr).toBe(0);
    // `npm install` makes a migrated template the new data directory is copied from (src/db/template.ts):
    // then there is nothing left to apply; without one (a checkout whose migrations changed since) every migration is applied here.
    if (existsSync(join(templateDir(), 'PG_VERSION'))) expect(jsonOf(first).applied).toEqual([]);
    else expect(jsonOf(first).applied.length).toBeGreaterThan(0);
    const again = await cli('migrate', '--json');
    expect(again.code).toBe(0);
    expect(jsonOf(again)).toEqual({ applied: [] });
  });

  it('[DES-054] [DES-055] [DES-052] [DES-064] partner create prints {partnerId, apiKey, clientId, clientSecret} as one JSON object, each credential only for its access', async () => {
    const all = jsonOf(await cli('partner', 'create', '--name', 'All', '--access', 'rms,pat,analytics', '--json'));
    expect(Object.keys(all).sort()).toEqual(['apiKey', 'clientId', 'clientSecret', 'partnerId']);
    const rms = jsonOf(await cli('partner', 'create', '--name', 'Content only', '--access', 'rms', '--json'));
    expect(Object.keys(rms).sort()).toEqual(['apiKey', 'partnerId']);
    const pat = jsonOf(await cli('partner', 'create', '--name', 'Payments', '--access', 'pat', '--json'));
    expect(Object.keys(pat).sort()).toEqual(['clientId', 'clientSecret', 'partnerId']);
  });

  it('[DES-053] a failing command writes its error to stderr and exits non-zero', async () => {
    const bad = await cli('partner', 'create', '--name', 'X', '--access', 'everything', '--json');
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/access/);
    const missing = await cli('token', 'issue', '--partner', '0198a5c4-1111-7222-8333-444455556666', '--json');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/No partner/);
    const usage = await cli('partner', 'create', '--json');
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toMatch(/--name/);
  });
});

describe('with a server owning the data directory', () => {
  beforeAll(async () => {
    server = await startServe(env());
    const cert = readFileSync(join(dataDir, 'tls.crt'), 'utf8');
    http = new HttpClient(server.url, cert);
  });

  it('[DES-004] serve listens for HTTPS on PORT and HOST', async () => {
    expect(server!.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await http.get('/healthz')).status).toBe(200);
  });

  it('[DES-063] [DES-057] CLI commands are carried out by the running server, whose API accepts the new credentials at once', async () => {
    const partner = jsonOf(await cli('partner', 'create', '--name', 'Live', '--access', 'pat,analytics', '--json'));
    const token = jsonOf(await cli('token', 'issue', '--partner', partner.partnerId, '--ttl', '600', '--json'));
    expect(token).toEqual({ accessToken: expect.stringMatching(/^tat_/), expiresIn: 600 });
    const res = await http.get('/v1/pat/venues', { token: token.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ total: 0, venues: [] });
    const defaultTtl = jsonOf(await cli('token', 'issue', '--partner', partner.partnerId, '--json'));
    expect(defaultTtl.expiresIn).toBe(3600);
  });

  it('[DES-058] after token revoke, requests with that token → 401', async () => {
    const partner = jsonOf(await cli('partner', 'create', '--name', 'Revoke', '--access', 'pat', '--json'));
    const { accessToken } = jsonOf(await cli('token', 'issue', '--partner', partner.partnerId, '--json'));
    expect((await http.get('/v1/pat/venues', { token: accessToken })).status).toBe(200);
    expect(jsonOf(await cli('token', 'revoke', '--token', accessToken, '--json'))).toEqual({ revoked: true });
    expect((await http.get('/v1/pat/venues', { token: accessToken })).status).toBe(401);
  });

  it('[DES-059] [DES-060] [DES-036] key revoke ends a content key; channel create lists the channel for every content partner', async () => {
    const a = jsonOf(await cli('partner', 'create', '--name', 'A', '--access', 'rms', '--json'));
    const b = jsonOf(await cli('partner', 'create', '--name', 'B', '--access', 'rms', '--json'));
    const channel = jsonOf(await cli('channel', 'create', '--name', 'Reserve with Search', '--logo', 'https://cdn.example.com/rws.png', '--json'));
    expect(channel).toEqual({ id: expect.any(String), name: 'Reserve with Search', logo: 'https://cdn.example.com/rws.png', protocol: 'tableside', credentials: { apiKey: expect.any(String) } });
    for (const key of [a.apiKey, b.apiKey]) {
      const list = await http.get('/v1/rms/booking-channels', { token: key });
      expect(list.status).toBe(200);
      expect(list.body.data).toContainEqual({ id: channel.id, name: channel.name, logo: channel.logo });
    }
    expect(jsonOf(await cli('key', 'revoke', '--key', a.apiKey, '--json'))).toEqual({ revoked: true });
    expect((await http.get('/v1/rms/booking-channels', { token: a.apiKey })).status).toBe(401);
    expect((await http.get('/v1/rms/booking-channels', { token: b.apiKey })).status).toBe(200);
  });

  it('[CHN-01] channel create --protocol tableside answers credentials.apiKey, google-v3 a Basic username and password; key revoke ends either', async () => {
    const bc = jsonOf(await cli('channel', 'create', '--name', 'Booking site', '--protocol', 'tableside', '--json'));
    expect(bc).toMatchObject({ protocol: 'tableside', credentials: { apiKey: expect.stringMatching(/^tbc_/) } });
    expect(Object.keys(bc.credentials)).toEqual(['apiKey']);
    const google = jsonOf(await cli('channel', 'create', '--name', 'Reserve with Google', '--protocol', 'google-v3', '--json'));
    expect(google).toMatchObject({ protocol: 'google-v3', credentials: { username: expect.any(String), password: expect.stringMatching(/^tbp_/) } });
    expect(Object.keys(google.credentials).sort()).toEqual(['password', 'username']);
    const basic = `Basic ${Buffer.from(`${google.credentials.username}:${google.credentials.password}`).toString('base64')}`;
    expect((await http.get('/v1/bc/venues', { token: bc.credentials.apiKey })).status).toBe(200);
    expect((await http.get('/v3/HealthCheck', { headers: { authorization: basic } })).status).toBe(200);
    expect(jsonOf(await cli('key', 'revoke', '--key', bc.credentials.apiKey, '--json'))).toEqual({ revoked: true });
    expect(jsonOf(await cli('key', 'revoke', '--key', google.credentials.password, '--json'))).toEqual({ revoked: true });
    expect((await http.get('/v1/bc/venues', { token: bc.credentials.apiKey })).status).toBe(401);
    expect((await http.get('/v3/HealthCheck', { headers: { authorization: basic } })).status).toBe(401);
    const bad = await cli('channel', 'create', '--name', 'X', '--protocol', 'carrier-pigeon', '--json');
    expect(bad.code).not.toBe(0);
  });

  it('[CHN-17] [CHN-19] feeds export writes a google-v3 channel\'s feed set through the running server, and feeds validate accepts it', async () => {
    const google = jsonOf(await cli('channel', 'create', '--name', 'Feeds', '--protocol', 'google-v3', '--json'));
    const out = join(mkdtempSync(join(tmpdir(), 'tableside-cli-feeds-')), 'set');
    const exported = jsonOf(await cli('feeds', 'export', '--channel', google.id, '--out', out, '--shard-size', '100', '--json'));
    expect(exported).toMatchObject({ channelId: google.id, nonce: expect.any(String), dir: out, records: 0 });
    expect(exported.files).toHaveLength(3);
    expect(jsonOf(await cli('feeds', 'validate', out, '--json'))).toMatchObject({ ok: true });
    const bc = jsonOf(await cli('channel', 'create', '--name', 'Not google', '--json'));
    expect((await cli('feeds', 'export', '--channel', bc.id, '--out', out, '--json')).code).not.toBe(0);
  });

  it('[CHN-32] [CHN-37] channel google-rtu stores a google-v3 channel’s partner id and service account printing no key; google-rtu-log lists its attempts; a tableside channel is refused', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { writeFileSync } = await import('node:fs');
    const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const keyFile = join(dataDir, 'service-account.json');
    writeFileSync(keyFile, JSON.stringify({
      type: 'service_account', private_key_id: 'k1', private_key: privateKey,
      client_email: 'rtu@tableside-test.iam.gserviceaccount.com', token_uri: 'https://oauth2.googleapis.com/token',
    }));
    const google = jsonOf(await cli('channel', 'create', '--name', 'RTU', '--protocol', 'google-v3', '--json'));
    const stored = await cli('channel', 'google-rtu', '--channel', google.id, '--partner-id', '20001234', '--service-account', keyFile, '--json');
    expect(jsonOf(stored)).toEqual({
      channelId: google.id, partnerId: '20001234', apiBase: 'https://mapsbooking.googleapis.com',
      clientEmail: 'rtu@tableside-test.iam.gserviceaccount.com', tokenUri: 'https://oauth2.googleapis.com/token', enabled: true, updatedAt: expect.any(String),
    });
    expect(stored.stdout + stored.stderr).not.toContain(privateKey.split('\n')[1]);
    expect(jsonOf(await cli('channel', 'google-rtu-log', '--channel', google.id, '--json'))).toEqual({ channelId: google.id, attempts: [] });
    const bc = jsonOf(await cli('channel', 'create', '--name', 'Not google either', '--json'));
    const wrong = await cli('channel', 'google-rtu', '--channel', bc.id, '--partner-id', '1', '--service-account', keyFile, '--json');
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/google-v3/);
  });

  it('[DES-056] partner grant puts a venue in the partner’s scope', async () => {
    const partner = jsonOf(await cli('partner', 'create', '--name', 'Grantee', '--access', 'pat', '--json'));
    const { accessToken } = jsonOf(await cli('token', 'issue', '--partner', partner.partnerId, '--json'));
    // A venue a reservation system pushed through the content API: in no pay-at-table scope yet.
    const rms = jsonOf(await cli('partner', 'create', '--name', 'RMS', '--access', 'rms', '--json'));
    const created = await http.post('/v1/rms/venues', {
      token: rms.apiKey,
      body: { externalId: 'grant-1', name: 'Granted Bistro', countryCode: 'FR', city: 'Paris', currency: 'EUR' },
    });
    expect(created.status, created.text).toBe(200);
    const unknown = await cli('partner', 'grant', '--partner', partner.partnerId, '--venue', '0198a5c4-1111-7222-8333-444455556666', '--json');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/No venue/);
    expect((await http.get('/v1/pat/venues', { token: accessToken })).body.total).toBe(0);
    const granted = await cli('partner', 'grant', '--partner', partner.partnerId, '--venue', created.body.id, '--json');
    expect(granted.code, granted.stderr).toBe(0);
    const list = await http.get('/v1/pat/venues', { token: accessToken });
    expect(list.body.venues.map((v: { id: string }) => v.id)).toEqual([created.body.id]);
    // In scope now (not 403); it has no POS connection yet, which is a 404 (DESIGN 9).
    const tables = await http.get(`/v1/pat/venue/${created.body.id}/tables`, { token: accessToken });
    expect(tables.status).toBe(404);
    expect(tables.body.error.message).toMatch(/No POS connection found/);
  });

  it('[DES-065] the admin endpoint listens on loopback only and refuses a request without the secret', async () => {
    const admin = JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')) as { port: number; secret: string };
    const cert = readFileSync(join(dataDir, 'tls.crt'), 'utf8');
    const client = new HttpClient(`https://127.0.0.1:${admin.port}`, cert);
    try {
      const noSecret = await client.post('/admin/commands/partner.create', { body: { name: 'x', access: 'pat' } });
      expect(noSecret.status).toBe(401);
      const wrong = await client.post('/admin/commands/partner.create', { body: { name: 'x', access: 'pat' }, headers: { 'x-admin-secret': 'guess' } });
      expect(wrong.status).toBe(401);
      const right = await client.post('/admin/commands/migrate', { body: {}, headers: { 'x-admin-secret': admin.secret } });
      expect(right.status).toBe(200);
    } finally {
      await client.close();
    }
    const { networkInterfaces } = await import('node:os');
    const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
    if (external) {
      const { connect } = await import('node:net');
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: external.address, port: admin.port }, () => {
          socket.destroy();
          resolve(false);
        });
        socket.on('error', () => resolve(true));
      });
      expect(refused).toBe(true);
    }
  });

  it('[DES-045] a second process opening the owned data directory is refused with a clear message; the directory stays intact', async () => {
    const second = await startServe(env()).then(
      async (s) => {
        await s.stop();
        return null;
      },
      (err: Error & { code?: number; output?: string }) => err,
    );
    expect(second).not.toBeNull();
    expect(second!.code).not.toBe(0);
    expect(second!.output).toMatch(/in use by process \d+/);
    expect((await http.get('/readyz')).status).toBe(200);
  });

  it('[DES-046] on SIGTERM serve closes the store, releases the lock and exits 0; a new process then opens the directory with its data', async () => {
    const before = jsonOf(await cli('partner', 'create', '--name', 'Survivor', '--access', 'pat', '--json'));
    const code = await server!.stop('SIGTERM');
    expect(code).toBe(0);
    expect(existsSync(join(dataDir, 'tableside.pid'))).toBe(false);
    expect(existsSync(join(dataDir, 'admin.json'))).toBe(false);
    await http.close();
    server = await startServe(env());
    http = new HttpClient(server.url, readFileSync(join(dataDir, 'tls.crt'), 'utf8'));
    // The earlier partner is still there: a token for it can be issued.
    const token = await cli('token', 'issue', '--partner', before.partnerId, '--json');
    expect(token.code, token.stderr).toBe(0);
    expect((await http.get('/v1/pat/venues', { token: jsonOf(token).accessToken })).status).toBe(200);
    const again = await server.stop('SIGINT');
    expect(again).toBe(0);
    server = null;
  });
});

describe('configuration', () => {
  it('[DES-007] an invalid environment value makes start fail fast, naming the variable', async () => {
    const res = await runCli(['serve'], { TABLESIDE_DATA: dataDir, PORT: 'abc' });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/PORT/);
    const res2 = await runCli(['serve'], { TABLESIDE_DATA: dataDir, PAYMENT_CONFIRMATION_TIMEOUT_S: '-5' });
    expect(res2.code).not.toBe(0);
    expect(res2.stderr).toMatch(/PAYMENT_CONFIRMATION_TIMEOUT_S/);
  });
});
