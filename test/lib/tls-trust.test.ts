import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecureContext } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSigned, trustingContext, type TlsMaterial } from '../../src/lib/tls.ts';

// The one TLS context per set of CAs (src/lib/tls.ts) that the RMS client now uses for every pool.

describe('trustingContext', () => {
  const before = process.env.NODE_EXTRA_CA_CERTS;
  afterEach(() => {
    if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = before;
  });

  it('ignores a NODE_EXTRA_CA_CERTS that cannot be read, as Node does, instead of failing every call made through it', () => {
    process.env.NODE_EXTRA_CA_CERTS = '/nonexistent/tableside-extra-ca.pem';
    const context = trustingContext();
    expect(context).toBeDefined();
    expect(trustingContext()).toBe(context); // built once
  });
});

// trustingContext adds certificates to a copy of Node's default trust: what it was given is
// trusted, NODE_EXTRA_CA_CERTS (also when set after start) is trusted, and nothing leaks into the
// process-wide default that every other TLS connection uses.

async function serve(tls: TlsMaterial): Promise<Server> {
  const server = createServer(tls, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function get(server: Server, secureContext?: SecureContext): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', servername: 'localhost', port, agent: false, ...(secureContext ? { secureContext } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(`HTTP ${res.statusCode}`));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

describe('trustingContext: Node\'s default trust plus what it is given', () => {
  let given: Server;
  let fromEnv: Server;
  let givenCert: string;
  const saved = process.env.NODE_EXTRA_CA_CERTS;

  beforeAll(async () => {
    // Two subjects: a store looks an issuer up by its name.
    const [a, b] = await Promise.all([generateSelfSigned('tls-test-given'), generateSelfSigned('tls-test-env')]);
    givenCert = a.cert;
    given = await serve(a);
    fromEnv = await serve(b);
    const file = join(mkdtempSync(join(tmpdir(), 'tableside-tls-')), 'extra.pem');
    writeFileSync(file, b.cert);
    process.env.NODE_EXTRA_CA_CERTS = file;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = saved;
    given?.close();
    fromEnv?.close();
  });

  it('trusts the certificates it is given and NODE_EXTRA_CA_CERTS, once per set of them', async () => {
    const context = trustingContext(givenCert);
    expect(await get(given, context)).toBe('HTTP 200');
    expect(await get(fromEnv, context)).toBe('HTTP 200');
    expect(await get(fromEnv, trustingContext())).toBe('HTTP 200');
    expect(trustingContext(givenCert)).toBe(context);
  });

  it("Node's default trust is left as it was: a connection without the context refuses both", async () => {
    trustingContext(givenCert);
    expect(await get(given)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    // Set after this process started: Node's default trust never read it.
    expect(await get(fromEnv)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });
});
