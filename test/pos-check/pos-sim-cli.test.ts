// `pos-sim` as a process (DES-061) and pos-check's output and exit codes (DES-062).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, expect, it, onTestFinished } from 'vitest';
import { startSimulator, type Simulator } from '../../pos-simulator/src/index.ts';
import { formatPosCheckReport, posCheckMain, runPosCheck } from '../../src/pos/check/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort, sink } from '../helpers/streams.ts';

const ROOT = resolve(import.meta.dirname, '../..');

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

it('[DES-061] pos-sim --port P --json prints one JSON line, serves the contract on P with its certificate, pos-check passes without flags, SIGTERM exits 0', async () => {
  const data = mkdtempSync(join(tmpdir(), 'pos-sim-cli-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'pos-simulator/bin.ts', '--port', String(port), '--json'], {
    cwd: ROOT,
    env: { ...process.env, TABLESIDE_DATA: data },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += String(d); });
  child.stderr.on('data', (d) => { stderr += String(d); });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const savedData = process.env.TABLESIDE_DATA;
  try {
    await eventually(() => expect(stdout, stderr).toMatch(/\n$/), { what: 'the JSON line of pos-sim' });
    const line = JSON.parse(stdout);
    expect(line).toMatchObject({ baseUrl: `https://127.0.0.1:${port}`, apiKey: expect.any(String), caFile: join(data, 'pos-sim', 'cert.pem') });
    expect(line.venues.map((v: { id: string }) => v.id)).toEqual(['sim-venue-1', 'sim-venue-2']);
    expect(line.venues[0].tables.length).toBeGreaterThanOrEqual(6);
    expect(line.venues[0].skus.length).toBeGreaterThanOrEqual(8);

    const agent = new Agent({ connect: { ca: readFileSync(line.caFile, 'utf8') } });
    const res = await request(`${line.baseUrl}/venue/sim-venue-1/tables`, { dispatcher: agent, headers: { authorization: `Bearer ${line.apiKey}` } });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toHaveLength(line.venues[0].tables.length);
    await agent.close();

    // The documented run: pos-check trusts the certificate pos-sim wrote to the data directory.
    process.env.TABLESIDE_DATA = data;
    const report = await runPosCheck({ baseUrl: line.baseUrl, apiKey: line.apiKey, venue: 'sim-venue-1', payments: true, sku: line.venues[0].skus[0] });
    expect(report.rules.filter((r) => r.status !== 'pass')).toEqual([]);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
  } finally {
    if (savedData === undefined) delete process.env.TABLESIDE_DATA;
    else process.env.TABLESIDE_DATA = savedData;
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(data, { recursive: true, force: true });
  }
});

it('[DES-062] pos-check --json prints exactly one JSON object; human output is one PASS/FAIL/SKIP line per rule; exit code 1 on any failure', async () => {
  sim = await startSimulator({ seed: true });
  const base = { baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1' };
  const dir = mkdtempSync(join(tmpdir(), 'pos-check-out-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, sim.ca);

  const jsonOut = sink();
  expect(await posCheckMain({ ...base, caFile, json: true }, jsonOut)).toBe(0);
  expect(jsonOut.text.trim().split('\n')).toHaveLength(1);
  const parsed = JSON.parse(jsonOut.text);
  expect(parsed).toMatchObject({ ok: true, venue: 'sim-venue-1', baseUrl: sim.baseUrl });
  for (const r of parsed.rules) expect(r).toEqual({ id: expect.any(String), title: expect.any(String), status: expect.stringMatching(/^(pass|skip)$/), detail: expect.any(String) });

  await sim.control.setBroken('ignore-status-filter');
  const human = sink();
  expect(await posCheckMain({ ...base, caFile }, human)).toBe(1);
  const lines = human.text.trim().split('\n');
  const ruleLines = lines.slice(0, -1);
  expect(ruleLines).toHaveLength(parsed.rules.length);
  for (const l of ruleLines) expect(l).toMatch(/^(PASS|FAIL|SKIP) {2}[a-z-]+ {2}.+ — .+$/);
  expect(ruleLines.filter((l) => l.startsWith('FAIL'))).toEqual([expect.stringMatching(/^FAIL  status-filter  .* — status=open lists \d+ closed orders/)]);
  expect(lines.at(-1)).toMatch(/^NOT CONFORMING: \d+ passed, 1 failed, \d+ skipped$/);

  const errOut = sink();
  expect(await posCheckMain({ ...base, caFile: join(tmpdir(), 'no-such-ca.pem') }, sink(), errOut)).toBe(2);
  expect(errOut.text).toMatch(/^pos-check: /);
  expect(formatPosCheckReport({ ok: true, rules: [] }, { json: true })).toBe('{"ok":true,"rules":[]}\n');
});
