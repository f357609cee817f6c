// What a database error means, for the few errors the service expects and answers on purpose.

/**
 * A unique constraint refused the write (SQLSTATE 23505); with `constraint`, only that constraint.
 * The name is matched on the error's `constraint` field, or in its message for a driver that does
 * not fill the field in.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (e?.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint || (e.message ?? '').includes(`"${constraint}"`);
}

// Connection-level failures: the server is down, restarting, refusing connections or cut off.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  '57P01', // admin_shutdown (the server is stopping)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '53300', // too_many_connections
]);
const UNAVAILABLE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|connection error|terminating connection|Client was closed and is not queryable/i;

/**
 * The database could not be reached or dropped the connection (ERR-08): a moment's outage the
 * caller may retry, not a bug. Everything else (constraint violations, SQL errors) is not this.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown[] } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  // Node reports a refused connection to a host with several addresses as an AggregateError.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  return code === '' && typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message);
}

/**
 * PostgreSQL ended the statement's transaction to break a deadlock (SQLSTATE 40P01): it was rolled
 * back whole, so running it again is as if it had run once.
 */
export function isDeadlock(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '40P01';
}

/**
 * `run` (a statement or a whole transaction, never a part of one) again when PostgreSQL chose it to
 * break a deadlock, at most `attempts` times in all. For a write that cannot order its row locks as
 * the other writers of those rows do: a cascade deletes in its index's order while a batch of
 * other rows' updates (the webhook sender's records) locks them in its own.
 */
export async function retryingDeadlocks<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!isDeadlock(err) || attempt >= attempts) throw err;
    }
  }
}
