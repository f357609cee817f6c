import pg from 'pg';
import { expect, it, onTestFinished } from 'vitest';
import { openPostgres } from '../../src/db/db.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createSchema, describePostgres, dropSchema, newSchemaName, postgresUrl } from '../helpers/db.ts';

// In CI a `tableside migrate` failed with `schema "<another worker's schema>" does not exist`:
// Kysely's stock introspector read every schema on the server while a parallel test worker dropped
// its own. The store's dialect now introspects only its search_path; this reproduces the race.

describePostgres('migrations on a shared server', () => {
  it('[DES-048] migrate succeeds while other clients create and drop schemas on the same database', async () => {
    const url = postgresUrl()!;
    const churn = new pg.Client({ connectionString: url });
    await churn.connect();
    let stop = false;
    const churnSchemas: string[] = [];
    const churning = (async () => {
      while (!stop) {
        const name = newSchemaName();
        churnSchemas.push(name);
        await churn.query(`CREATE SCHEMA "${name}"`);
        await churn.query(`CREATE TABLE "${name}".t (id serial PRIMARY KEY, a text, b int, c jsonb)`);
        await churn.query(`DROP SCHEMA "${name}" CASCADE`);
      }
    })();
    onTestFinished(async () => {
      stop = true;
      await churning.catch(() => {});
      for (const name of churnSchemas) await churn.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await churn.end();
    });

    for (let i = 0; i < 15; i++) {
      const schema = newSchemaName();
      await createSchema(schema);
      const db = openPostgres(url, { schema, max: 2 });
      try {
        const first = await migrate(db);
        expect(first.applied).toContain('001_foundation');
        expect(await migrate(db)).toEqual({ applied: [] });
      } finally {
        await db.close();
        await dropSchema(schema);
      }
    }
    stop = true;
    await churning;
  });
});

