import { createServer } from 'node:net';
import { Writable } from 'node:stream';

// Small helpers for tests that run a CLI command in-process or as a child: a free port to give it,
// and a stream that collects what it prints.

/** A port free on 127.0.0.1 right now (for commands that take --port). */
export async function freePort(): Promise<number> {
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
