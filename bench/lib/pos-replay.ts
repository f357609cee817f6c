// A fast POS for the live-bill bench (issue 28): it answers the POS simulator's own answers at once,
// so the live bill is measured against a POS that costs next to nothing, not against the reference
// simulator (about 350 reads a second). The first GET of each path and query is sent to the real
// simulator and its answer (status, content type, body) recorded; every later GET of it is answered
// from the recording, over TLS with the simulator's own certificate. Anything else (POST) is passed
// through to the simulator each time. The bench asks each path once before it measures, so what is
// measured is only ever served from the recording.
//
//   node bin/run-ts.mjs bench/lib/pos-replay.ts <simulator base URL> <simulator CA file> <cert file> <key file>
//
// Prints its base URL on stdout once it listens (127.0.0.1, port 0).
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [simUrl, caFile, certFile, keyFile] = process.argv.slice(2);
const sim = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') }, connections: 8 });

interface Recorded {
  status: number;
  type: string;
  body: Buffer;
}
/** The recording, by method and path with query: a handful of paths in a bench run. */
const recorded = new Map<string, Recorded>();

async function forward(method: string, url: string, headers: Record<string, string | string[] | undefined>, body: Buffer): Promise<Recorded> {
  const res = await request(simUrl + url, {
    dispatcher: sim,
    method: method as 'GET',
    headers: { authorization: headers.authorization as string, accept: 'application/json', ...(headers['content-type'] ? { 'content-type': headers['content-type'] as string } : {}) },
    body: body.length ? body : undefined,
  });
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? 'application/json'), body: Buffer.from(await res.body.arrayBuffer()) };
}

/** GETs answered from the recording so far: `GET /_replay/served` tells the bench how many POS reads a scenario sent. */
let served = 0;

const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), keepAliveTimeout: 30_000 }, (req, res) => {
  if (req.method === 'GET' && req.url === '/_replay/served') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ served }));
    return;
  }
  const key = `${req.method} ${req.url}`;
  const send = (r: Recorded) => {
    res.writeHead(r.status, { 'content-type': r.type, 'content-length': r.body.length });
    res.end(r.body);
  };
  const hit = req.method === 'GET' ? recorded.get(key) : undefined;
  if (hit) {
    served++;
    // The body is not read for a GET; drain it so the connection stays usable.
    req.resume();
    send(hit);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    forward(req.method!, req.url!, req.headers, Buffer.concat(chunks)).then(
      (r) => {
        // Only a success is recorded: a failed answer is asked again next time.
        if (req.method === 'GET' && r.status === 200) recorded.set(key, r);
        send(r);
      },
      (err: Error) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `replay: ${err.message}` }));
      },
    );
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`https://127.0.0.1:${port}\n`);
});
const stop = () => server.close(() => void sim.close().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
