// The `tableside` command compiled once, not at every start. Node 20 cannot run TypeScript, and
// transpiling the sources through tsx at every start cost about 1.5 s of CPU per process. This
// bundles src/main.ts with esbuild (code splitting, so a command still loads only what it imports;
// the dependencies bundled too but for a few, see EXTERNAL) into .build/cli-<id>/, and records the
// exact inputs esbuild read (its metafile) with their size and mtime. `ensureBuilt()` reuses the
// build while every input is unchanged and rebuilds otherwise, so a dev checkout never runs stale
// code. `npm install` builds it (the `prepare` script) together with the pre-initialised embedded
// store (src/db/template.ts).
//
// `serve` runs a second build of the same sources, one CommonJS file (serve.cjs) evaluated through
// `vm.Script` with a V8 code cache kept beside it (`loadBundle`): Node 20 has no compile cache for
// ES modules, and compiling the code a start runs was most of loading it (issue 28,
// bench/README.md). The other commands load less of the code, which the split ES modules read
// faster than the one file with its cache.
//
//   node bin/build.mjs        build now if stale, and the store template (prints where)
import { isAscii } from 'node:buffer';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

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
  // A build made before serve.cjs had none: rebuilt.
  return existsSync(entry) && existsSync(serveBundle(entry)) ? entry : null;
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
    // The licences' comments in a file of their own beside each output (<file>.LEGAL.txt) rather
    // than at its end: they are not all ASCII, and one such character made Node decode a whole
    // file as UTF-8, 35-70 ms of CPU for the service's 4.4 MB (bin/build.mjs, sourceText).
    legalComments: 'linked',
  };
}

/** The build of `serve` beside a build's entry (main.mjs). */
export const serveBundle = (entry) => join(dirname(entry), 'serve.cjs');

/**
 * `serve`'s build: the same bundle as one CommonJS file per entry (no code splitting, which
 * esbuild has for ES modules only), so that `loadBundle` can compile it with a code cache. What an
 * ES module bundle loads lazily by `import()` is initialised lazily here too (esbuild wraps it), so
 * a command still runs only the top level of what it imports. An external package is `require`d
 * (PGlite's CommonJS build: the same package and version, Node 20 resolves its `require` export),
 * also where the source imports it dynamically.
 */
export function commandBundleOptions(entryPoints, outdir) {
  const { banner: _esmRequire, ...options } = bundleOptions(entryPoints, outdir);
  return {
    ...options,
    splitting: false,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    // `import(x)` written as a require() (pino and the Node modules the sources import lazily):
    // Node 20's vm.Script compiled with cached data loses its `importModuleDynamically`, so a real
    // import() in a start from the cache threw "A dynamic import callback was not specified".
    supported: { 'dynamic-import': false },
  };
}

/** Builds into a new directory, then switches the manifest to it (a rename: concurrent starts never see half a build). */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  const id = `cli-${Date.now().toString(36)}-${process.pid}`;
  const outdir = join(BUILD_DIR, id);
  mkdirSync(BUILD_DIR, { recursive: true });
  // Stamped before the build: a file edited while esbuild reads it makes the next start rebuild.
  const [modules, serve] = await Promise.all([
    esbuild({
      // db-template: the pre-initialised embedded store's maker (src/db/template.ts), run at install.
      ...bundleOptions({ main: join(ROOT, 'src', 'main.ts'), 'db-template': join(ROOT, 'src', 'db', 'template.ts') }, outdir),
      metafile: true,
    }),
    esbuild({ ...commandBundleOptions({ serve: join(ROOT, 'src', 'main.ts') }, outdir), metafile: true }),
  ]);
  // This file too: a change to how the bundle is made (what is external, the plugins) rebuilds it.
  const read = new Set([...Object.keys(modules.metafile.inputs), ...Object.keys(serve.metafile.inputs)].map((rel) => join(ROOT, rel)));
  const inputs = [...read, fileURLToPath(import.meta.url)].map((file) => [file, ...(stamp(file) ?? [-1, -1])]);
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

/** What Node's CommonJS loader wraps a module's source in (`require('node:module').wrap`), on a line of its own. */
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {\n';

/**
 * Evaluates a CommonJS bundle of this build (`commandBundleOptions`) and returns its exports. It is
 * compiled through `vm.Script` with the V8 code cache `<dir>/code-cache/<name>.bin` when there is one,
 * so a start deserialises the functions an earlier run of the same command compiled instead of
 * parsing and compiling them again. Without a usable cache (none yet, or V8 rejects it: another V8
 * or other flags) it compiles as usual and the caller gets `saveCodeCache()`, to call once the
 * command has done what it starts to do (a later call does nothing): by then the cache holds what
 * that run compiled. The cache never decides what code runs: V8 accepts it only for this very
 * source, and a build is never changed in place (a changed input makes a new build directory,
 * `freshBuild`), so a new build starts without one. With source maps enabled (`--enable-source-maps`)
 * the file is `require`d instead, which Node maps stack traces for and `vm.Script` not.
 */
export function loadBundle(file, name) {
  if (process.sourceMapsEnabled) return { exports: createRequire(import.meta.url)(file), saveCodeCache: () => {} };
  const cacheFile = join(dirname(file), 'code-cache', `${name}.bin`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(`${WRAPPER}${sourceText(readFileSync(file))}\n})`, {
    filename: file,
    // Stack traces keep the file's own line numbers (and its source map's).
    lineOffset: -1,
    // No importModuleDynamically: the build has no import() (commandBundleOptions), which Node 20
    // would not honour for a script compiled from a cache anyway.
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  let save = cachedData && !script.cachedDataRejected ? null : () => writeCodeCache(cacheFile, cacheUnderStartFlags(script));
  return {
    exports: module.exports,
    saveCodeCache: () => {
      const s = save;
      save = null;
      s?.();
    },
  };
}

/**
 * The bundle's text. It is ASCII (esbuild escapes what is not, and its legal comments, which may
 * not be, are kept in a file of their own): as Latin-1 that is a copy of the bytes, where Node 20's
 * UTF-8 decoding of the same 4.4 MB took 35-70 ms of CPU. Decoded as UTF-8 should it ever not be.
 */
function sourceText(bytes) {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * The script's code cache as made under the V8 flags the next start compiles with: V8 refuses a
 * cache made under other flags, and the service sets one once its code is loaded (its heap
 * growing, src/db/store.ts, which records it with V8's default): back to the default
 * for this moment, then set again.
 */
function cacheUnderStartFlags(script) {
  const flags = [...(globalThis[Symbol.for('tableside.v8FlagsSetAtRunTime')] ?? new Map())];
  for (const [flag, { v8Default }] of flags) v8.setFlagsFromString(`${flag}=${v8Default}`);
  try {
    return script.createCachedData();
  } finally {
    for (const [flag, { value }] of flags) v8.setFlagsFromString(`${flag}=${value}`);
  }
}

/** Temporary file and rename: a concurrent start reads the previous cache or this one, never half of one. */
function writeCodeCache(file, data) {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch {
    // A read-only checkout, a full disk: the next start compiles again, as without a cache.
  }
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
