import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';

export interface OnboardingRow {
  id: string;
  venue_id: string;
  venue_name: string;
  pos_type: string;
  secret_hash: string;
  status: 'rms_activation' | 'active';
  last_error: string | null;
}

export async function findRequest(ex: Executor, requestId: string): Promise<OnboardingRow | null> {
  const { rows } = await sql<OnboardingRow>`
    SELECT r.id, r.venue_id, v.name AS venue_name, r.pos_type, r.secret_hash, r.status, r.last_error
    FROM onboarding_requests r JOIN venues v ON v.id = r.venue_id
    WHERE r.id = ${requestId}`.execute(ex);
  return rows[0] ?? null;
}

export async function recordError(ex: Executor, requestId: string, message: string, now: Date): Promise<void> {
  await sql`UPDATE onboarding_requests SET last_error = ${message}, updated_at = ${now} WHERE id = ${requestId}`.execute(ex);
}

/** Marks the request done; false if another submission completed it first. */
export async function activate(ex: Executor, requestId: string, now: Date): Promise<boolean> {
  const r = await sql`UPDATE onboarding_requests SET status = 'active', last_error = NULL, completed_at = ${now}, updated_at = ${now}
                      WHERE id = ${requestId} AND status = 'rms_activation'`.execute(ex);
  return Number(r.numAffectedRows) === 1;
}

export async function insertRequest(
  ex: Executor,
  r: { id: string; venueId: string; posType: string; secretHash: string },
  now: Date,
): Promise<void> {
  await sql`INSERT INTO onboarding_requests (id, venue_id, pos_type, secret_hash, status, created_at, updated_at)
            VALUES (${r.id}, ${r.venueId}, ${r.posType}, ${r.secretHash}, 'rms_activation', ${now}, ${now})`.execute(ex);
}
