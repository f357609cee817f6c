import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecureContext } from 'node:tls';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateSelfSigned, trustingContext, type TlsMaterial } from '../../src/lib/tls.ts';

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

describe('trustingContext', () => {
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

  test('trusts the certificates it is given and NODE_EXTRA_CA_CERTS, once per set of them', async () => {
    const context = trustingContext(givenCert);
    expect(await get(given, context)).toBe('HTTP 200');
    expect(await get(fromEnv, context)).toBe('HTTP 200');
    expect(await get(fromEnv, trustingContext())).toBe('HTTP 200');
    expect(trustingContext(givenCert)).toBe(context);
  });

  test("Node's default trust is left as it was: a connection without the context refuses both", async () => {
    trustingContext(givenCert);
    expect(await get(given)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    // Set after this process started: Node's default trust never read it.
    expect(await get(fromEnv)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });
});
