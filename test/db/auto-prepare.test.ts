import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PER_CONNECTION, RECUR_BEFORE_NAMING } from '../../src/db/auto-prepare.ts';
import type { Db } from '../../src/db/db.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { describeEachStore, newStore } from '../helpers/db.ts';

// Recurring statements are prepared (db/auto-prepare.ts, issue 14): a parameterised statement sent
// through Kysely becomes a named statement on its connection once its text recurs, inside
// transactions too; a statement without parameters never does; the names per connection are bounded.

describeEachStore('recurring statements', (store) => {
  let db: Db;
  beforeAll(async () => {
    db = await newStore(store);
  });
  afterAll(async () => {
    await db?.close();
  });

  /** The statements prepared on the connection the caller runs on. */
  const prepared = async (ex: Parameters<ReturnType<typeof sql>['execute']>[0]) =>
    (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(ex)).rows.map((r) => r.statement);

  it('a parameterised statement is named on its connection once its text recurs, inside a transaction, and answers as before', async () => {
    const tag = uuidv7();
    await db.kysely.transaction().execute(async (tx) => {
      const answers: number[] = [];
      for (let i = 1; i <= RECUR_BEFORE_NAMING + 2; i++) {
        const mine = (await prepared(tx)).filter((s) => s.includes(tag));
        // Named from the RECUR_BEFORE_NAMING-th run on, never before.
        expect(mine.length, `before run ${i}`).toBe(i > RECUR_BEFORE_NAMING ? 1 : 0);
        const { rows } = await sql<{ x: number }>`SELECT ${i}::int * 2 AS x, ${sql.lit(tag)}::text AS tag`.execute(tx);
        answers.push(rows[0].x);
      }
      expect(answers).toEqual([2, 4, 6, 8, 10]);
    });
  });

  it('a statement without parameters (BEGIN, COMMIT, scripts) is never named; a rolled-back transaction leaves the named one working', async () => {
    const tag = uuidv7().replace(/-/g, '');
    await db.kysely.connection().execute(async (c) => {
      for (let i = 0; i < RECUR_BEFORE_NAMING + 2; i++) await sql.raw(`SELECT 1 AS "${tag}"`).execute(c);
      expect((await prepared(c)).filter((s) => s.includes(tag))).toEqual([]);
      for (let i = 0; i < RECUR_BEFORE_NAMING; i++) await sql`SELECT ${i}::int AS ${sql.ref(tag)}`.execute(c);
      expect((await prepared(c)).filter((s) => s.includes(tag))).toHaveLength(1);
    });
    await expect(
      db.kysely.transaction().execute(async (tx) => {
        await sql`SELECT ${7}::int AS ${sql.ref(tag)}`.execute(tx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const { rows } = await sql<Record<string, number>>`SELECT ${9}::int AS ${sql.ref(tag)}`.execute(db.kysely);
    expect(rows[0][tag]).toBe(9);
  });

  it(`at most ${PER_CONNECTION} names per connection; past that, statements run unnamed and answer the same`, async () => {
    const tag = uuidv7().replace(/-/g, '');
    await db.kysely.connection().execute(async (c) => {
      const before = (await prepared(c)).length;
      const texts = PER_CONNECTION + 5;
      for (let t = 0; t < texts; t++) {
        for (let i = 0; i < RECUR_BEFORE_NAMING; i++) {
          const { rows } = await sql<{ x: number }>`SELECT ${t}::int + ${i}::int AS x, ${sql.lit(`${tag}_${t}`)} AS tag`.execute(c);
          expect(rows[0].x).toBe(t + i);
        }
      }
      const auto = (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(c)).rows
        .filter((r) => r.name.startsWith('tableside_'));
      expect(auto.length).toBe(PER_CONNECTION);
      const mine = auto.filter((r) => r.statement.includes(tag)).length;
      expect(mine).toBeGreaterThan(0);
      expect(mine).toBeLessThan(texts);
      expect(before).toBeLessThan(PER_CONNECTION);
    });
  });
});
