import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

// The `tableside` command as the test suite spawns it. bin/tableside.mjs compiles every source file
// through tsx when it starts, about 1.5 s of CPU per process here, and the suite starts a hundred
// or so CLI and `serve` processes. This bundles the same sources once per run (esbuild, the
// compiler tsx itself uses) with code splitting, so each command still loads only what it imports.
// Dependencies stay external and resolve from the project's node_modules, which is why the bundle
// is written under node_modules/.cache. The real bin stays tested: the "right after install" test
// and the simulator CLI test spawn it.

/** Each source module keeps its own import.meta.url (the migrations and the guides are found by it). */
const ownImportMetaUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, async ({ path }) => ({
      contents: (await readFile(path, 'utf8')).replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
      loader: 'ts',
    }));
  },
};

/** Builds the bundle in `outdir` and returns its entry file. */
export async function buildCliBundle(root: string, outdir: string): Promise<string> {
  await build({
    entryPoints: { tableside: join(root, 'test', 'fixtures', 'cli-entry.ts') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir,
    outExtension: { '.js': '.mjs' },
    plugins: [ownImportMetaUrl],
    logLevel: 'warning',
  });
  return join(outdir, 'tableside.mjs');
}
