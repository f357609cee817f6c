import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { testTls } from './http.ts';

// A real HTTPS webhook receiver on 127.0.0.1 (a free port), presenting the test certificate, that
// records every POST it gets. What it answers is set per test: a status (with headers and a body),
// or a misbehaviour (hang without answering, a huge body, a redirect, a reset connection).

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export type Behaviour =
  | { status: number; headers?: Record<string, string>; body?: string }
  | { hang: true }
  | { hugeBody: number }
  | { reset: true };

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** What to answer next; a function picks per request. Default 204. */
  behave(b: Behaviour | ((r: Received) => Behaviour)): void;
  /** Requests received on a path (endpoints of one receiver differ by path). */
  on(path: string): Received[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const tls = testTls();
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  let behaviour: Behaviour | ((r: Received) => Behaviour) = { status: 204 };
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // recorded as text
      }
      const r: Received = { path: req.url ?? '/', headers, body, json };
      received.push(r);
      const b = typeof behaviour === 'function' ? behaviour(r) : behaviour;
      if ('hang' in b) return; // never answers; the connection is destroyed at close()
      if ('reset' in b) return req.socket.destroy();
      if ('hugeBody' in b) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let left = b.hugeBody;
        const pump = () => {
          while (left > 0) {
            left -= chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => {});
        return pump();
      }
      res.writeHead(b.status, b.headers ?? {});
      res.end(b.body ?? '');
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    received,
    behave(b) {
      behaviour = b;
    },
    on: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
