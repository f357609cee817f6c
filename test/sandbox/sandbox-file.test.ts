import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { writeSandboxJson } from '../../src/sandbox/ports.ts';

// sandbox.json is written as a start goes (src/sandbox/ports.ts, writeSandboxJson): renamed into place
// (a reader never sees half of it), readable by its owner only, and left as it is when unchanged.

const dir = mkdtempSync(join(tmpdir(), 'tableside-sandbox-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('sandbox.json is written whole, for its owner only, and not rewritten when it already holds the same text', () => {
  const file = join(dir, 'sandbox.json');
  writeSandboxJson(file, { partnerId: 'p1', apiKey: 'k' });
  expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify({ partnerId: 'p1', apiKey: 'k' }, null, 2)}\n`);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const { ino, mtimeMs } = statSync(file);

  writeSandboxJson(file, { partnerId: 'p1', apiKey: 'k' });
  expect(statSync(file).ino).toBe(ino);
  expect(statSync(file).mtimeMs).toBe(mtimeMs);

  writeSandboxJson(file, { partnerId: 'p1', apiKey: 'k', rmsBaseUrl: 'https://localhost:1' });
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ partnerId: 'p1', apiKey: 'k', rmsBaseUrl: 'https://localhost:1' });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readdirSync(dir)).toEqual(['sandbox.json']);
});
