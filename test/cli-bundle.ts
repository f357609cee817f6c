import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions } from '../bin/build.mjs';

// The `tableside` command as the test suite spawns it: the sources bundled once per run with the
// options of bin/build.mjs (the command's own build), from an entry under test/ and into a directory
// of this run, so parallel runs and worktrees never share or rebuild each other's bundle.
// Dependencies stay external and resolve from the project's node_modules, which is why the bundle
// is written under node_modules/.cache. The real bin stays tested: the "right after install" test,
// test/operator/cli-build.test.ts and the simulator CLI test spawn it.

/** Builds the bundle in `outdir` and returns its entry file. */
export async function buildCliBundle(root: string, outdir: string): Promise<string> {
  await build(bundleOptions({ tableside: join(root, 'test', 'fixtures', 'cli-entry.ts') }, outdir));
  return join(outdir, 'tableside.mjs');
}
