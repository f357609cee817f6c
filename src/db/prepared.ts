import type { CompiledQuery } from 'kysely';
import type pg from 'pg';

// A named (server-side prepared) statement for the hot read paths: PostgreSQL parses and plans it
// once per pooled connection instead of on every request. Kysely has no way to name a statement,
// so the query is compiled by Kysely (same parameter binding) and sent through the pool with a
// name. Only for SQL whose text never varies (one name, one text, or pg refuses it), and outside
// transactions: a transaction's statements go through its own executor.

export async function queryPrepared<R>(pool: pg.Pool, name: string, query: CompiledQuery): Promise<R[]> {
  const { rows } = await pool.query({ name, text: query.sql, values: query.parameters as unknown[] });
  return rows as R[];
}
