import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PATCHES, patchDeps } from '../../bin/patch-deps.mjs';
import { ROOT } from '../helpers/cli.ts';

// bin/patch-deps.mjs (the postinstall script) backports upstream fixes into node_modules: it must
// change exactly the text it names, do nothing where the fix is there, and stop the install where the
// code moved, never patch blindly. Run on a copy of a dependency's file in a scratch root.

const roots: string[] = [];
afterAll(() => roots.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A root whose node_modules holds each patched package with `body(patch)` as the patched file. */
function rootWith(body: (p: (typeof PATCHES)[number]) => string) {
  const root = mkdtempSync(join(tmpdir(), 'tableside-patch-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), '{"name":"x","private":true}');
  for (const p of PATCHES) {
    const dir = join(root, 'node_modules', p.pkg);
    mkdirSync(join(dir, ...p.file.split('/').slice(0, -1)), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: p.pkg, version: '0.0.0' }));
    writeFileSync(join(dir, p.file), body(p));
  }
  return { root, file: (p: (typeof PATCHES)[number]) => join(root, 'node_modules', p.pkg, p.file) };
}

describe('bin/patch-deps.mjs', () => {
  it('replaces the unfixed text with the fix once, and a second run writes nothing', () => {
    const { root, file } = rootWith((p) => `before\n${p.find}\nafter\n`);
    expect(patchDeps(root, { check: true })).toEqual(PATCHES.map((p) => `${p.pkg}/${p.file}: needs the fix`));
    for (const p of PATCHES) expect(readFileSync(file(p), 'utf8')).toBe(`before\n${p.find}\nafter\n`);
    expect(patchDeps(root)).toEqual(PATCHES.map((p) => `${p.pkg}/${p.file}: patched`));
    for (const p of PATCHES) expect(readFileSync(file(p), 'utf8')).toBe(`before\n${p.fixed}\nafter\n`);
    expect(patchDeps(root)).toEqual(PATCHES.map((p) => `${p.pkg}/${p.file}: has the fix`));
    for (const p of PATCHES) expect(readFileSync(file(p), 'utf8')).toBe(`before\n${p.fixed}\nafter\n`);
  });

  it('stops, changing nothing, where the code is not there as expected (missing, or found twice)', () => {
    for (const body of [() => 'something else\n', (p: (typeof PATCHES)[number]) => `${p.find}\n${p.find}\n`]) {
      const { root, file } = rootWith(body);
      const before = PATCHES.map((p) => readFileSync(file(p), 'utf8'));
      expect(() => patchDeps(root)).toThrow(/not there as expected/);
      expect(PATCHES.map((p) => readFileSync(file(p), 'utf8'))).toEqual(before);
    }
  });

  it('this checkout was installed with every fix (npm install ran the postinstall script)', () => {
    expect(patchDeps(ROOT, { check: true })).toEqual(PATCHES.map((p) => `${p.pkg}/${p.file}: has the fix`));
  });
});
