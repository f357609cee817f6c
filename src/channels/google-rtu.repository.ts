import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { endClaimedJobCte } from '../db/job-claims.ts';
import { jobCte, notifyJobs, type JobContext } from '../db/jobs.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { GoogleBookingFields } from './google-rtu.fns.ts';

// SQL of Google's real-time updates (migration 022): channels' RTU configurations, the targets Google
// must hear of (with their job, written in the change's transaction), what Google accepted, and the
// log of attempts. The private key appears here only sealed.

export const GOOGLE_RTU_JOB = 'google.rtu';
export type TargetKind = 'booking' | 'day' | 'feed';
export type AttemptStatus = 'sent' | 'retrying' | 'failed' | 'skipped';

export interface RtuConfigRow {
  channelId: string;
  partnerId: string;
  apiBase: string;
  clientEmail: string;
  tokenUri: string;
  privateKeySealed: string;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const CONFIG = sql`channel_id AS "channelId", partner_id AS "partnerId", api_base AS "apiBase", client_email AS "clientEmail",
  token_uri AS "tokenUri", private_key_sealed AS "privateKeySealed", enabled, created_at AS "createdAt", updated_at AS "updatedAt"`;

export async function upsertConfig(ex: Executor, c: Omit<RtuConfigRow, 'enabled' | 'createdAt' | 'updatedAt'>, now: Date): Promise<RtuConfigRow> {
  const { rows } = await sql<RtuConfigRow>`INSERT INTO google_rtu_configs
      (channel_id, partner_id, api_base, client_email, token_uri, private_key_sealed, enabled, created_at, updated_at)
    VALUES (${c.channelId}, ${c.partnerId}, ${c.apiBase}, ${c.clientEmail}, ${c.tokenUri}, ${c.privateKeySealed}, true, ${now}, ${now})
    ON CONFLICT (channel_id) DO UPDATE SET partner_id = excluded.partner_id, api_base = excluded.api_base,
      client_email = excluded.client_email, token_uri = excluded.token_uri, private_key_sealed = excluded.private_key_sealed,
      enabled = true, updated_at = excluded.updated_at
    RETURNING ${CONFIG}`.execute(ex);
  return rows[0]!;
}

export async function disableConfig(ex: Executor, channelId: string, now: Date): Promise<RtuConfigRow | null> {
  const { rows } = await sql<RtuConfigRow>`UPDATE google_rtu_configs SET enabled = false, updated_at = ${now}
    WHERE channel_id = ${channelId} RETURNING ${CONFIG}`.execute(ex);
  return rows[0] ?? null;
}

export async function findConfig(ex: Executor, channelId: string): Promise<RtuConfigRow | null> {
  const { rows } = await sql<RtuConfigRow>`SELECT ${CONFIG} FROM google_rtu_configs WHERE channel_id = ${channelId}`.execute(ex);
  return rows[0] ?? null;
}

export async function isRtuChannel(ex: Executor, channelId: string): Promise<boolean> {
  // Compared as text: a booking's channel id is whatever its creator gave (a test's 'chan-1' too), and
  // one that is not a UUID is simply no RTU channel, never a database error inside the booking's change.
  const { rows } = await sql`SELECT 1 FROM google_rtu_configs WHERE channel_id::text = ${channelId} AND enabled`.execute(ex);
  return rows.length > 0;
}

/** The RTU channels a venue is linked to, with the venue's time zone. */
export async function rtuChannelsOfVenue(ex: Executor, venueId: string): Promise<Array<{ channelId: string; timezone: string | null }>> {
  const { rows } = await sql<{ channelId: string; timezone: string | null }>`SELECT c.channel_id AS "channelId", v.timezone
    FROM google_rtu_configs c JOIN venue_booking_channels l ON l.channel_id = c.channel_id JOIN venues v ON v.id = l.venue_id
    WHERE l.venue_id = ${venueId} AND c.enabled`.execute(ex);
  return rows;
}

/** The venues of an RMS partner linked to RTU channels, per channel. */
export async function rtuVenuesOfPartner(ex: Executor, partnerId: string): Promise<Array<{ channelId: string; venueId: string }>> {
  const { rows } = await sql<{ channelId: string; venueId: string }>`SELECT c.channel_id AS "channelId", v.id AS "venueId"
    FROM google_rtu_configs c JOIN venue_booking_channels l ON l.channel_id = c.channel_id JOIN venues v ON v.id = l.venue_id
    WHERE v.owner_partner_id = ${partnerId} AND c.enabled ORDER BY c.channel_id, v.id`.execute(ex);
  return rows;
}

export interface RtuVenue {
  id: string; name: string; city: string | null; countryCode: string | null; latitude: number | null; longitude: number | null;
  url: string | null; maxCovers: number | null; timezone: string | null; ownerPartnerId: string | null; externalId: string | null;
}

/** A venue still linked to the channel, with what its availability entries need. */
export async function linkedVenue(ex: Executor, channelId: string, venueId: string): Promise<RtuVenue | null> {
  const { rows } = await sql<RtuVenue>`SELECT v.id, v.name, v.city, v.country_code AS "countryCode", v.latitude, v.longitude, v.url,
      v.max_covers AS "maxCovers", v.timezone, v.owner_partner_id AS "ownerPartnerId", v.external_id AS "externalId"
    FROM venue_booking_channels l JOIN venues v ON v.id = l.venue_id WHERE l.channel_id = ${channelId} AND l.venue_id = ${venueId}`.execute(ex);
  return rows[0] ?? null;
}

const jobKey = (channelId: string, kind: TargetKind, target: string) => `${GOOGLE_RTU_JOB}:${channelId}:${kind}:${target}`;

/**
 * One more update wanted for a target, and its job (one per target), in the caller's transaction:
 * one round trip. The target's row is locked first, as the job's end locks it (targets, then jobs).
 */
export async function wantUpdate(ex: Executor, channelId: string, kind: TargetKind, target: string, now: Date): Promise<void> {
  const job = { kind: GOOGLE_RTU_JOB, runAt: now, dedupeKey: jobKey(channelId, kind, target), payload: { channelId, kind, target } };
  await sql`WITH wanted AS (
      INSERT INTO google_rtu_targets (channel_id, kind, target, wanted, done, updated_at) VALUES (${channelId}, ${kind}, ${target}, 1, 0, ${now})
      ON CONFLICT (channel_id, kind, target) DO UPDATE SET wanted = google_rtu_targets.wanted + 1, updated_at = excluded.updated_at
      RETURNING 1),
    ${jobCte('rtu_job', job, now, 'wanted')}
    SELECT ${notifyJobs('rtu_job')}`.execute(ex);
}

/** What Google itself accepted for a booking (its own create or update): nothing to tell it of. */
export async function setAccepted(ex: Executor, channelId: string, bookingId: string, accepted: GoogleBookingFields, now: Date): Promise<void> {
  await sql`INSERT INTO google_rtu_targets (channel_id, kind, target, wanted, done, accepted, updated_at)
    VALUES (${channelId}, 'booking', ${bookingId}, 0, 0, ${JSON.stringify(accepted)}::jsonb, ${now})
    ON CONFLICT (channel_id, kind, target) DO UPDATE SET accepted = excluded.accepted, updated_at = excluded.updated_at`.execute(ex);
}

export interface TargetRow {
  channelId: string; kind: TargetKind; target: string; wanted: number; done: number;
  accepted: GoogleBookingFields | null; failures: number; failingSince: Date | null;
}

export async function findTarget(ex: Executor, channelId: string, kind: TargetKind, target: string): Promise<TargetRow | null> {
  const { rows } = await sql<TargetRow>`SELECT channel_id AS "channelId", kind, target, wanted, done, accepted, failures, failing_since AS "failingSince"
    FROM google_rtu_targets WHERE channel_id = ${channelId} AND kind = ${kind} AND target = ${target}`.execute(ex);
  return rows[0] ?? null;
}

/**
 * A run's end: the updates up to `upTo` are done (sent, refused or given up), with what Google now
 * accepts; the job ends with it, fenced on its claim, unless a newer update was wanted meanwhile
 * (then `more`: the caller runs the job again at once). One statement.
 */
export async function finishTarget(
  ex: Executor, t: Pick<TargetRow, 'channelId' | 'kind' | 'target'>, upTo: number, accepted: GoogleBookingFields | null, fence: JobContext['fence'], now: Date,
): Promise<{ more: boolean; ended: boolean }> {
  const { rows } = await sql<{ wanted: number | null; ended: number }>`WITH t AS (
      UPDATE google_rtu_targets SET done = greatest(done, ${upTo}), failures = 0, failing_since = NULL, updated_at = ${now},
        accepted = coalesce(${accepted === null ? null : JSON.stringify(accepted)}::jsonb, accepted)
      WHERE channel_id = ${t.channelId} AND kind = ${t.kind} AND target = ${t.target}
      RETURNING wanted),
    ${endClaimedJobCte('fin', fence, sql`coalesce((SELECT wanted FROM t), 0) <= ${upTo}`)}
    SELECT (SELECT wanted FROM t) AS wanted, (SELECT count(*)::int FROM fin) AS ended`.execute(ex);
  const row = rows[0]!;
  return { more: (row.wanted ?? 0) > upTo, ended: row.ended > 0 };
}

/** A retryable failure: counted, and when the update began failing. */
export async function markFailing(ex: Executor, t: Pick<TargetRow, 'channelId' | 'kind' | 'target'>, now: Date): Promise<void> {
  await sql`UPDATE google_rtu_targets SET failures = failures + 1, failing_since = coalesce(failing_since, ${now}), updated_at = ${now}
    WHERE channel_id = ${t.channelId} AND kind = ${t.kind} AND target = ${t.target}`.execute(ex);
}

export interface AttemptRow {
  kind: string; target: string; status: AttemptStatus; responseCode: number | null; answer: string | null; at: Date;
}

export async function insertAttempt(ex: Executor, channelId: string, a: AttemptRow): Promise<void> {
  await sql`INSERT INTO google_rtu_attempts (id, channel_id, kind, target, status, response_code, answer, at)
    VALUES (${uuidv7()}, ${channelId}, ${a.kind}, ${a.target}, ${a.status}, ${a.responseCode}, ${a.answer?.slice(0, 2000) ?? null}, ${a.at})`.execute(ex);
}

export async function listAttempts(ex: Executor, channelId: string, limit: number): Promise<AttemptRow[]> {
  const { rows } = await sql<AttemptRow>`SELECT kind, target, status, response_code AS "responseCode", answer, at
    FROM google_rtu_attempts WHERE channel_id = ${channelId} ORDER BY at DESC, id DESC LIMIT ${limit}`.execute(ex);
  return rows;
}

/** The day hashes Google last accepted for a venue. */
export async function dayHashes(ex: Executor, channelId: string, venueId: string): Promise<Map<string, string>> {
  const { rows } = await sql<{ day: string; hash: string }>`SELECT to_char(day, 'YYYY-MM-DD') AS day, hash FROM google_rtu_days
    WHERE channel_id = ${channelId} AND venue_id = ${venueId}`.execute(ex);
  return new Map(rows.map((r) => [r.day, r.hash]));
}

export async function saveDayHashes(ex: Executor, channelId: string, venueId: string, days: ReadonlyArray<{ day: string; hash: string }>, now: Date): Promise<void> {
  if (days.length === 0) return;
  await sql`INSERT INTO google_rtu_days (channel_id, venue_id, day, hash, sent_at)
    SELECT ${channelId}::uuid, ${venueId}::uuid, d.day::date, d.hash, ${now}::timestamptz
    FROM jsonb_to_recordset(${JSON.stringify(days)}::jsonb) AS d(day text, hash text)
    ON CONFLICT (channel_id, venue_id, day) DO UPDATE SET hash = excluded.hash, sent_at = excluded.sent_at`.execute(ex);
}
