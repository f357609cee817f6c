import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openEmbedded, type Db } from './db.ts';
import { migrate } from './migrate.ts';
import { awaitsStore, BUILD_DIR, copyTemplate, takeTemplateCopy, templateDir, templateKey } from './template-copy.ts';

export { templateDir, templateKey };

// A migrated embedded data directory made once (at `npm install`, bin/build.mjs), copied into a new
// data directory instead of running initdb and every migration there: initdb alone was most of a
// first start (about 5 s of a fresh `npm start`'s 8.7), a copy of the directory is a fraction of
// that (dropTemplateDatabases). A template is used only when it was made by the same PGlite from the same migration
// files (its key): any other store starts the usual way, so a template can never hand out a schema
// the code does not expect. After the copy the store is migrated as always (nothing to apply).

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
    await dropTemplateDatabases(db);
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

/**
 * initdb makes three databases; the service only ever opens `postgres` (PGlite runs one session, in
 * the database it is started on). template0 and template1 were half the template's 1,200 files, and
 * a first start's copy costs the kernel ~0.6 ms of CPU per file made here (issue 28,
 * bench/README.md): the template keeps `postgres` alone. A store made by initdb (no template) keeps
 * all three, unused as ever.
 */
async function dropTemplateDatabases(db: Db): Promise<void> {
  for (const name of ['template0', 'template1']) {
    // A template database cannot be dropped; DROP DATABASE runs outside a transaction.
    await sql.raw(`ALTER DATABASE ${name} IS_TEMPLATE false`).execute(db.kysely);
    await sql.raw(`DROP DATABASE ${name}`).execute(db.kysely);
  }
}

/**
 * Fills `dir`, a data directory without a database yet, from the template when there is one for
 * the current migrations; false otherwise (the store is then created by initdb). Copied beside and
 * renamed into place, so a copy cut short never looks like a database. The copy is the one `serve`
 * began before it loaded the service (template-copy.ts) when there is one, else made now; either way
 * in a worker thread, while the service starts its certificate and simulators (app/service.ts).
 */
export async function seedFromTemplate(dir: string): Promise<boolean> {
  const begun = takeTemplateCopy(dir);
  const template = templateDir();
  if (!awaitsStore(dir) || !existsSync(join(template, 'PG_VERSION'))) {
    if (begun) await begun.done.then(begun.discard, begun.discard);
    return false;
  }
  const copy = begun ?? copyTemplate(template, dir);
  try {
    await copy.done;
  } catch (err) {
    copy.discard();
    throw err;
  }
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(copy.tmp, dir);
  return true;
}
