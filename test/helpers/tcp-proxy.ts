import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

// A TCP proxy in front of an HTTPS server (the POS simulator), for outage tests. TLS passes through
// untouched, so the client still verifies the real server's certificate. `down()` cuts every open
// connection and resets new ones (what a client sees when a POS host is down); `up()` restores it.

export interface TcpProxy {
  /** The target URL with the proxy's port, e.g. https://127.0.0.1:40123. */
  url: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let isDown = false;
  const server: Server = createServer((client) => {
    if (isDown) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: target.hostname, port: Number(target.port) });
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, target.hostname, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${target.protocol}//${target.hostname}:${port}`;
  return {
    url,
    down() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    up() {
      isDown = false;
    },
    close() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
