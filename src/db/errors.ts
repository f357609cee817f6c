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
