import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, REAL_BIN, startServe, type ServeProcess } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/streams.ts';

// Issue 30, a partner's first hour: the README's shell walk-throughs and docs/webhooks.md's receiver
// walk-through, run as written by bash against a sandbox (`tableside serve --sandbox`) on a free
// port. The directory they run in stands for the repository after `npm install && npm start`: its
// `.tableside/` is the sandbox's data directory, `npx tableside` is the repository's command and
// `standardwebhooks` is installed. Nothing of the blocks is rewritten but the receiver's port 3000
// (taken on a shared machine), replaced by a free one.

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const WEBHOOKS = readFileSync(join(ROOT, 'docs', 'webhooks.md'), 'utf8');

/** The fenced blocks of `lang` in the section under `heading` (up to the next heading of any level). */
function blocks(doc: string, heading: RegExp, lang: string): string[] {
  const sections = doc.split(/^(?=#{2,4} )/m).filter((s) => heading.test(s.split('\n', 1)[0]!));
  return sections.flatMap((s) => [...s.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!));
}

interface Script {
  /** The exit code of bash itself (what it started in the background may still run). */
  exited: Promise<number | null>;
  /** Every process of the script has ended and its output is read. */
  closed: Promise<void>;
  output(): string;
  /** Stops the whole process group: bash and whatever it left running. */
  stop(): void;
}

/** Runs a script with bash in `cwd`, in its own process group so what it leaves in the background can be stopped. */
function bash(script: string, cwd: string, timeoutMs: number): Script {
  const child = spawn('bash', ['-c', script], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_EXTRA_CA_CERTS: '' } });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(stop, timeoutMs);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return { exited, closed, output: () => out, stop };
}

let work: string;
let serve: ServeProcess | null = null;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tableside-first-hour-'));
  // What `npm install` leaves in the repository: `npx tableside` and the dependencies the docs use.
  mkdirSync(join(work, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(REAL_BIN, join(work, 'node_modules', '.bin', 'tableside'));
  symlinkSync(join(ROOT, 'node_modules', 'standardwebhooks'), join(work, 'node_modules', 'standardwebhooks'));
  serve = await startServe({ TABLESIDE_DATA: join(work, '.tableside'), PORT: String(await freePort()), POS_TIMEOUT_MS: '15000' }, ['serve', '--sandbox'], 120_000);
}, 180_000);

afterAll(async () => {
  await serve?.stop('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

describe('the README walk-throughs, as written, against a sandbox', () => {
  it('[DES-067] [DES-069] every shell block of the "Try it" and Webhooks sections runs in order with bash, and each shows what it promises', async () => {
    const script = blocks(README, /^### (Try it|Webhooks)/, 'sh');
    expect(script.length).toBeGreaterThanOrEqual(6);
    const run = bash(`set -euo pipefail\n${script.join('\n')}`, work, 240_000);
    const code = await run.exited;
    await run.closed;
    const out = run.output();
    expect(code, out).toBe(0);
    // Read a bill and pay it: the full payment closes the order; the deferred one is answered.
    expect(out).toMatch(/"orderStatus":"closed"/);
    expect(out).toMatch(/HTTP\/1\.1 20[02]/);
    // Seat a booking: the POS order is opened; the bill shows the prepayment.
    expect(out).toMatch(/"status":"opened"/);
    expect(out).toMatch(/"prepayment":10/);
    // The reference RMS: the update notice's 202 is visible (json prints nested values).
    expect(out).not.toContain('[Object]');
    expect(out).toMatch(/"status": 202/);
    // The channel API and Google's HealthCheck.
    expect(out).toMatch(/"status":"confirmed"/);
    // The conformance kits pass against the sandbox's simulators, with the README's command.
    expect(out.match(/^OK: \d+ passed, 0 failed/gm)?.length, out).toBe(2);
    expect(out).not.toMatch(/DEPTH_ZERO_SELF_SIGNED_CERT|self-signed certificate/);
    // Each answer ends with a newline: no JSON runs into the next output.
    expect(out).not.toMatch(/\}\{"/);
    // Nothing answered a 5xx.
    expect(out).not.toMatch(/"code":5\d\d/);
  }, 300_000);
});

describe('docs/webhooks.md: a receiver on localhost in the sandbox', () => {
  it('[WHK-01] the receiver as written, registered at http://localhost, prints a verified delivery', async () => {
    const port = String(await freePort());
    const receiver = blocks(WEBHOOKS, /^## Verifying a delivery/, 'js')[0]!;
    const [steps] = blocks(WEBHOOKS, /^## Walk-through: a receiver on localhost/, 'sh');
    expect(receiver).toContain('verify-webhook.mjs');
    writeFileSync(join(work, 'verify-webhook.mjs'), receiver.replace('.listen(3000)', `.listen(${port})`));
    const run = bash(`set -euo pipefail\n${steps!.replaceAll('localhost:3000', `localhost:${port}`)}`, work, 60_000);
    try {
      expect(await run.exited, run.output()).toBe(0);
      expect(run.output()).toMatch(/"status":"succeeded","responseCode":204/);
      // The receiver, still running in the background, prints once it has verified and answered: it answers
      // first, so its line can land before or inside curl's answer (no newline until the `echo`); not anchored.
      await eventually(() => expect(run.output()).toMatch(/verified webhook\.test [0-9a-f-]{36} null /), { what: 'the verified delivery printed' });
    } finally {
      run.stop();
    }
  }, 120_000);
});
