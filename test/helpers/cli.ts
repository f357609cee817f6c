import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';

// Runs the `tableside` command in a child process, as an operator or a test script would: the
// run's bundle of the same sources (test/cli-bundle.ts), or with `realBin` bin/tableside.mjs itself,
// what `npx tableside` runs.

export const ROOT = join(import.meta.dirname, '..', '..');
export const REAL_BIN = join(ROOT, 'bin', 'tableside.mjs');
/** Outside vitest (bench/channels.ts) there is no run bundle to inject: the real bin runs. */
function bin(realBin = false): string {
  if (realBin) return REAL_BIN;
  try {
    return inject('cliEntry');
  } catch {
    return REAL_BIN;
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  // Children never inherit the test runner's database, data directory or CI settings by accident.
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  for (const key of ['DATABASE_URL', 'TABLESIDE_DATA', 'PORT', 'SANDBOX', 'POS_TYPES', 'TLS_CERT', 'TLS_KEY', 'TRUST_PROXY']) delete base[key];
  return { ...base, ...env };
}

export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
  { realBin = false, entry }: { realBin?: boolean; entry?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry ?? bin(realBin), ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses the single JSON object a `--json` command prints; fails if stdout holds anything else. */
export function jsonOf(result: CliResult): any {
  const lines = result.stdout.split('\n').filter((l) => l.trim() !== '');
  if (lines.length !== 1) throw new Error(`expected one JSON line on stdout, got ${lines.length}: ${result.stdout}\nstderr: ${result.stderr}`);
  return JSON.parse(lines[0]);
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  port: number;
  output(): string;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `tableside serve` and waits until it prints where it listens. `entry`: another build of the
 * command (the previous release's, test/db/rolling-upgrade.test.ts) instead of the run's bundle.
 */
export function startServe(env: Record<string, string | undefined>, args: string[] = ['serve'], timeoutMs = 60_000, { entry }: { entry?: string } = {}): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry ?? bin(), ...args], { cwd: ROOT, env: childEnv({ PORT: '0', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let settled = false;
    const exited = new Promise<number | null>((r) => child.on('exit', (code, signal) => r(code ?? (signal ? -1 : null))));
    const timer = setTimeout(() => {
      if (!settled) {
        settled = true;
        child.kill('SIGKILL');
        reject(new Error(`serve did not start in ${timeoutMs} ms:\n${out}`));
      }
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk;
      const match = /Tableside listening on (https:\/\/[^\s]+:(\d+))/.exec(out);
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve({
          child,
          url: match[1],
          port: Number(match[2]),
          output: () => out,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    // 'close', not 'exit': the output is complete only once the pipes are drained.
    child.on('close', (code) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(Object.assign(new Error(`serve exited with ${code} before listening:\n${out}`), { code, output: out }));
      }
    });
  });
}
