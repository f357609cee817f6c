// The `tableside` command compiled once, not at every start. Node 20 cannot run TypeScript, and
// transpiling the sources through tsx at every start cost about 1.5 s of CPU per process. This
// bundles src/main.ts with esbuild (code splitting, so a command still loads only what it imports;
// the dependencies bundled too but for a few, see EXTERNAL) into .build/cli-<id>/, and records the
// exact inputs esbuild read (its metafile) with their size and mtime. `ensureBuilt()` reuses the
// build while every input is unchanged and rebuilds otherwise, so a dev checkout never runs stale
// code. `npm install` builds it (the `prepare` script) together with the pre-initialised embedded
// store (src/db/template.ts).
//
//   node bin/build.mjs        build now if stale, and the store template (prints where)
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BUILD_DIR = join(ROOT, '.build');
const MANIFEST = join(BUILD_DIR, 'cli.json');
/** Builds kept besides the newest: a process already running an older one still loads its chunks lazily. */
const KEEP_OLD = 2;

/** [size, mtimeMs] of a file, or null when it is gone. */
function stamp(file) {
  try {
    const s = statSync(file);
    return [s.size, s.mtimeMs];
  } catch {
    return null;
  }
}

function readManifest() {
  try {
    return JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return null;
  }
}

/** The entry of the current build, or null when there is none or any input changed since. */
export function freshBuild() {
  const m = readManifest();
  if (!m || m.root !== ROOT || m.node !== process.version.split('.')[0]) return null;
  for (const [file, size, mtime] of m.inputs) {
    const s = stamp(file);
    if (!s || s[0] !== size || s[1] !== mtime) return null;
  }
  const entry = join(BUILD_DIR, m.dir, 'main.mjs');
  return existsSync(entry) ? entry : null;
}

/** Each source module keeps its own import.meta.url: the migrations and the guides are found by it. */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, ({ path }) => {
      if (path.includes('/node_modules/')) return undefined;
      return { contents: readFileSync(path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)), loader: 'ts' };
    });
  },
};

/**
 * The swagger plugins find files beside their own modules through `__dirname` (@fastify/swagger its
 * package.json, @fastify/swagger-ui the docs page's logo and assets), which a bundle does not have:
 * each of their modules gets its own directory in node_modules instead, as the sources get their
 * import.meta.url. Bundled, they and their dependencies (yaml, @fastify/static, json-schema-resolver)
 * are no longer read file by file at every start: loading them from node_modules was the larger
 * part of building the app (issue 28, bench/README.md).
 */
const OWN_DIRNAME = /\/node_modules\/@fastify\/swagger(-ui)?\/.*\.js$/;
const ownDirname = {
  name: 'own-dirname',
  setup(b) {
    b.onLoad({ filter: OWN_DIRNAME }, ({ path }) => {
      const text = readFileSync(path, 'utf8');
      if (!text.includes('__dirname')) return undefined;
      return { contents: text.replaceAll('__dirname', JSON.stringify(dirname(path))), loader: 'js' };
    });
  },
};

/**
 * Dependencies left out of the bundle, loaded from node_modules as before: each reads files next to
 * its own module (PGlite its WebAssembly and data, pino its transports' worker files), or is not a
 * runtime dependency (esbuild, tsx; pg's optional pg-native is not installed).
 */
const EXTERNAL = ['@electric-sql/pglite', 'pino', 'pg-native', 'esbuild', 'tsx'];

/**
 * The esbuild options of a bundle of the sources and their dependencies (code splitting, so a
 * command loads only what it imports; each source module its own import.meta.url), shared by this
 * build and the test suite's (test/cli-bundle.ts). The dependencies are bundled too: loading them
 * from node_modules file by file (Node 20 has no compile cache) was about 0.85 s of CPU at every
 * start, resolving and reading some 1,300 files, against about 0.35 s bundled (import of the service
 * chunk alone, same machine, same minute). A bundled CommonJS dependency's require() of a Node
 * module or of an external package goes through the banner's require.
 */
export function bundleOptions(entryPoints, outdir) {
  return {
    entryPoints,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    outdir,
    outExtension: { '.js': '.mjs' },
    plugins: [ownImportMetaUrl, ownDirname],
    absWorkingDir: ROOT,
    logLevel: 'warning',
    // Every start compiles the chunks it loads (Node 20 has no compile cache for ES modules): without
    // comments and spaces, and with syntax shortened, there is less to scan (issue 28: importing the
    // service chunk 434 -> 395 ms of CPU, medians of 16 alternated). Names are kept (stack traces,
    // Fastify's plugin names); a linked source map points a trace back at the sources with
    // `node --enable-source-maps`, and costs nothing at a start without it.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
  };
}

/** Builds into a new directory, then switches the manifest to it (a rename: concurrent starts never see half a build). */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  const id = `cli-${Date.now().toString(36)}-${process.pid}`;
  const outdir = join(BUILD_DIR, id);
  mkdirSync(BUILD_DIR, { recursive: true });
  // Stamped before the build: a file edited while esbuild reads it makes the next start rebuild.
  const result = await esbuild({
    // db-template: the pre-initialised embedded store's maker (src/db/template.ts), run at install.
    ...bundleOptions({ main: join(ROOT, 'src', 'main.ts'), 'db-template': join(ROOT, 'src', 'db', 'template.ts') }, outdir),
    metafile: true,
  });
  // This file too: a change to how the bundle is made (what is external, the plugins) rebuilds it.
  const inputs = [...Object.keys(result.metafile.inputs).map((rel) => join(ROOT, rel)), fileURLToPath(import.meta.url)]
    .map((file) => [file, ...(stamp(file) ?? [-1, -1])]);
  const tmp = `${MANIFEST}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ root: ROOT, node: process.version.split('.')[0], dir: id, inputs }));
  renameSync(tmp, MANIFEST);
  pruneOldBuilds(id);
  return join(outdir, 'main.mjs');
}

function pruneOldBuilds(current) {
  const old = readdirSync(BUILD_DIR)
    .filter((d) => d.startsWith('cli-') && d !== current)
    .map((d) => ({ d, t: statSync(join(BUILD_DIR, d)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { d } of old.slice(KEEP_OLD)) rmSync(join(BUILD_DIR, d), { recursive: true, force: true });
}

/**
 * The entry to import: the current build, rebuilt first when a source changed. null when esbuild is
 * not installed (`npm install --omit=dev`): the caller falls back to tsx.
 */
export async function ensureBuilt() {
  const fresh = freshBuild();
  if (fresh) return fresh;
  try {
    await import('esbuild');
  } catch {
    return null;
  }
  return build();
}

/** The migrated embedded store new data directories are copied from (src/db/template.ts). */
async function makeTemplate(entry) {
  if (entry) return (await import(join(dirname(entry), 'db-template.mjs'))).makeTemplate();
  const { register } = await import('tsx/esm/api');
  register();
  return (await import('../src/db/template.ts')).makeTemplate();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const entry = await ensureBuilt();
  process.stdout.write(`tableside command: ${entry ?? 'esbuild is not installed, it runs through tsx'}\n`);
  process.stdout.write(`embedded store template: ${await makeTemplate(entry)} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}
