// The SDK's overhead per call (issue 17): GET bill through `@tableside/sdk` against the same GET sent
// with raw `fetch`, in the same run, against one `tableside serve --sandbox` process (embedded store),
// so the service's work is the same on both sides and only the client differs:
//   sequential        BENCH_SDK_REQUESTS calls one after the other, mean latency per call
//   concurrency 16    the same number of calls, 16 in flight, mean latency per call
// Rounds alternate raw / SDK (BENCH_SDK_ROUNDS, default 10 each, of BENCH_SDK_REQUESTS calls) so drift
// in the machine's load hits both alike; the figures are the means over rounds and the ratio is the
// median of the rounds' ratios (each SDK round against the raw round beside it). At 16 in flight the
// sandbox's live bill (its in-process POS simulator) bounds both sides, so a round's ratio is mostly
// the service's speed in those seconds: four rounds' means gave 0.94x to 1.14x on unchanged code. Also printed: this process's CPU per call on each
// side (the SDK's own cost, in microseconds). Goal: SDK / raw <= 1.1.
//
//   node bin/run-ts.mjs bench/sdk.ts
//
// Both sides use Node's fetch with the same undici Agent settings (one Agent each) and parse the JSON.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { createTablesideClient, unwrap } from '../sdk/src/index.ts';
import { multipleRow, record } from './lib/results.ts';

const ROOT = join(import.meta.dirname, '..');
const REQUESTS = Number(process.env.BENCH_SDK_REQUESTS ?? 600);
const ROUNDS = Number(process.env.BENCH_SDK_ROUNDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const dir = mkdtempSync(join(tmpdir(), 'tableside-bench-sdk-'));

const child = spawn(process.execPath, [join(ROOT, 'bin/tableside.mjs'), 'serve', '--sandbox'], {
  cwd: ROOT,
  env: { ...process.env, PORT: '0', TABLESIDE_DATA: dir, LOG_LEVEL: 'warn', DATABASE_URL: '' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const agents: Agent[] = [];
try {
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c;
      if (/Tableside listening on https:\/\//.test(out)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}`)));
  });
  const sandbox = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'));
  const ca = readFileSync(join(dir, 'tls.crt'), 'utf8');
  const agent = () => {
    const a = new Agent({ connect: { ca }, keepAliveTimeout: 10_000, connections: CONCURRENCY * 2 });
    agents.push(a);
    return a;
  };
  const rawAgent = agent();
  const sdkAgent = agent();
  const authorization = `Bearer ${sandbox.accessToken}`;
  const venueId: string = sandbox.venueIds[0];

  // Raw fetch: what a partner writes by hand.
  const rawGet = async (path: string) => {
    const res = await fetch(sandbox.baseUrl + path, { headers: { authorization, accept: 'application/json' }, dispatcher: rawAgent } as RequestInit);
    if (!res.ok) throw new Error(`GET ${path} → ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const client = createTablesideClient({
    baseUrl: sandbox.baseUrl,
    accessToken: sandbox.accessToken,
    fetch: (request) => fetch(request, { dispatcher: sdkAgent } as RequestInit),
  });

  // A table with an open bill.
  const { tables } = (await rawGet(`/v1/pat/venue/${venueId}/tables`)) as { tables: Array<{ id: string }> };
  let tableId = '';
  for (const t of tables) {
    const res = await fetch(`${sandbox.baseUrl}/v1/pat/venue/${venueId}/table/${t.id}/bill`, { headers: { authorization }, dispatcher: rawAgent } as RequestInit);
    await res.arrayBuffer();
    if (res.status === 200) {
      tableId = t.id;
      break;
    }
  }
  if (!tableId) throw new Error('no open bill in the sandbox');
  const path = `/v1/pat/venue/${venueId}/table/${tableId}/bill`;
  const params = { params: { path: { venueId, tableId } } };

  const sides = {
    raw: () => rawGet(path),
    sdk: async () => unwrap(await client.GET('/v1/pat/venue/{venueId}/table/{tableId}/bill', params)),
  };

  async function measure(call: () => Promise<unknown>, concurrency: number): Promise<{ mean: number; rps: number; cpuUs: number }> {
    let issued = 0;
    let total = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (issued < REQUESTS) {
        issued++;
        const s = performance.now();
        await call();
        total += performance.now() - s;
      }
    }));
    const elapsed = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { mean: total / REQUESTS, rps: (REQUESTS / elapsed) * 1000, cpuUs: (cpu.user + cpu.system) / REQUESTS };
  }

  // Warm both (connections, JIT, the service's caches).
  for (let i = 0; i < 300; i++) await sides.raw();
  for (let i = 0; i < 300; i++) await sides.sdk();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  for (const [label, concurrency] of [['sequential', 1], [`concurrency ${CONCURRENCY}`, CONCURRENCY]] as const) {
    const acc = { raw: { mean: 0, rps: 0, cpuUs: 0 }, sdk: { mean: 0, rps: 0, cpuUs: 0 } };
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order: Array<'raw' | 'sdk'> = r % 2 === 0 ? ['raw', 'sdk'] : ['sdk', 'raw'];
      const round = { raw: 0, sdk: 0 };
      for (const side of order) {
        const m = await measure(sides[side], concurrency);
        round[side] = m.mean;
        acc[side].mean += m.mean / ROUNDS;
        acc[side].rps += m.rps / ROUNDS;
        acc[side].cpuUs += m.cpuUs / ROUNDS;
      }
      ratios.push(round.sdk / round.raw);
    }
    const ratio = median(ratios);
    console.log(`GET bill, ${label}: raw fetch ${acc.raw.mean.toFixed(3)} ms/call (${acc.raw.rps.toFixed(0)} req/s, client CPU ${acc.raw.cpuUs.toFixed(0)} µs/call); ` +
      `SDK ${acc.sdk.mean.toFixed(3)} ms/call (${acc.sdk.rps.toFixed(0)} req/s, client CPU ${acc.sdk.cpuUs.toFixed(0)} µs/call); ` +
      `SDK / raw by round, sorted: ${[...ratios].sort((a, b) => a - b).map((x) => x.toFixed(3)).join(' ')}; median ${ratio.toFixed(3)}`);
    // The figure and baseline are the means over rounds; the ratio is the median of the rounds' ratios.
    const row = multipleRow(`SDK GET bill, ${label}, mean per call`, acc.sdk.mean, acc.raw.mean, `raw fetch (${ROUNDS} alternated rounds; ratio: median round)`, 1.1);
    record({ ...row, ratio: `${ratio.toFixed(2)}x`, met: ratio <= 1.1 });
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  for (const a of agents) await a.close();
  rmSync(dir, { recursive: true, force: true });
}
