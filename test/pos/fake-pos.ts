// Small fake POS servers for the client's failure tests: an HTTPS server that answers whatever the
// test sets (malformed bodies the reference simulator never sends), a TCP server that accepts and
// never says a word, and a port nobody listens on. Real sockets, real TLS (the test certificate).

import { createServer as createHttpsServer, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { testTls } from '../helpers/http.ts';

export interface FakeReply {
  /** HTTP status; default 200. */
  status?: number;
  /** Serialized as JSON unless `raw` is given. */
  body?: unknown;
  /** Sent as is (e.g. a body that is not JSON). */
  raw?: string;
  /** Default application/json. */
  contentType?: string;
  /** Send the status line and headers, then never finish the body. */
  stallBody?: boolean;
  /** Never answer at all (the request stays open). */
  hang?: boolean;
  /** Answer only once this resolves, with what was set when the request arrived (a POS's answer in transit). */
  heldUntil?: Promise<unknown>;
}

export interface FakeRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakePos {
  /** https://127.0.0.1:<port>, no trailing slash. */
  baseUrl: string;
  /** The certificate the client must trust. */
  ca: string;
  apiKey: string;
  /** What every following request gets (until set again). */
  reply(answer: FakeReply | ((req: FakeRequest) => FakeReply)): void;
  /** Requests received so far. */
  requests: FakeRequest[];
  close(): Promise<void>;
}

export async function startFakePos(): Promise<FakePos> {
  const tls = testTls();
  const sockets = new Set<Socket>();
  const requests: FakeRequest[] = [];
  let answer: FakeReply | ((req: FakeRequest) => FakeReply) = { status: 500, body: { error: 'no reply set' } };

  const server: Server = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: FakeRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(seen);
      const a = typeof answer === 'function' ? answer(seen) : answer;
      if (a.hang) return;
      const text = a.raw ?? (a.body === undefined ? '' : JSON.stringify(a.body));
      const send = () => {
        res.writeHead(a.status ?? 200, { 'content-type': a.contentType ?? 'application/json' });
        if (a.stallBody) {
          // Promise a longer body than we send, and flush what we have: the client waits for the rest.
          res.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
          return;
        }
        res.end(text);
      };
      if (a.heldUntil) void a.heldUntil.then(send);
      else send();
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `https://127.0.0.1:${port}`,
    ca: tls.cert,
    apiKey: 'fake-pos-key',
    reply(a) {
      answer = a;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A TCP server that accepts connections and never sends a byte (not even a TLS handshake). */
export async function startSilentServer(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port that was free a moment ago and has nobody listening on it now. */
export async function unusedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
