import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A PostgreSQL server of the test's own (initdb + pg_ctl from Debian's /usr/lib/postgresql/*/bin in
// a temp dir, on a free loopback port), so a drill can really restart PostgreSQL without disturbing
// the machine's cluster that other tests share. As root the server runs as the `postgres` user
// (PostgreSQL refuses to run as root).

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast` (every connection dropped), then nothing listens until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (immediate) and removes its directory. */
  destroy(): void;
}

/** The newest PostgreSQL server binaries Debian installed, or null. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : null;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql/*/bin');
  const dir = mkdtempSync(join(tmpdir(), 'tableside-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
  };
  // The restart runs while a load is timed on this event loop, so it does not block it.
  const runAsync = async (tool: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    await promisify(execFile)(cmd, argv, { timeout: 60_000 });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  // fsync off: the drill restarts the server cleanly (fast shutdown), it never crashes the machine.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const startArgs = ['-D', data, '-o', options, '-w', '-t', '60', '-l', join(dir, 'log'), 'start'];
  run('pg_ctl', startArgs);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: () => runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start: () => runAsync('pg_ctl', startArgs),
    destroy() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
