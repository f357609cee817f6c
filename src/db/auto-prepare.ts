import type pg from 'pg';

// Every statement the service sends through Kysely with parameters becomes a named (prepared)
// statement once its text has recurred, so PostgreSQL parses it once per connection and, when its
// plan does not depend on the values, plans it once too (issue 14). Kysely cannot name a statement,
// and most of the hot path's statements run inside transactions: under the payment bench, parsing
// and planning them unnamed was nearly half of PostgreSQL's CPU per payment (4.95 → 2.72 ms once
// named). The hot reads outside transactions (the stored bill, authentication, analytics) are
// prepared the same way; nothing names a statement by hand.
//
// The name is given at the driver, on each pooled client, to `query(text, values)` calls (Kysely's
// form; a query config object, which names itself or asks for a cursor, passes untouched):
// - only with parameters: a statement without any goes by the simple protocol, which is how
//   migrations send scripts of several statements and transactions their BEGIN and COMMIT;
// - only once the same text has been seen RECUR_BEFORE_NAMING times in this process, so one-off
//   statements (set-up, operator commands) never occupy a name;
// - at most PER_CONNECTION names per connection and TEXTS distinct texts per process, so a
//   statement whose text varies (a list of n values) cannot grow the server's memory without end;
//   past either bound, statements are sent unnamed as before.
// One text, one name for the life of the process (pg refuses a name reused for another text). A
// prepared statement outlives a rolled-back transaction and is dropped with its connection.

export const RECUR_BEFORE_NAMING = 3;
export const PER_CONNECTION = 250;
const TEXTS = 4000;

interface Seen {
  count: number;
  name: string;
}

const seen = new Map<string, Seen>();
let next = 0;

/** The name for this text, or null while it is not yet a recurring statement. */
function nameFor(text: string): string | null {
  let entry = seen.get(text);
  if (!entry) {
    if (seen.size >= TEXTS) return null;
    entry = { count: 0, name: `tableside_${(next++).toString(36)}` };
    seen.set(text, entry);
  }
  return ++entry.count >= RECUR_BEFORE_NAMING ? entry.name : null;
}

type Connection = { parsedStatements: Record<string, string> };
const namedOn = new WeakMap<object, number>();

/** Makes this pooled client name the recurring statements it is sent (pool 'connect' event). */
export function prepareRecurringStatements(client: pg.PoolClient): void {
  const query = client.query as (...args: unknown[]) => unknown;
  const connection = (client as unknown as { connection: Connection }).connection;
  (client as { query: unknown }).query = function (this: pg.PoolClient, config: unknown, values?: unknown, callback?: unknown) {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      const name = nameFor(config);
      if (name) {
        // PGlite's adapter shares one connection (one session) among the pool's clients: what
        // was prepared on it is known by the connection, not the client.
        const parsed = connection.parsedStatements[name] !== undefined;
        const count = namedOn.get(connection) ?? 0;
        if (parsed || count < PER_CONNECTION) {
          if (!parsed) namedOn.set(connection, count + 1);
          return query.call(this, { name, text: config, values }, undefined, callback);
        }
      }
    }
    return query.call(this, config, values, callback);
  };
}
