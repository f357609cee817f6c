import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './private-postgres.ts';
import { testTls } from './http.ts';

// A real HAProxy (Debian's package) on loopback in front of `tableside serve` replicas, set up as
// docs/deploy.md describes: it terminates TLS (the test certificate), sets X-Forwarded-Proto and
// X-Forwarded-For (the replicas run with TRUST_PROXY=1), speaks HTTPS to the replicas and
// health-checks GET /readyz. It retries only a connection that failed (nothing was sent, so a POST
// is never sent twice), on another replica (`option redispatch`).

export interface HaProxy {
  /** https://127.0.0.1:<port> */
  url: string;
  /** Stops HAProxy (SIGKILL of its process group). */
  stop(): Promise<void>;
}

/** Installs Debian's haproxy when it is missing (as the drill's brief and .ci/run do). */
export function ensureHaproxy(): string {
  const found = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' });
  if (found.status === 0) return found.stdout.trim();
  const install = spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy'], { encoding: 'utf8', timeout: 300_000 });
  if (install.status !== 0) throw new Error(`installing haproxy failed: ${install.stdout}${install.stderr}`);
  return spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
}

const envelope = (code: number, message: string) => JSON.stringify({ error: { code, message, details: null } });

export function haproxyConfig(opts: { port: number; pem: string; replicas: number[] }): string {
  return [
    'global',
    '  maxconn 4000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    // Only a connection that could not be made is retried (the request was not sent): never a POST
    // a replica may have received. A request in flight on a replica that dies is answered 502.
    '  retries 3',
    '  retry-on conn-failure',
    '  option redispatch 1',
    'frontend fleet',
    `  bind 127.0.0.1:${opts.port} ssl crt ${opts.pem}`,
    '  option forwardfor',
    '  http-request set-header X-Forwarded-Proto https',
    '  default_backend replicas',
    // HAProxy's own answers carry the service's error envelope; its 503 (no replica is up: the
    // database is unreachable, so every /readyz fails) says when to retry, as the service's do.
    `  http-error status 503 content-type application/json string '${envelope(503, 'No replica is available; retry later.')}' hdr Retry-After 1`,
    `  http-error status 502 content-type application/json string '${envelope(502, 'The replica closed the connection without answering.')}'`,
    `  http-error status 504 content-type application/json string '${envelope(504, 'The replica did not answer in time.')}'`,
    'backend replicas',
    '  balance roundrobin',
    // The replicas refuse a request without X-Forwarded-Proto: https (TRUST_PROXY), the check's too.
    '  option httpchk',
    '  http-check send meth GET uri /readyz hdr X-Forwarded-Proto https',
    '  http-check expect status 200',
    // A check a second: two failures take a replica out (a killed one is also skipped at once: its
    // refused connection is retried on another), two successes put it back. A slow check on a busy
    // machine is not a dead replica, so a check may take 5 s.
    '  timeout check 5s',
    '  default-server ssl verify none check inter 1s fall 2 rise 2',
    ...opts.replicas.map((p, i) => `  server r${i} 127.0.0.1:${p}`),
    '',
  ].join('\n');
}

export async function startHaproxy(replicaPorts: number[]): Promise<HaProxy> {
  const bin = ensureHaproxy();
  const dir = mkdtempSync(join(tmpdir(), 'tableside-haproxy-'));
  const tls = testTls();
  const pem = join(dir, 'lb.pem');
  writeFileSync(pem, `${tls.cert.trim()}\n${tls.key.trim()}\n`);
  const port = await freePort();
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig({ port, pem, replicas: replicaPorts }));
  const check = spawnSync(bin, ['-c', '-q', '-f', cfg], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy rejected its configuration: ${check.stdout}${check.stderr}`);
  const child: ChildProcess = spawn(bin, ['-db', '-f', cfg], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `https://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${err}`);
    if (await listening(port)) break;
    if (i > 100) throw new Error(`haproxy did not listen: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
  };
}

/** Whether something accepts a TCP connection on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}
