import { createHash } from 'node:crypto';
import { copyFile } from 'node:fs/promises';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEmbedded } from './db.ts';
import { MIGRATIONS_DIR, migrate } from './migrate.ts';

// A migrated embedded data directory made once (at `npm install`, bin/build.mjs), copied into a new
// data directory instead of running initdb and every migration there: initdb alone was most of a
// first start (about 5 s of a fresh `npm start`'s 8.7), a copy of the 41 MB directory is a tenth of
// a second. A template is used only when it was made by the same PGlite from the same migration
// files (its key): any other store starts the usual way, so a template can never hand out a schema
// the code does not expect. After the copy the store is migrated as always (nothing to apply).

const BUILD_DIR = fileURLToPath(new URL('../../.build/', import.meta.url));

/** PGlite's version and every migration file's name and text (`migrations`: the tests' own copy). */
export function templateKey(migrations = MIGRATIONS_DIR): string {
  const hash = createHash('sha256');
  const pglite = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json');
  hash.update(JSON.parse(readFileSync(pglite, 'utf8')).version);
  for (const file of readdirSync(migrations).filter((f) => f.endsWith('.sql')).sort()) {
    hash.update(`\0${file}\0`).update(readFileSync(join(migrations, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

export const templateDir = (key = templateKey()) => join(BUILD_DIR, `pgdata-${key}`);

/** Makes the template for the current migrations unless it exists; returns its directory. */
export async function makeTemplate(): Promise<string> {
  const key = templateKey();
  const dir = templateDir(key);
  if (existsSync(join(dir, 'PG_VERSION'))) return dir;
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  const db = await openEmbedded({ dir: tmp });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  try {
    renameSync(tmp, dir);
  } catch (err) {
    // Another install made it meanwhile: theirs is as good.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(join(dir, 'PG_VERSION'))) throw err;
  }
  for (const old of readdirSync(BUILD_DIR).filter((d) => d.startsWith('pgdata-') && !d.endsWith('.tmp') && d !== `pgdata-${key}`)) {
    rmSync(join(BUILD_DIR, old), { recursive: true, force: true });
  }
  return dir;
}

/** Files copied at once: the copies run in libuv's thread pool. */
const COPIES_IN_FLIGHT = 8;

/**
 * Copies the template asynchronously, so the service starts its certificate and simulators
 * meanwhile (app/service.ts), several files at a time: fs.promises.cp copies one file after
 * another and took longer than cpSync (3.5-4.5 s against 2.8 s of wall time for the 41 MB, 1,196
 * files, under load), this 2.1-2.4 s. A template holds only directories and regular files.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const entries = readdirSync(from, { withFileTypes: true, recursive: true });
  // Directories keep their modes, as cpSync kept them (PostgreSQL checks its data directory's).
  const directory = (rel: string) => {
    mkdirSync(join(to, rel), { recursive: true });
    chmodSync(join(to, rel), statSync(join(from, rel)).mode);
  };
  directory('');
  const files: string[] = [];
  for (const entry of entries) {
    const rel = relative(from, join(entry.parentPath, entry.name));
    if (entry.isDirectory()) directory(rel);
    else if (entry.isFile()) files.push(rel);
    else throw new Error(`the store template ${from} holds ${rel}, neither a file nor a directory`);
  }
  let next = 0;
  const copier = async () => {
    while (next < files.length) {
      const rel = files[next++]!;
      await copyFile(join(from, rel), join(to, rel));
    }
  };
  await Promise.all(Array.from({ length: COPIES_IN_FLIGHT }, copier));
}

/**
 * Fills `dir`, a data directory without a database yet, from the template when there is one for
 * the current migrations; false otherwise (the store is then created by initdb). Copied beside and
 * renamed into place, so a copy cut short never looks like a database.
 */
export async function seedFromTemplate(dir: string): Promise<boolean> {
  if (existsSync(join(dir, 'PG_VERSION'))) return false;
  if (existsSync(dir) && readdirSync(dir).length > 0) return false;
  const template = templateDir();
  if (!existsSync(join(template, 'PG_VERSION'))) return false;
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  await copyTree(template, tmp);
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return true;
}
