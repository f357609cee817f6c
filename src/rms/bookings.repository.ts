import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/db.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { BookingRecord, RmsFields } from './bookings.fns.ts';
import type { CreateBookingRequest } from './rms-client.ts';

// SQL of bookings made through Tableside and their history (migration 010).

const COLUMNS = sql`b.id, b.partner_id, b.venue_id, b.rms_venue_id, b.rms_booking_id, b.channel_id, b.channel_name, b.sync,
  b.refusal_code, b.status, b.party_size, b.start_at, b.area_id, b.tables, b.contact, b.notes, b.deposit, b.rms_updated_at,
  b.version, b.created_at, b.updated_at, b.request, b.idempotency_key, b.request_hash, b.gave_up_at, b.payment_token_sealed,
  v.currency, v.timezone AS venue_timezone`;

interface Row {
  id: string; partner_id: string; venue_id: string; rms_venue_id: string; rms_booking_id: string | null;
  channel_id: string | null; channel_name: string | null; sync: BookingRecord['sync']; refusal_code: string | null;
  status: BookingRecord['status']; party_size: number; start_at: Date; area_id: string | null; tables: string[] | null;
  contact: BookingRecord['contact']; notes: string | null; deposit: BookingRecord['deposit']; rms_updated_at: Date | null;
  version: number; created_at: Date; updated_at: Date; request: CreateBookingRequest; idempotency_key: string; request_hash: string | null; currency: string;
  gave_up_at: Date | null; payment_token_sealed: string | null; venue_timezone: string | null;
}

export type StoredBooking = BookingRecord & {
  /** The create body sent to the RMS, the paymentToken aside (migration 019: sealed apart, only while needed). */
  request: CreateBookingRequest;
  idempotencyKey: string;
  requestHash: string | null;
  /** When Tableside stopped sending a create whose outcome stayed unknown (DESIGN 8.8b); null otherwise. */
  gaveUpAt: Date | null;
  paymentTokenSealed: string | null;
  venueTimezone: string | null;
};

function toRecord(r: Row): StoredBooking {
  return {
    id: r.id, partnerId: r.partner_id, venueId: r.venue_id, rmsVenueId: r.rms_venue_id, rmsBookingId: r.rms_booking_id,
    channel: r.channel_id ? { id: r.channel_id, name: r.channel_name ?? '' } : null,
    sync: r.sync, refusalCode: r.refusal_code, status: r.status, partySize: r.party_size, start: r.start_at,
    areaId: r.area_id, tables: r.tables, contact: r.contact, notes: r.notes, deposit: r.deposit, currency: r.currency,
    rmsUpdatedAt: r.rms_updated_at, version: r.version, createdAt: r.created_at, updatedAt: r.updated_at,
    request: r.request, idempotencyKey: r.idempotency_key, requestHash: r.request_hash,
    gaveUpAt: r.gave_up_at, paymentTokenSealed: r.payment_token_sealed, venueTimezone: r.venue_timezone,
  };
}

/** The booking `where` selects, with its venue's currency (the view's deposit is in it). */
async function findOne(ex: Executor, where: RawBuilder<unknown>, forUpdate: boolean): Promise<StoredBooking | null> {
  const { rows } = await sql<Row>`SELECT ${COLUMNS} FROM bookings b JOIN venues v ON v.id = b.venue_id
    WHERE ${where} ${forUpdate ? sql`FOR UPDATE OF b` : sql``}`.execute(ex);
  return rows[0] ? toRecord(rows[0]) : null;
}

export function findBooking(ex: Executor, id: string, forUpdate = false): Promise<StoredBooking | null> {
  return findOne(ex, sql`b.id = ${id}`, forUpdate);
}

export function findByIdempotencyKey(ex: Executor, key: string): Promise<StoredBooking | null> {
  return findOne(ex, sql`b.idempotency_key = ${key}`, false);
}

export function findByRmsId(ex: Executor, partnerId: string, rmsBookingId: string, forUpdate = false): Promise<StoredBooking | null> {
  return findOne(ex, sql`b.partner_id = ${partnerId} AND b.rms_booking_id = ${rmsBookingId}`, forUpdate);
}

/** Whether the partner has creates whose outcome is not known yet (a notice may be about one). */
export async function hasCreatesInFlight(ex: Executor, partnerId: string): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM bookings WHERE partner_id = ${partnerId} AND sync = 'creating'`.execute(ex);
  return (rows[0]?.n ?? 0) > 0;
}

export interface NewBooking {
  id: string; partnerId: string; venueId: string; rmsVenueId: string; idempotencyKey: string;
  channel: { id: string; name: string } | null; partySize: number; start: Date; areaId: string | null;
  contact: BookingRecord['contact']; notes: string | null; request: CreateBookingRequest;
  /** The caller's request fingerprint for its idempotency key (channel bookings, migration 014). */
  requestHash?: string | null;
  paymentTokenSealed?: string | null;
}

export async function insertCreating(ex: Executor, b: NewBooking, now: Date): Promise<void> {
  await sql`INSERT INTO bookings (id, partner_id, venue_id, rms_venue_id, idempotency_key, channel_id, channel_name, sync,
      party_size, start_at, area_id, contact, notes, request, request_hash, payment_token_sealed, created_at, updated_at)
    VALUES (${b.id}, ${b.partnerId}, ${b.venueId}, ${b.rmsVenueId}, ${b.idempotencyKey}, ${b.channel?.id ?? null},
      ${b.channel?.name ?? null}, 'creating', ${b.partySize}, ${b.start}, ${b.areaId}, ${JSON.stringify(b.contact)}::jsonb,
      ${b.notes}, ${JSON.stringify(b.request)}::jsonb, ${b.requestHash ?? null}, ${b.paymentTokenSealed ?? null}, ${now}, ${now})`.execute(ex);
}

/** A settled create needs its paymentToken no more: the sealed copy goes, and a clear one older releases kept. */
const SETTLED = sql`payment_token_sealed = NULL, request = request - 'paymentToken'`;

/** The RMS accepted the create: its id and the state it answered. Only from 'creating'. */
export async function markCreated(ex: Executor, id: string, rmsBookingId: string, fields: RmsFields, rmsUpdatedAt: Date | null, now: Date): Promise<boolean> {
  const res = await sql`UPDATE bookings SET sync = 'created', rms_booking_id = ${rmsBookingId}, status = ${fields.status},
      party_size = ${fields.partySize}, start_at = ${fields.start}, area_id = ${fields.areaId},
      tables = ${fields.tables === null ? null : JSON.stringify(fields.tables)}::jsonb, notes = ${fields.notes},
      deposit = ${fields.deposit === null ? null : JSON.stringify(fields.deposit)}::jsonb, rms_updated_at = ${rmsUpdatedAt},
      updated_at = ${now}, ${SETTLED}
    WHERE id = ${id} AND sync = 'creating'`.execute(ex);
  return Number(res.numAffectedRows ?? 0) === 1;
}

export async function markRefused(ex: Executor, id: string, code: string, now: Date): Promise<void> {
  await sql`UPDATE bookings SET sync = 'refused', refusal_code = ${code}, updated_at = ${now}, ${SETTLED}
            WHERE id = ${id} AND sync = 'creating'`.execute(ex);
}

/**
 * Claims the booking's re-read from the RMS (DESIGN 8.8c: one at a time) under `claim` until the
 * lease ends on the database's clock; false while another re-read's lease runs.
 */
export async function claimReread(ex: Executor, id: string, claim: string, leaseMs: number): Promise<boolean> {
  const res = await sql`UPDATE bookings SET reread_claim = ${claim}, reread_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = ${id} AND (reread_claim IS NULL OR reread_until <= now())`.execute(ex);
  return Number(res.numAffectedRows ?? 0) === 1;
}

/**
 * Ends the booking's re-read claimed under `claim` (and locks the row in a transaction); false when
 * that claim is no longer the booking's: its lease ran out and a later re-read took over.
 */
export async function releaseReread(ex: Executor, id: string, claim: string): Promise<boolean> {
  const res = await sql`UPDATE bookings SET reread_claim = NULL, reread_until = NULL
    WHERE id = ${id} AND reread_claim = ${claim}`.execute(ex);
  return Number(res.numAffectedRows ?? 0) === 1;
}

/**
 * Tableside stops sending the create (DESIGN 8.8b): settled as refused `rms_unavailable` (what the
 * previous release answers too) and marked given up. Only from 'creating'; false when it was settled meanwhile.
 */
export async function markGivenUp(ex: Executor, id: string, now: Date): Promise<boolean> {
  const res = await sql`UPDATE bookings SET sync = 'refused', refusal_code = 'rms_unavailable', gave_up_at = ${now}, updated_at = ${now}, ${SETTLED}
            WHERE id = ${id} AND sync = 'creating'`.execute(ex);
  return Number(res.numAffectedRows ?? 0) === 1;
}

/** A booking of a given-up create, found at the RMS and cancelled there: the record says so (a new version). */
export async function markFoundCanceled(ex: Executor, id: string, now: Date): Promise<boolean> {
  const res = await sql`UPDATE bookings SET status = 'canceled', version = version + 1, updated_at = ${now}
            WHERE id = ${id} AND gave_up_at IS NOT NULL AND status IS NULL`.execute(ex);
  return Number(res.numAffectedRows ?? 0) === 1;
}

/** Of these RMS booking ids, the ones Tableside holds as its bookings (so never taken for a lost create). */
export async function knownRmsIds(ex: Executor, partnerId: string, rmsBookingIds: string[]): Promise<Set<string>> {
  if (rmsBookingIds.length === 0) return new Set();
  const { rows } = await sql<{ id: string }>`SELECT rms_booking_id AS id FROM bookings
    WHERE partner_id = ${partnerId} AND rms_booking_id = ANY(${rmsBookingIds}::text[])`.execute(ex);
  return new Set(rows.map((r) => r.id));
}

/**
 * Claims the one cancel of a booking Tableside sends at a time (DESIGN 8.4a), leased on the
 * database's clock; false when the booking is cancelled already or another cancel holds it.
 */
export async function claimCancel(ex: Executor, id: string, leaseMs: number): Promise<boolean> {
  const res = await sql`UPDATE bookings SET cancel_claimed_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = ${id} AND status IS DISTINCT FROM 'canceled' AND (cancel_claimed_until IS NULL OR cancel_claimed_until <= now())`.execute(ex);
  return Number(res.numAffectedRows ?? 0) === 1;
}

export async function releaseCancel(ex: Executor, id: string): Promise<void> {
  await sql`UPDATE bookings SET cancel_claimed_until = NULL WHERE id = ${id}`.execute(ex);
}

/** Applies an RMS state to a created booking and bumps its version (the events' sequence). */
export async function applyFields(ex: Executor, id: string, fields: RmsFields, rmsUpdatedAt: Date | null, now: Date): Promise<void> {
  await sql`UPDATE bookings SET status = ${fields.status}, party_size = ${fields.partySize}, start_at = ${fields.start},
      area_id = ${fields.areaId}, tables = ${fields.tables === null ? null : JSON.stringify(fields.tables)}::jsonb,
      notes = ${fields.notes}, deposit = ${fields.deposit === null ? null : JSON.stringify(fields.deposit)}::jsonb,
      rms_updated_at = coalesce(${rmsUpdatedAt}, rms_updated_at), version = version + 1, updated_at = ${now}
    WHERE id = ${id}`.execute(ex);
}

export async function addChange(ex: Executor, bookingId: string, cause: string, changes: Record<string, unknown>, now: Date): Promise<void> {
  await sql`INSERT INTO booking_changes (id, booking_id, cause, changes, at)
            VALUES (${uuidv7()}, ${bookingId}, ${cause}, ${JSON.stringify(changes)}::jsonb, ${now})`.execute(ex);
}

