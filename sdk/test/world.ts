import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { loadOrCreateSelfSigned, type TlsMaterial } from '../../src/lib/tls.ts';
import type { SandboxFile } from '../../src/sandbox/sandbox.ts';
import { startTestApp, type TestApp, type TestAppOptions } from '../../test/helpers/app.ts';
import { testTls } from '../../test/helpers/http.ts';

// The SDK's tests run against the real service in sandbox mode (DESIGN 4): started in-process by
// startTestApp with `sandbox: true`, so the POS simulator, the reference RMS, the sandbox partner,
// its venues with open bills and its booking channels are all there, as after `npm start`. The data
// directory is `<dir>/.tableside`, so a README example run with cwd `<dir>` finds sandbox.json where
// `npm start` writes it.
//
// The sandbox's simulators present the data directory's certificate (as under `npm start`), made
// here first so the service's outbound calls can trust it through NODE_EXTRA_CA_CERTS and a webhook
// receiver can present it. (NODE_EXTRA_CA_CERTS naming ANOTHER self-signed localhost certificate,
// such as the test one, makes the service's POS calls fail: OpenSSL picks the first CA with the
// matching subject name.)
//
// `fetch` is what the SDK sends with: Node's fetch trusting the test certificate, recording every
// attempt, with an optional fault in front of the service (`intercept`).

export interface Attempt {
  method: string;
  path: string;
  status: number | 'network-error';
  authorization: string | null;
  idempotencyKey: string | null;
}

export type Intercept = (request: Request, forward: (request: Request) => Promise<Response>) => Promise<Response>;

export interface SdkWorld {
  app: TestApp;
  /** The data directory's certificate (the simulators' and a receiver's). */
  sandboxTls: TlsMaterial;
  sandbox: SandboxFile & {
    channels: Array<{ id: string; protocol: string; credentials: Record<string, string> }>;
    rmsVenues: Array<{ id: string; externalId?: string }>;
  };
  /** The directory that holds `.tableside/` (cwd for README examples). */
  dir: string;
  fetch: (request: Request) => Promise<Response>;
  attempts: Attempt[];
  /** A fault in front of the service for the next requests; null forwards everything. */
  intercept: Intercept | null;
  close(): Promise<void>;
}

export async function startSdkWorld(opts: TestAppOptions = {}): Promise<SdkWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'tableside-sdk-'));
  const dataDir = join(dir, '.tableside');
  mkdirSync(dataDir);
  const sandboxTls = await loadOrCreateSelfSigned(dataDir);
  process.env.NODE_EXTRA_CA_CERTS = sandboxTls.certFile;
  const app = await startTestApp({ ...opts, config: { sandbox: true, dataDir, ...(opts.config ?? {}) }, env: { POS_TIMEOUT_MS: '15000', ...(opts.env ?? {}) } });
  const dispatcher = new Agent({ connect: { ca: testTls().cert }, keepAliveTimeout: 1000 });
  const forward = (request: Request) => fetch(request, { dispatcher } as RequestInit);
  const world: SdkWorld = {
    app,
    sandboxTls,
    sandbox: app.service.sandbox as SdkWorld['sandbox'],
    dir,
    attempts: [],
    intercept: null,
    async fetch(request) {
      const attempt: Attempt = {
        method: request.method,
        path: new URL(request.url).pathname,
        status: 'network-error',
        authorization: request.headers.get('authorization'),
        idempotencyKey: request.headers.get('idempotency-key'),
      };
      world.attempts.push(attempt);
      const response = await (world.intercept ? world.intercept(request, forward) : forward(request));
      attempt.status = response.status;
      return response;
    },
    async close() {
      await app.close();
      await dispatcher.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/** A 503 as a gateway in front of the service answers it. */
export const serviceUnavailable = (retryAfter?: string) =>
  new Response(JSON.stringify({ error: { code: 503, message: 'Service unavailable.', details: null } }), {
    status: 503,
    headers: { 'content-type': 'application/json', ...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}) },
  });

export interface Delivery {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** An HTTPS webhook receiver presenting the sandbox certificate; answers 204 and records each POST. */
export async function startReceiver(tls: TlsMaterial): Promise<{ url: string; on(path: string): Delivery[]; close(): Promise<void> }> {
  const received: Delivery[] = [];
  const sockets = new Set<Socket>();
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      received.push({ path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    on: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
