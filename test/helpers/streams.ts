import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';

// Small helpers for tests that run a CLI command in-process or as a child: a free port to give it,
// and a stream that collects what it prints.

/** Where the kernel's ephemeral range (Linux) starts: `listen(0)` and outgoing connections take ports from there up. */
function ephemeralStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low)) return low;
  } catch {
    // not Linux: the IANA range
  }
  return 49152;
}

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A port free on 127.0.0.1 right now, for a command that takes --port and is started next. It is
 * chosen below the kernel's ephemeral range: a port from `listen(0)` is free only until something
 * else binds it, and the suite's own outgoing connections (thousands a minute, each on an ephemeral
 * port) took one in the second it takes a child process to start. Outside that range only another
 * explicit bind can take it.
 */
export async function freePort(): Promise<number> {
  const top = ephemeralStart();
  const bottom = Math.max(10_000, top - 12_000);
  if (top - bottom >= 1000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = bottom + Math.floor(Math.random() * (top - bottom));
      if (await canListen(port)) return port;
    }
  }
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** A writable stream whose `text` is everything written to it. */
export function sink(): Writable & { text: string } {
  const s = new Writable({ write(chunk, _enc, done) { s.text += String(chunk); done(); } }) as Writable & { text: string };
  s.text = '';
  return s;
}
