// `tableside rms-sim` as a process (BKG-10) and `tableside rms-check`'s output and exit codes (DES-141).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, expect, it, onTestFinished } from 'vitest';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { RULES, rmsCheckMain } from '../../src/rms/check/index.ts';
import { ROOT, jsonOf, runCli } from '../helpers/cli.ts';
import { freePort, sink } from '../helpers/streams.ts';

let sim: RmsSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

it('[BKG-10] tableside rms-sim --port P --json prints one JSON line once it listens, serves the contract with its certificate; rms-check passes without flags; SIGTERM exits 0', async () => {
  const data = mkdtempSync(join(tmpdir(), 'rms-sim-cli-'));
  onTestFinished(() => rmSync(data, { recursive: true, force: true }));
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'tableside.mjs'), 'rms-sim', '--port', String(port), '--api-key', 'rms-cli-key', '--json'], {
    cwd: ROOT,
    env: { ...process.env, TABLESIDE_DATA: data, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += String(d); });
  child.stderr.on('data', (d) => { stderr += String(d); });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    for (let i = 0; i < 600 && !stdout.includes('\n'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(stdout, stderr).toMatch(/\n$/);
    const line = JSON.parse(stdout);
    expect(line).toMatchObject({ baseUrl: `https://127.0.0.1:${port}`, apiKey: 'rms-cli-key', caFile: join(data, 'rms-sim', 'cert.pem') });
    expect(line.venues.map((v: { id: string }) => v.id)).toEqual(['rms-venue-1', 'rms-venue-2', 'rms-venue-3']);
    expect(line.venues[0]).toMatchObject({ timezone: 'Europe/London', currency: 'GBP', tables: expect.arrayContaining(['T1', 'T8']) });
    expect(line.venues[2]).toMatchObject({ timezone: 'America/New_York' });

    const agent = new Agent({ connect: { ca: readFileSync(line.caFile, 'utf8') } });
    const health = await request(`${line.baseUrl}/healthcheck`, { dispatcher: agent, headers: { authorization: 'Bearer rms-cli-key' } });
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    await agent.close();

    // The documented run: rms-check trusts the certificate rms-sim wrote to the data directory.
    const check = await runCli(['rms-check', '--base-url', line.baseUrl, '--api-key', 'rms-cli-key', '--venue', 'rms-venue-1', '--json'], { TABLESIDE_DATA: data });
    expect(check.code, check.stderr).toBe(0);
    const report = jsonOf(check);
    expect(report.ok).toBe(true);
    expect(report.rules.map((r: { id: string }) => r.id)).toEqual(RULES.map((r) => r.id));

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

it('[DES-141] rms-check --json prints exactly one {ok, rules:[{id,title,status,detail}]} object and exits 0; a failing rule exits 1 with one PASS/FAIL/SKIP line per rule; a kit that cannot start exits 2', async () => {
  sim = await startRmsSimulator({ seed: true });
  const dir = mkdtempSync(join(tmpdir(), 'rms-check-out-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, sim.ca);
  const base = { baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'rms-venue-1', caFile };

  const jsonOut = sink();
  expect(await rmsCheckMain({ ...base, json: true }, jsonOut)).toBe(0);
  expect(jsonOut.text.trim().split('\n')).toHaveLength(1);
  const parsed = JSON.parse(jsonOut.text);
  expect(parsed).toMatchObject({ ok: true, venue: 'rms-venue-1', baseUrl: sim.baseUrl });
  for (const r of parsed.rules) expect(r).toEqual({ id: expect.any(String), title: expect.any(String), status: 'pass', detail: expect.any(String) });

  await sim.control.setBroken('search-ignores-dates');
  const human = sink();
  expect(await rmsCheckMain(base, human)).toBe(1);
  const lines = human.text.trim().split('\n');
  const ruleLines = lines.slice(0, -1);
  expect(ruleLines).toHaveLength(RULES.length);
  for (const l of ruleLines) expect(l).toMatch(/^(PASS|FAIL|SKIP) {2}[a-z-]+ {2}.+ — .+$/);
  expect(ruleLines.filter((l) => l.startsWith('FAIL'))).toEqual([expect.stringMatching(/^FAIL {2}search {2}.* — .*the dates are not applied/)]);
  expect(lines.at(-1)).toMatch(/^NOT CONFORMING: \d+ passed, 1 failed, \d+ skipped$/);

  const errOut = sink();
  expect(await rmsCheckMain({ ...base, baseUrl: sim.baseUrl.replace('https:', 'http:') }, sink(), errOut)).toBe(2);
  expect(errOut.text).toMatch(/^rms-check: .*https/);
});

it('[DES-141] the rms-check CLI exits non-zero when a rule fails (wrong key: every call is refused)', async () => {
  sim = await startRmsSimulator({ seed: true });
  const dir = mkdtempSync(join(tmpdir(), 'rms-check-cli-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, sim.ca);
  const result = await runCli(['rms-check', '--base-url', sim.baseUrl, '--api-key', 'not-the-key', '--venue', 'rms-venue-1', '--ca', caFile, '--json']);
  expect(result.code).toBe(1);
  const report = jsonOf(result);
  expect(report.ok).toBe(false);
  expect(report.rules.find((r: { id: string }) => r.id === 'healthcheck')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/401/) });
});
