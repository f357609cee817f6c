import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { commandBundleOptions } from '../../bin/build.mjs';
import { ROOT, startServe } from '../helpers/cli.ts';

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
    expect(existsSync(join(copy, '.build', manifest.dir, 'serve.cjs'))).toBe(true);
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

  // `serve` runs its own build of the sources with a V8 code cache, kept in the build's own directory
  // (bin/build.mjs, loadBundle): written by the first start once the service has started, used by
  // the next, and a cache V8 refuses is compiled without and written again. It never outlives its
  // build: the edit above made a new build directory, which starts without one. The service sets a
  // V8 flag once the code is loaded (src/db/store.ts): a cache made under it was refused and
  // written again at every start.
  it("writes `serve`'s code cache once the service has started, the next start uses it, one V8 rejects is written again", async () => {
    // This checkout's store template (made at install) spares the copy an initdb.
    for (const d of readdirSync(join(ROOT, '.build')).filter((d) => d.startsWith('pgdata-') && !d.endsWith('.tmp'))) {
      if (!existsSync(join(copy, '.build', d))) symlinkSync(join(ROOT, '.build', d), join(copy, '.build', d));
    }
    const { dir } = JSON.parse(readFileSync(join(copy, '.build', 'cli.json'), 'utf8'));
    const cache = join(copy, '.build', dir, 'code-cache', 'serve.bin');
    expect(existsSync(cache)).toBe(false);
    const serve = () => startServe({ TABLESIDE_DATA: join(copy, 'data') }, ['serve'], 120_000, { entry: join(copy, 'bin', 'tableside.mjs') });
    /** Starts `serve`, runs `whileUp` and waits past the moment a cache is written (1 s after the start). */
    const run = async (whileUp = async () => {}) => {
      const server = await serve();
      try {
        await whileUp();
        await new Promise((r) => setTimeout(r, 3000));
        expect(server.child.exitCode).toBe(null);
      } finally {
        await server.stop();
      }
    };

    await run(async () => {
      const deadline = Date.now() + 30_000;
      while (!existsSync(cache) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(existsSync(cache)).toBe(true);
    });
    const written = readFileSync(cache);
    expect(written.length).toBeGreaterThan(100_000);

    await run();
    expect(readFileSync(cache).equals(written)).toBe(true);

    const garbage = Buffer.alloc(written.length, 7);
    writeFileSync(cache, garbage);
    await run();
    const rewritten = readFileSync(cache);
    expect(rewritten.equals(garbage)).toBe(false);
    expect(rewritten.length).toBeGreaterThan(100_000);
  }, 300_000);

  // Node 20's vm.Script compiled with cached data loses its importModuleDynamically: an import() in
  // a start from the cache threw "A dynamic import callback was not specified". serve.cjs has none
  // (commandBundleOptions writes them as require()); each load in its own process, as starts are.
  it("a dynamic import() in `serve`'s build still works in a start from the code cache", async () => {
    const dir = join(copy, 'dynamic-import');
    const entry = join(dir, 'entry.ts');
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    writeFileSync(entry, "export async function sep(): Promise<string> {\n  return (await import('node:path')).sep;\n}\n");
    await build(commandBundleOptions({ entry }, dir));
    const load = () =>
      spawnSync(
        process.execPath,
        ['--input-type=module', '-e', `import { loadBundle } from ${JSON.stringify(join(ROOT, 'bin', 'build.mjs'))}; const { exports, saveCodeCache } = loadBundle(${JSON.stringify(join(dir, 'entry.cjs'))}, 'x'); console.log(await exports.sep()); saveCodeCache();`],
        { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
      );
    const first = load();
    expect(first.stdout.trim(), first.stderr).toBe('/');
    expect(existsSync(join(dir, 'code-cache', 'x.bin'))).toBe(true);
    const cached = load();
    expect(cached.stdout.trim(), cached.stderr).toBe('/');
  }, 60_000);
});
