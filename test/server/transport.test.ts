import http from 'node:http';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { generateSelfSigned, loadOrCreateSelfSigned } from '../../src/lib/tls.ts';
import { createLogger } from '../../src/server/logger.ts';
import { startService } from '../../src/app/service.ts';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import { newPglite } from '../helpers/db.ts';
import { HttpClient } from '../helpers/http.ts';

function plainRequest(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

let app: TestApp;
let partner: TestPartner;
let port: number;

beforeAll(async () => {
  app = await startTestApp();
  partner = await app.newPartner(['rms', 'pat', 'analytics']);
  port = app.service.port;
});
afterAll(async () => {
  await app?.close();
});

describe('HTTPS only', () => {
  it('[TRN-01] [DES-001] [DES-012] a plain-HTTP request on every API family gets an error, never 2xx, no redirect, no data', async () => {
    for (const [path, credential] of [
      ['/v1/pat/venues', partner.token],
      ['/v1/pos/partner/venues', partner.token],
      ['/v1/rms/booking-channels', partner.apiKey!],
      ['/healthz', ''],
    ]) {
      const res = await plainRequest(port, 'GET', path, credential ? { authorization: `Bearer ${credential}` } : {});
      expect(res.status, path).toBe(400);
      expect(res.status >= 300 && res.status < 400).toBe(false);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['x-request-id']).toBeTruthy();
      const body = JSON.parse(res.body);
      expect(body.error.code).toBe(400);
      expect(body.error.message).toMatch(/HTTPS/);
      expect(res.body).not.toMatch(/venues|total|data/);
    }
  });

  it('[TRN-02] a plain-HTTP write with valid credentials has no effect', async () => {
    const p = await app.newPartner(['pat']);
    const before = (await app.db.kysely.selectFrom('access_tokens').select(({ fn }) => fn.countAll().as('n')).executeTakeFirst())!.n;
    const form = `grant_type=client_credentials&client_id=${p.clientId}&client_secret=${p.clientSecret}`;
    const res = await plainRequest(port, 'POST', '/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }, form);
    expect(res.status).toBe(400);
    expect(res.body).not.toContain('access_token');
    const after = (await app.db.kysely.selectFrom('access_tokens').select(({ fn }) => fn.countAll().as('n')).executeTakeFirst())!.n;
    expect(after).toBe(before);
  });

  it('[TRN-03] [DES-012] the same requests over HTTPS are served', async () => {
    const res = await app.http.get('/v1/pat/venues', { token: partner.token });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});

describe('behind a TLS-terminating proxy (TRUST_PROXY)', () => {
  it('[DES-002] [DES-003] X-Forwarded-Proto must be https; plain connections from the proxy are served only then', async () => {
    const proxied = await startTestApp({ env: { TRUST_PROXY: '1' } });
    onTestFinished(() => proxied.close());
    const p = await proxied.newPartner(['pat']);
    const refused = await proxied.http.get('/v1/pat/venues', { token: p.token, headers: { 'x-forwarded-proto': 'http' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/HTTPS/);
    const missing = await proxied.http.get('/v1/pat/venues', { token: p.token });
    expect(missing.status).toBe(400);
    const served = await proxied.http.get('/v1/pat/venues', { token: p.token, headers: { 'x-forwarded-proto': 'https' } });
    expect(served.status).toBe(200);
    // The proxy itself talks plain HTTP to us.
    const viaProxy = await plainRequest(proxied.service.port, 'GET', '/v1/pat/venues', { authorization: `Bearer ${p.token}`, 'x-forwarded-proto': 'https' });
    expect(viaProxy.status).toBe(200);
    const spoofless = await plainRequest(proxied.service.port, 'GET', '/v1/pat/venues', { authorization: `Bearer ${p.token}`, 'x-forwarded-proto': 'http' });
    expect(spoofless.status).toBe(400);
  });
});

describe('certificates', () => {
  it('[DES-005] with TLS_CERT and TLS_KEY the server presents that certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tableside-cert-'));
    const material = await generateSelfSigned('tls-cert-test.local');
    writeFileSync(join(dir, 'c.pem'), material.cert);
    writeFileSync(join(dir, 'k.pem'), material.key);
    const config = loadConfig({ TLS_CERT: join(dir, 'c.pem'), TLS_KEY: join(dir, 'k.pem'), LOG_LEVEL: 'silent' }, { port: 0, dataDir: dir });
    const db = await newPglite();
    const service = await startService(config, { store: { db, embedded: false, close: () => db.close() }, startJobs: false, log: createLogger('silent') });
    onTestFinished(() => service.close());
    const presented = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: service.port, ca: material.cert, servername: 'localhost' }, () => {
        resolve(socket.getPeerX509Certificate()!.fingerprint256);
        socket.end();
      });
      socket.on('error', reject);
    });
    expect(presented).toBe(new X509Certificate(material.cert).fingerprint256);
    const client = new HttpClient(service.url, material.cert);
    expect((await client.get('/healthz')).status).toBe(200);
    await client.close();
  });

  it('[DES-006] without TLS_CERT/TLS_KEY a self-signed certificate for localhost/127.0.0.1 is generated once and reused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tableside-cert-'));
    const first = await loadOrCreateSelfSigned(dir);
    const second = await loadOrCreateSelfSigned(dir);
    expect(second.cert).toBe(first.cert);
    expect(readFileSync(join(dir, 'tls.crt'), 'utf8')).toBe(first.cert);
    const x509 = new X509Certificate(first.cert);
    expect(x509.subjectAltName).toMatch(/DNS:localhost/);
    expect(x509.subjectAltName).toMatch(/IP Address:127\.0\.0\.1/);
    // A server over that directory presents it.
    const config = loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, dataDir: dir });
    const db = await newPglite();
    const service = await startService(config, { store: { db, embedded: false, close: () => db.close() }, startJobs: false, log: createLogger('silent') });
    onTestFinished(() => service.close());
    const client = new HttpClient(service.url, first.cert);
    expect((await client.get('/healthz')).status).toBe(200);
    await client.close();
  });
});
