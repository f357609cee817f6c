import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

// Issue 28: bin/tableside.mjs runs a bundle of the sources built once (bin/build.mjs) instead of
// transpiling them at every start, and must never run stale code: in a checkout whose sources
// changed since the build, the next command rebuilds first. Run on a copy of the sources, so the
// edit touches nothing of this checkout.

const copy = mkdtempSync(join(tmpdir(), 'tableside-build-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

for (const part of ['bin', 'src', 'docs', 'pos-simulator', 'rms-simulator', 'maps-booking-simulator', 'package.json']) {
  cpSync(join(ROOT, part), join(copy, part), { recursive: true });
}
symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));

const help = () => spawnSync(process.execPath, [join(copy, 'bin', 'tableside.mjs'), '--help'], { cwd: copy, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });

describe('the tableside command, built once', () => {
  it('builds on first use, then runs the build; a changed source is rebuilt before it runs, never run stale', () => {
    const first = help();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Tableside: restaurant reservation/);
    const manifest = JSON.parse(readFileSync(join(copy, '.build', 'cli.json'), 'utf8'));
    expect(existsSync(join(copy, '.build', manifest.dir, 'main.mjs'))).toBe(true);
    expect(manifest.inputs.map((i: [string]) => i[0])).toContain(join(copy, 'src', 'main.ts'));

    const again = help();
    expect(again.status).toBe(0);
    expect(JSON.parse(readFileSync(join(copy, '.build', 'cli.json'), 'utf8')).dir).toBe(manifest.dir);

    const main = join(copy, 'src', 'main.ts');
    writeFileSync(main, readFileSync(main, 'utf8').replace('Tableside: restaurant reservation', 'Tableside (edited): restaurant reservation'));
    const edited = help();
    expect(edited.status, edited.stderr).toBe(0);
    expect(edited.stdout).toMatch(/Tableside \(edited\): restaurant reservation/);
    expect(JSON.parse(readFileSync(join(copy, '.build', 'cli.json'), 'utf8')).dir).not.toBe(manifest.dir);
  }, 120_000);
});
