import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';

// SQL of the booking-services connection (DESIGN 8.1).

export interface BookingServicesRow {
  partner_id: string;
  base_url: string;
  api_key_sealed: string;
  last_check_at: Date;
  last_check_ok: boolean;
  last_check_message: string;
}

export async function findConnection(ex: Executor, partnerId: string): Promise<BookingServicesRow | null> {
  const { rows } = await sql<BookingServicesRow>`
    SELECT partner_id, base_url, api_key_sealed, last_check_at, last_check_ok, last_check_message
    FROM rms_booking_services WHERE partner_id = ${partnerId}`.execute(ex);
  return rows[0] ?? null;
}

/** The partner's endpoint and sealed key, with the credential epoch read in the same statement (auth/credential-cache.ts). */
export async function findEndpoint(ex: Executor, partnerId: string): Promise<{ base_url: string; api_key_sealed: string; auth_epoch: string } | null> {
  const { rows } = await sql<{ base_url: string; api_key_sealed: string; auth_epoch: string }>`
    SELECT base_url, api_key_sealed, (SELECT epoch FROM auth_epoch) AS auth_epoch
    FROM rms_booking_services WHERE partner_id = ${partnerId}`.execute(ex);
  return rows[0] ?? null;
}

export async function saveConnection(ex: Executor, row: BookingServicesRow, now: Date): Promise<void> {
  await sql`
    INSERT INTO rms_booking_services (partner_id, base_url, api_key_sealed, last_check_at, last_check_ok, last_check_message, created_at, updated_at)
    VALUES (${row.partner_id}, ${row.base_url}, ${row.api_key_sealed}, ${row.last_check_at}, ${row.last_check_ok}, ${row.last_check_message}, ${now}, ${now})
    ON CONFLICT (partner_id) DO UPDATE SET base_url = excluded.base_url, api_key_sealed = excluded.api_key_sealed,
      last_check_at = excluded.last_check_at, last_check_ok = excluded.last_check_ok,
      last_check_message = excluded.last_check_message, updated_at = excluded.updated_at`.execute(ex);
}

/**
 * Records what a call found of the partner's booking services. `overFailureOnly`: only when the
 * record says failing (a success never rewrites a record that already says ok).
 */
export async function recordCheck(ex: Executor, partnerId: string, check: { at: Date; ok: boolean; message: string }, overFailureOnly: boolean): Promise<void> {
  await sql`
    UPDATE rms_booking_services SET last_check_at = ${check.at}, last_check_ok = ${check.ok}, last_check_message = ${check.message}
    WHERE partner_id = ${partnerId} AND (${!overFailureOnly} OR NOT last_check_ok)`.execute(ex);
}
