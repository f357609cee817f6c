// Start-up (issue 28): how long a newcomer waits for the sandbox, against the floor of this stack
// (bench/floor-server.mjs: a bare Fastify HTTPS server opening PGlite in a data directory and
// answering /healthz after SELECT 1), both measured the same way in the same run:
//   fresh     a new data directory: spawn, then poll GET /healthz until the first 200
//   restart   the same again on the data directory the fresh start left
//   CLI       `tableside partner create --json` against a running sandbox, spawn to exit
// What runs is a fresh clone of this repository's HEAD (git clone into a temporary directory,
// node_modules a symlink to this checkout's; the clone's own `node bin/build.mjs` is run first, the
// part of `npm install`'s `prepare` that this bench's start depends on, and its time printed as
// what install costs more). Both servers are spawned as `node <file>` (`npm start` runs
// `node bin/tableside.mjs serve --sandbox`; npm's own start-up is left out on both sides). Rounds
// interleave the two, alternating which goes first; the figures are medians (spread printed), plus
// each process's CPU (user + system, /proc) at its first 200: the machine is shared, CPU is steadier
// than wall time.
//
//   node bin/run-ts.mjs bench/start.ts        BENCH_START_ROUNDS (5), BENCH_START_CLI_RUNS (5)
//
// Every process is spawned in its own process group and stopped (SIGTERM, then SIGKILL after 10 s)
// in finally blocks and on SIGINT/SIGTERM of this bench; the clone is removed at the end.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateSelfSigned } from '../src/lib/tls.ts';
import { record, type ResultRow } from './lib/results.ts';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 5);
const CLI_RUNS = Number(process.env.BENCH_START_CLI_RUNS ?? 5);
const START_TIMEOUT_MS = Number(process.env.BENCH_START_TIMEOUT_MS ?? 180_000);
const CLK_TCK_MS = 10; // /proc's clock ticks: 100 a second on Linux

const work = mkdtempSync(join(tmpdir(), 'tableside-bench-start-'));
const clone = join(work, 'tableside');
const running = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}
const onSignal = (signal: NodeJS.Signals) => {
  for (const child of running) killGroup(child, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
  process.exit(signal === 'SIGINT' ? 130 : 143);
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function healthz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** user + system CPU of a live process so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLK_TCK_MS;
}

interface Started {
  ms: number;
  cpuMs: number;
  child: ChildProcess;
}

/** Spawns `args` in the clone and waits for its first 200 on /healthz. */
async function start(args: string[], dataDir: string): Promise<Started> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: clone,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', TABLESIDE_DATA: dataDir, DATABASE_URL: '', NODE_OPTIONS: '' },
  });
  running.add(child);
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`${args.join(' ')} exited before answering:\n${stderr}`);
    if (performance.now() - t0 > START_TIMEOUT_MS) throw new Error(`${args.join(' ')}: no 200 on /healthz in ${START_TIMEOUT_MS} ms`);
    if ((await healthz(port)) === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { ms: performance.now() - t0, cpuMs: cpuMs(child.pid!), child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  // Whatever it left in its group.
  killGroup(child, 'SIGKILL');
  running.delete(child);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => `${(Math.min(...xs) / 1000).toFixed(2)}-${(Math.max(...xs) / 1000).toFixed(2)} s`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function timeRow(scenario: string, value: number, base: number, baseLabel: string, times: number): ResultRow {
  const r = value / base;
  return { scenario, figure: secs(value), baseline: `${baseLabel} ${secs(base)}`, ratio: `${r.toFixed(2)}x`, goal: `<= ${times}x`, met: r <= times };
}

function run(cmd: string, args: string[], cwd: string): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return performance.now() - t0;
}

try {
  // A fresh clone as a newcomer has it after `npm install`: HEAD, the dependencies, the build.
  run('git', ['clone', '--quiet', ROOT, clone], work);
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  const buildMs = run(process.execPath, ['bin/build.mjs'], clone);
  console.log(`install: \`node bin/build.mjs\` (the CLI bundle and the migrated store template, in prepare) took ${secs(buildMs)}`);
  const tls = await generateSelfSigned();
  writeFileSync(join(work, 'floor.crt'), tls.cert);
  writeFileSync(join(work, 'floor.key'), tls.key);

  const floorArgs = [join(clone, 'bench', 'floor-server.mjs'), join(work, 'floor.crt'), join(work, 'floor.key')];
  const tablesideArgs = [join(clone, 'bin', 'tableside.mjs'), 'serve', '--sandbox'];
  const sides = { floor: floorArgs, tableside: tablesideArgs } as const;
  const fig: Record<string, { ms: number[]; cpu: number[] }> = {};
  const note = (key: string, s: Started) => {
    (fig[key] ??= { ms: [], cpu: [] }).ms.push(s.ms);
    fig[key].cpu.push(s.cpuMs);
    console.log(`  ${key.padEnd(18)} ${secs(s.ms)} (CPU ${secs(s.cpuMs)})`);
  };
  let cliData = '';
  for (let round = 0; round < ROUNDS; round++) {
    console.log(`round ${round + 1}/${ROUNDS}`);
    const order = (round % 2 ? ['floor', 'tableside'] : ['tableside', 'floor']) as Array<keyof typeof sides>;
    for (const side of order) {
      const dataDir = mkdtempSync(join(clone, `.data-${side}-`));
      for (const phase of ['fresh', 'restart']) {
        const s = await start(sides[side], dataDir);
        try {
          note(`${side} ${phase}`, s);
        } finally {
          await stop(s.child);
        }
      }
      if (side === 'tableside') cliData = dataDir;
    }
  }

  // The CLI against a running sandbox (the last round's data directory).
  const server = await start(tablesideArgs, cliData);
  const cli: number[] = [];
  const bare: number[] = [];
  try {
    for (let i = 0; i < CLI_RUNS; i++) {
      bare.push(run(process.execPath, ['-e', '0'], clone));
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [join(clone, 'bin', 'tableside.mjs'), 'partner', 'create', '--name', `Bench ${i}`, '--access', 'pat', '--json'], {
        cwd: clone,
        encoding: 'utf8',
        env: { ...process.env, TABLESIDE_DATA: cliData, DATABASE_URL: '', NODE_OPTIONS: '' },
      });
      cli.push(performance.now() - t0);
      if (r.status !== 0 || !JSON.parse(r.stdout).partnerId) throw new Error(`partner create failed: ${r.stderr}`);
    }
  } finally {
    await stop(server.child);
  }
  console.log(`  CLI partner create  ${cli.map(secs).join(', ')}; node -e 0: ${bare.map(secs).join(', ')}`);

  for (const [key, f] of Object.entries(fig)) {
    console.log(`${key}: median ${secs(median(f.ms))} (spread ${spread(f.ms)}), CPU median ${secs(median(f.cpu))} (spread ${spread(f.cpu)})`);
  }
  const ts = (k: string) => median(fig[k]!.ms);
  record(timeRow('start, fresh clone + fresh data dir, to first /healthz 200 (median)', ts('tableside fresh'), ts('floor fresh'), 'floor fresh', 0.6));
  record(timeRow('restart, data dir there, to first /healthz 200 (median)', ts('tableside restart'), ts('floor restart'), 'floor restart', 1.5));
  const c = median(cli);
  const b = median(bare);
  record({ scenario: 'CLI `partner create --json` against a running sandbox (median)', figure: secs(c), baseline: `node -e 0 ${secs(b)}`, ratio: `${(c / b).toFixed(2)}x`, goal: '<= 1 s', met: c <= 1000 });
} finally {
  for (const child of [...running]) await stop(child);
  rmSync(work, { recursive: true, force: true });
}
