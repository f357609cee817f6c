import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { CreateOrderInput } from '../pos/pos-client.ts';

// SQL of `seatings` (one per booking and venue: the unique key is the exactly-once rule) and
// `seating_events` (every reservation event received).

export type SeatingStatus = 'opening' | 'pending' | 'opened' | 'failed';
export type PosOutcome = 'unknown' | 'created';

export interface SeatingRow {
  id: string;
  partner_id: string;
  venue_id: string;
  booking_id: string;
  order_id: string;
  status: SeatingStatus;
  party_size: number;
  prepayment_minor: number;
  reservation_date: Date;
  seated_at: Date;
  pos_request: CreateOrderInput;
  pos_order_id: string | null;
  unknown_skus: string[];
  /** Which claim of the seating this is: every claim, lease and relaunch adds one; final writes are fenced on it. */
  attempts: number;
  lease_until: Date | null;
  /** What earlier attempts may have left on the POS (migration 018): null nothing, 'unknown' maybe an order, 'created' an order. */
  pos_outcome: PosOutcome | null;
  /** When a look on the POS first found no order of this seating (a create is sent again only after a second look 30 s later). */
  absent_since: Date | null;
  /** The POS's order id from an otherwise unreadable 2xx answer. */
  pos_hint: string | null;
  deadline_at: Date;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export type NewSeating = Pick<
  SeatingRow,
  'partner_id' | 'venue_id' | 'booking_id' | 'order_id' | 'party_size' | 'prepayment_minor' | 'reservation_date' | 'seated_at' | 'pos_request' | 'lease_until' | 'deadline_at'
>;

/** Claims the booking's seating; null when the booking was seated already (by this or another process). */
export async function claim(ex: Executor, s: NewSeating, now: Date): Promise<SeatingRow | null> {
  const { rows } = await sql<SeatingRow>`
    INSERT INTO seatings (id, partner_id, venue_id, booking_id, order_id, status, party_size, prepayment_minor,
                          reservation_date, seated_at, pos_request, attempts, lease_until, deadline_at, created_at, updated_at)
    VALUES (${uuidv7()}, ${s.partner_id}, ${s.venue_id}, ${s.booking_id}, ${s.order_id}, 'opening', ${s.party_size},
            ${s.prepayment_minor}, ${s.reservation_date}, ${s.seated_at}, ${JSON.stringify(s.pos_request)}::jsonb, 1,
            ${s.lease_until}, ${s.deadline_at}, ${now}, ${now})
    ON CONFLICT (venue_id, booking_id) DO NOTHING
    RETURNING *`.execute(ex);
  return rows[0] ?? null;
}

/** A failed seating sent again: claimed again for a new try, with a new hour. Null when another process did so first. */
export async function relaunch(ex: Executor, id: string, s: NewSeating, now: Date): Promise<SeatingRow | null> {
  const { rows } = await sql<SeatingRow>`
    UPDATE seatings SET status = 'opening', party_size = ${s.party_size}, prepayment_minor = ${s.prepayment_minor},
      reservation_date = ${s.reservation_date}, seated_at = ${s.seated_at}, pos_request = ${JSON.stringify(s.pos_request)}::jsonb,
      attempts = attempts + 1, lease_until = ${s.lease_until}, deadline_at = ${s.deadline_at}, unknown_skus = '{}', absent_since = NULL,
      updated_at = ${now}
    WHERE id = ${id} AND status = 'failed'
    RETURNING *`.execute(ex);
  return rows[0] ?? null;
}

export async function findByBooking(ex: Executor, venueId: string, bookingId: string): Promise<SeatingRow | null> {
  const { rows } = await sql<SeatingRow>`SELECT * FROM seatings WHERE venue_id = ${venueId} AND booking_id = ${bookingId}`.execute(ex);
  return rows[0] ?? null;
}

export async function find(ex: Executor, id: string): Promise<SeatingRow | null> {
  const { rows } = await sql<SeatingRow>`SELECT * FROM seatings WHERE id = ${id}`.execute(ex);
  return rows[0] ?? null;
}

/**
 * Takes a pending seating (or one whose attempt's lease ran out) for a new attempt until
 * `leaseUntil`, as a new claim; null when another attempt holds it or it is settled. An attempt
 * whose lease ran out (still 'opening') may have sent its create: the POS is looked at first.
 */
export async function lease(ex: Executor, id: string, leaseUntil: Date, now: Date): Promise<SeatingRow | null> {
  const { rows } = await sql<SeatingRow>`
    UPDATE seatings SET status = 'opening', lease_until = ${leaseUntil}, attempts = attempts + 1, updated_at = ${now},
      pos_outcome = CASE WHEN status = 'opening' THEN coalesce(pos_outcome, 'unknown') ELSE pos_outcome END
    WHERE id = ${id} AND status IN ('opening', 'pending') AND (lease_until IS NULL OR lease_until <= ${now})
    RETURNING *`.execute(ex);
  return rows[0] ?? null;
}

/** The fence of every write of an attempt: its claim is still the seating's current one. */
const claimed = (c: Claim) => sql`id = ${c.id} AND attempts = ${c.attempts} AND status = 'opening'`;
export type Claim = Pick<SeatingRow, 'id' | 'attempts'>;

/** Extends a claim's lease; false when the claim is no longer the seating's (another attempt took it over). */
export async function renewLease(ex: Executor, c: Claim, leaseUntil: Date, now: Date): Promise<boolean> {
  const r = await sql`UPDATE seatings SET lease_until = ${leaseUntil}, updated_at = ${now} WHERE ${claimed(c)}`.execute(ex);
  return Number(r.numAffectedRows ?? 0) === 1;
}

/** Each `mark*` is fenced on the claim and says whether it wrote (false: the claim was taken over; write nothing else). */
export async function markOpened(ex: Executor, c: Claim, posOrderId: string, orderId: string, unknownSkus: string[], now: Date): Promise<boolean> {
  const r = await sql`UPDATE seatings SET status = 'opened', pos_order_id = ${posOrderId}, order_id = ${orderId},
              unknown_skus = ${unknownSkus}::text[], lease_until = NULL, last_error = NULL, updated_at = ${now}
            WHERE ${claimed(c)}`.execute(ex);
  return Number(r.numAffectedRows ?? 0) === 1;
}

export interface PendingState {
  error: string;
  posOutcome: PosOutcome | null;
  absentSince: Date | null;
  posHint: string | null;
  unknownSkus: string[];
}

export async function markPending(ex: Executor, c: Claim, p: PendingState, now: Date): Promise<boolean> {
  const r = await sql`UPDATE seatings SET status = 'pending', lease_until = NULL, last_error = ${p.error.slice(0, 1000)},
              pos_outcome = ${p.posOutcome}, absent_since = ${p.absentSince}, pos_hint = ${p.posHint},
              unknown_skus = ${p.unknownSkus}::text[], updated_at = ${now}
            WHERE ${claimed(c)}`.execute(ex);
  return Number(r.numAffectedRows ?? 0) === 1;
}

export async function markFailed(ex: Executor, c: Claim, error: string, now: Date): Promise<boolean> {
  const r = await sql`UPDATE seatings SET status = 'failed', lease_until = NULL, last_error = ${error.slice(0, 1000)}, updated_at = ${now}
            WHERE ${claimed(c)}`.execute(ex);
  return Number(r.numAffectedRows ?? 0) === 1;
}

/**
 * The seatings of a venue still waiting for their POS order (no POS order id yet) whose order id no
 * mirrored order has: the order sync or a live bill that meets their POS order first gives it
 * the seating's order id (BKG-39).
 */
export async function awaitingPosOrder(ex: Executor, venueId: string): Promise<SeatingRow[]> {
  const { rows } = await sql<SeatingRow>`
    SELECT * FROM seatings s WHERE s.venue_id = ${venueId} AND s.status IN ('opening', 'pending') AND s.pos_order_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = s.order_id)`.execute(ex);
  return rows;
}

export interface SeatingEvent {
  partnerId: string;
  venueId: string;
  bookingId: string;
  status: string;
  body: Record<string, unknown>;
  outcome: string;
}

export async function recordEvent(ex: Executor, e: SeatingEvent, now: Date): Promise<void> {
  await sql`INSERT INTO seating_events (id, partner_id, venue_id, booking_id, status, body, outcome, received_at)
            VALUES (${uuidv7()}, ${e.partnerId}, ${e.venueId}, ${e.bookingId}, ${e.status}, ${JSON.stringify(e.body)}::jsonb,
                    ${e.outcome}, ${now})`.execute(ex);
}
