import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbedded } from '../../src/db/db.ts';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { makeTemplate, seedFromTemplate, templateDir, templateKey } from '../../src/db/template.ts';
import { startTemplateCopy } from '../../src/db/template-copy.ts';

// Issue 28: a new embedded data directory is a copy of a migrated template made at `npm install`
// (bin/build.mjs), so a first start runs no initdb. The copy must be a store of its own, as migrated
// as one made by initdb and every migration, and a template is never used for other migrations.

const work = mkdtempSync(join(tmpdir(), 'tableside-template-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the pre-initialised embedded store', () => {
  it('a new data directory copied from the template has every migration applied and is independent of another copy', async () => {
    const template = await makeTemplate();
    expect(template).toBe(templateDir());
    const a = join(work, 'a', 'pgdata');
    const b = join(work, 'b', 'pgdata');
    mkdirSync(join(work, 'a'));
    mkdirSync(join(work, 'b'));
    expect(await seedFromTemplate(a)).toBe(true);
    expect(await seedFromTemplate(b)).toBe(true);
    const dbA = await openEmbedded({ dir: a });
    const dbB = await openEmbedded({ dir: b });
    try {
      expect(await migrate(dbA)).toEqual({ applied: [] });
      const names = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(dbA.kysely)).rows.map((r) => r.name);
      expect(names).toEqual(readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort().map((f) => f.replace(/\.sql$/, '')));
      await sql`insert into settings (key, value, updated_at) values ('template-test', '1'::jsonb, now())`.execute(dbA.kysely);
      const inB = await sql`select 1 from settings where key = 'template-test'`.execute(dbB.kysely);
      expect(inB.rows).toEqual([]);
    } finally {
      await dbA.close();
      await dbB.close();
    }
    // Nothing half-copied is left beside them.
    expect(readdirSync(join(work, 'a'))).toEqual(['pgdata']);
  }, 180_000);

  // initdb's template0 and template1 were half the files a first start copied; the service only
  // opens `postgres`.
  it('(issue 28) the template holds the postgres database alone, and a store copied from it opens, migrates and writes', async () => {
    const template = await makeTemplate();
    expect(readdirSync(join(template, 'base'))).toHaveLength(1);
    mkdirSync(join(work, 'f'));
    const dir = join(work, 'f', 'pgdata');
    expect(await seedFromTemplate(dir)).toBe(true);
    const db = await openEmbedded({ dir });
    try {
      expect((await sql<{ datname: string }>`select datname from pg_database`.execute(db.kysely)).rows).toEqual([{ datname: 'postgres' }]);
      expect(await migrate(db)).toEqual({ applied: [] });
      await sql`insert into settings (key, value, updated_at) values ('template-db-test', '1'::jsonb, now())`.execute(db.kysely);
    } finally {
      await db.close();
    }
    const again = await openEmbedded({ dir });
    try {
      expect((await sql`select 1 from settings where key = 'template-db-test'`.execute(again.kysely)).rows).toHaveLength(1);
    } finally {
      await again.close();
    }
  }, 180_000);

  it('a data directory that already holds anything is never overwritten', async () => {
    const dir = join(work, 'c', 'pgdata');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'something'), 'x');
    expect(await seedFromTemplate(dir)).toBe(false);
    expect(readdirSync(dir)).toEqual(['something']);
  });

  it('a copy begun before the lock is taken (serve, template-copy.ts) is the one the store takes, and is the template', async () => {
    const template = await makeTemplate();
    mkdirSync(join(work, 'd'));
    const dir = join(work, 'd', 'pgdata');
    startTemplateCopy(dir);
    // Begun in this process's own directory: the data directory itself is untouched until taken.
    expect(existsSync(dir)).toBe(false);
    expect(await seedFromTemplate(dir)).toBe(true);
    expect(readdirSync(join(work, 'd'))).toEqual(['pgdata']);
    const files = (root: string) => readdirSync(root, { recursive: true }).map(String).sort();
    expect(files(dir)).toEqual(files(template));
    expect(readFileSync(join(dir, 'global', 'pg_control'))).toEqual(readFileSync(join(template, 'global', 'pg_control')));
  }, 180_000);

  it('a copy begun ahead for a data directory that meanwhile holds anything is thrown away, the directory untouched', async () => {
    await makeTemplate();
    const dir = join(work, 'e', 'pgdata');
    mkdirSync(join(work, 'e'));
    startTemplateCopy(dir);
    mkdirSync(dir);
    writeFileSync(join(dir, 'something'), 'x');
    expect(await seedFromTemplate(dir)).toBe(false);
    expect(readdirSync(join(work, 'e'))).toEqual(['pgdata']);
    expect(readdirSync(dir)).toEqual(['something']);
  }, 180_000);

  it('the template is keyed by the migrations: a new or an edited migration file is another key', () => {
    const copy = join(work, 'migrations');
    cpSync(MIGRATIONS_DIR, copy, { recursive: true });
    const key = templateKey(copy);
    expect(key).toBe(templateKey());
    writeFileSync(join(copy, '999_later.sql'), 'select 1;');
    const withNew = templateKey(copy);
    expect(withNew).not.toBe(key);
    const first = readdirSync(copy).filter((f) => f.endsWith('.sql')).sort()[0]!;
    writeFileSync(join(copy, first), `${readFileSync(join(copy, first), 'utf8')}\n-- edited`);
    expect(templateKey(copy)).not.toBe(withNew);
    expect(templateDir(key)).toBe(templateDir());
  });
});
