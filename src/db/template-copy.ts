import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

// Where the migrated store template is (template.ts makes it at `npm install`) and the copy of it
// into a new data directory. Apart from template.ts, which loads PGlite and the migrator: `serve`
// starts the copy (startTemplateCopy) before it loads the service's code, and the store takes it
// once it holds the data directory's lock (template.ts, seedFromTemplate).
//
// The copy (27 MB, some 600 files, about 0.15-0.35 s of CPU in the kernel) runs in a worker thread, on
// the other core while the main thread compiles the service's code. In libuv's thread pool, as
// before, it could not start that early: the ES module loader reads its files through the same four
// threads, and a copy begun ahead made the start slower (issue 28, bench/README.md); begun once the
// code was loaded, the main thread then waited for it.

export const BUILD_DIR = fileURLToPath(new URL('../../.build/', import.meta.url));
/** The migration files: migrate.ts's MIGRATIONS_DIR (this module is loaded before Kysely is). */
const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export const embeddedDbDir = (dataDir: string) => join(dataDir, 'pgdata');

/**
 * What a template holds besides the migrations (template.ts, makeTemplate); changed with it, so a
 * template made by an older install is made again rather than used.
 */
const TEMPLATE_FORMAT = 'the postgres database alone';

/** PGlite's version, the template's format and every migration file's name and text (`migrations`: the tests' own copy). */
export function templateKey(migrations = MIGRATIONS_DIR): string {
  const hash = createHash('sha256');
  hash.update(`${TEMPLATE_FORMAT}\0`);
  const pglite = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json');
  hash.update(JSON.parse(readFileSync(pglite, 'utf8')).version);
  for (const file of readdirSync(migrations).filter((f) => f.endsWith('.sql')).sort()) {
    hash.update(`\0${file}\0`).update(readFileSync(join(migrations, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

export const templateDir = (key = templateKey()) => join(BUILD_DIR, `pgdata-${key}`);

/** Whether `dir` is a data directory without a database yet: nothing there, or an empty directory. */
export function awaitsStore(dir: string): boolean {
  if (existsSync(join(dir, 'PG_VERSION'))) return false;
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/**
 * The worker's code (CommonJS, given to the Worker as text): copies `from` into `to`. Directories
 * keep their modes (PostgreSQL checks its data directory's); a template holds only directories and
 * regular files.
 */
const COPY_WORKER = `
const { workerData } = require('node:worker_threads');
const { chmodSync, copyFileSync, mkdirSync, readdirSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const { from, to } = workerData;
const directory = (rel) => {
  mkdirSync(join(to, rel), { recursive: true });
  chmodSync(join(to, rel), statSync(join(from, rel)).mode);
};
directory('');
const files = [];
for (const entry of readdirSync(from, { withFileTypes: true, recursive: true })) {
  const rel = relative(from, join(entry.parentPath, entry.name));
  if (entry.isDirectory()) directory(rel);
  else if (entry.isFile()) files.push(rel);
  else throw new Error('the store template ' + from + ' holds ' + rel + ', neither a file nor a directory');
}
for (const rel of files) copyFileSync(join(from, rel), join(to, rel));
`;

export interface TemplateCopy {
  /** Where the copy is made: beside the data directory, renamed into place by its taker. */
  tmp: string;
  /** Settles when the copy is complete (or failed). */
  done: Promise<void>;
  /** Removes the copy (a copy not taken, or one that failed). */
  discard(): void;
}

/** Copies the template into `${dir}.<pid>.tmp` in a worker thread. */
export function copyTemplate(template: string, dir: string): TemplateCopy {
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  const worker = new Worker(COPY_WORKER, { eval: true, workerData: { from: template, to: tmp } });
  const done = new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`copying the store template stopped (exit code ${code})`))));
  });
  return { tmp, done, discard: () => rmSync(tmp, { recursive: true, force: true }) };
}

/** Copies begun ahead (startTemplateCopy), by data directory, until the store takes them. */
const begun = new Map<string, TemplateCopy & { onExit: () => void }>();

/**
 * Begins the copy of the template for `dir` (a store's directory, embeddedDbDir) when it awaits a
 * store and there is a template: the store takes it (takeTemplateCopy) once it holds the data
 * directory's lock, which is only taken then. Into a directory of this process's own, so a start that
 * then finds the data directory locked by another process changes nothing of it; a copy never taken
 * is removed when the process exits.
 */
export function startTemplateCopy(dir: string): void {
  if (begun.has(dir) || !awaitsStore(dir)) return;
  const template = templateDir();
  if (!existsSync(join(template, 'PG_VERSION'))) return;
  const copy = copyTemplate(template, dir);
  // Its failure is the taker's to report; a copy never taken needs no report.
  copy.done.catch(() => {});
  const onExit = () => copy.discard();
  process.once('exit', onExit);
  begun.set(dir, { ...copy, onExit });
}

/** The copy begun ahead for `dir`, now the caller's (to rename into place or to discard), or null. */
export function takeTemplateCopy(dir: string): TemplateCopy | null {
  const copy = begun.get(dir);
  if (!copy) return null;
  begun.delete(dir);
  process.off('exit', copy.onExit);
  return copy;
}
