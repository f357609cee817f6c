import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { emit, emitting, type OutboxEvent, type OutboxScope } from '../db/outbox.ts';
import type { OrderRow } from '../pos-mirror/orders.fns.ts';
import { paymentView, type Move, type PaymentRow } from './payments.fns.ts';

// SQL for payments. A payment's status changes only through
// moveStatus, with a Move from the transition table of payments.fns.ts.

export type NewPayment = Omit<PaymentRow, 'failure_code' | 'confirmed_at' | 'terminal_at' | 'late_pos_status' | 'final_check_at' | 'updated_at' | 'forwarded'>;

export async function findByRef(ex: Executor, partnerId: string, externalReference: string): Promise<PaymentRow | null> {
  const { rows } = await sql<PaymentRow>`
    SELECT * FROM payments WHERE partner_id = ${partnerId} AND external_reference = ${externalReference}`.execute(ex);
  return rows[0] ?? null;
}

export async function findById(ex: Executor, id: string): Promise<PaymentRow | null> {
  const { rows } = await sql<PaymentRow>`SELECT * FROM payments WHERE id = ${id}`.execute(ex);
  return rows[0] ?? null;
}

/** The payment in flight or pending on an order, if any (at most one, by a unique index). */
export async function openOnOrder(ex: Executor, orderId: string): Promise<PaymentRow | null> {
  const { rows } = await sql<PaymentRow>`
    SELECT * FROM payments WHERE order_id = ${orderId} AND status IN ('in_flight', 'pending')`.execute(ex);
  return rows[0] ?? null;
}

/** The recorded payments of an order (in-flight and failed forwards are not recorded). */
export async function listOrderPayments(ex: Executor, orderId: string): Promise<PaymentRow[]> {
  const { rows } = await sql<PaymentRow>`
    SELECT * FROM payments WHERE order_id = ${orderId} AND status IN ('pending', 'confirmed', 'failed')
    ORDER BY recorded_at`.execute(ex);
  return rows;
}

export async function insertPayment(ex: Executor, p: NewPayment, now: Date): Promise<PaymentRow> {
  const confirmed = p.status === 'confirmed';
  const { rows } = await sql<WrittenPayment>`
    INSERT INTO payments (id, partner_id, external_reference, venue_id, order_id, type, amount_minor, tip_minor, currency,
                          payment_method, status, recorded_at, confirmed_at, terminal_at, deadline_at, updated_at)
    VALUES (${p.id}, ${p.partner_id}, ${p.external_reference}, ${p.venue_id}, ${p.order_id}, ${p.type}, ${p.amount_minor},
            ${p.tip_minor}, ${p.currency}, ${p.payment_method}, ${p.status}, ${p.recorded_at},
            ${confirmed ? now : null}, ${confirmed ? now : null}, ${p.deadline_at}, ${now})
    RETURNING *, ${VENUE_CURRENCY}`.execute(ex);
  await announceOutcome(ex, rows[0], now);
  return paymentOf(rows[0]);
}

/**
 * The payment's venue currency beside a written row (RETURNING), for announceOutcome: the event
 * reads it without a statement of its own (issue 14). Refer to the written table as `payments`.
 */
const VENUE_CURRENCY = sql`(SELECT v.currency FROM venues v WHERE v.id = payments.venue_id) AS venue_currency`;

/** A payment row as a statement with VENUE_CURRENCY wrote it. */
type WrittenPayment = PaymentRow & { venue_currency: string };

/** The PaymentRow callers get, without the currency read for the announcement. */
function paymentOf({ venue_currency: _currency, ...row }: WrittenPayment): PaymentRow {
  return row;
}

/**
 * A payment that reaches confirmed or failed is announced in the same transaction (outbox:
 * `payment.confirmed` / `payment.failed`, for the partner whose payment it is). Every statement that
 * writes a payment's status calls it (insertPayment, moveStatus; a new one must too), with the
 * venue's currency its RETURNING read (VENUE_CURRENCY); claimOrder writes the same event
 * (outcomeEvent) within its own statement.
 */
export async function announceOutcome(ex: Executor, written: WrittenPayment | undefined, now: Date): Promise<void> {
  const outcome = written && outcomeEvent(paymentOf(written), written.venue_currency);
  if (outcome) await emit(ex, outcome.scope, outcome.event, now);
}

/** The `payment.confirmed` / `payment.failed` event of a payment in that status; null in any other. */
function outcomeEvent(p: PaymentRow, venueCurrency: string): { scope: OutboxScope; event: OutboxEvent } | null {
  if (p.status !== 'confirmed' && p.status !== 'failed') return null;
  const { orderStatus: _o, ...view } = paymentView(p, null, venueCurrency);
  return { scope: { partnerId: p.partner_id, venueId: p.venue_id }, event: { type: `payment.${p.status}`, entityId: p.id, data: { ...view, venueId: p.venue_id } } };
}

/**
 * Applies a move of the transition table; returns the row, or null if the payment was not in one
 * of the statuses the move leaves (someone else moved it first).
 */
export async function moveStatus(
  ex: Executor,
  id: string,
  move: Move,
  now: Date,
  extra: { recordedAt?: Date; deadlineAt?: Date } = {},
): Promise<PaymentRow | null> {
  const { to } = move;
  const terminal = to === 'confirmed' || to === 'failed';
  const { rows } = await sql<WrittenPayment>`
    UPDATE payments SET
      status = ${to},
      failure_code = ${move.failureCode},
      confirmed_at = ${to === 'confirmed' ? now : null},
      terminal_at = ${terminal ? now : null},
      forwarded = ${move.forwarded}::boolean OR forwarded,
      recorded_at = coalesce(${extra.recordedAt ?? null}::timestamptz, recorded_at),
      deadline_at = coalesce(${extra.deadlineAt ?? null}::timestamptz, deadline_at),
      updated_at = ${now}
    WHERE id = ${id} AND status = ANY(${move.from}::text[])
    RETURNING *, ${VENUE_CURRENCY}`.execute(ex);
  if (!rows[0]) return null;
  await announceOutcome(ex, rows[0], now);
  return paymentOf(rows[0]);
}

export async function markForwarded(ex: Executor, id: string, now: Date): Promise<void> {
  await sql`UPDATE payments SET forwarded = true, updated_at = ${now} WHERE id = ${id}`.execute(ex);
}

/**
 * Claims the final check of a pending payment (PAY-75): `final_check_at` is set to when the check
 * will be over at the latest, so a time still ahead means a check in flight. False when someone
 * already claimed it.
 */
export async function claimFinalCheck(ex: Executor, id: string, endsBy: Date, now: Date): Promise<boolean> {
  const r = await sql`UPDATE payments SET final_check_at = ${endsBy}, updated_at = ${now}
                      WHERE id = ${id} AND status IN ('pending') AND final_check_at IS NULL`.execute(ex);
  return Number(r.numAffectedRows ?? 0) === 1;
}

/** The final check is over: `final_check_at` becomes when it ended. */
export async function endFinalCheck(ex: Executor, id: string, now: Date): Promise<void> {
  await sql`UPDATE payments SET final_check_at = ${now} WHERE id = ${id}`.execute(ex);
}

export async function recordLateStatus(ex: Executor, id: string, status: string, now: Date): Promise<boolean> {
  const r = await sql`UPDATE payments SET late_pos_status = ${status}, updated_at = ${now}
                      WHERE id = ${id} AND late_pos_status IS DISTINCT FROM ${status}`.execute(ex);
  return Number(r.numAffectedRows) > 0;
}


/**
 * What settling a payment needs of its order (payments.outcomes.ts applyToOrder), as the order's
 * lock read it: enough to settle it and to announce its close.
 */
export type LockedOrder = Pick<OrderRow, 'id' | 'status' | 'prepayment_minor' | 'venue_id' | 'pos_order_id'>;

/** Locks the order of a payment (the lock every change of a payment's status takes first); null for no such payment. */
export async function lockOrderOfPayment(tx: Executor, paymentId: string): Promise<LockedOrder | null> {
  const { rows } = await sql<LockedOrder>`
    SELECT o.id, o.status, o.prepayment_minor, o.venue_id, o.pos_order_id FROM orders o
    WHERE o.id = (SELECT order_id FROM payments WHERE id = ${paymentId}) FOR UPDATE`.execute(tx);
  return rows[0] ?? null;
}

export type ClaimResult = { order: LockedOrder; payment: PaymentRow | null };

/**
 * A new payment's claim in one statement (issue 14): lock the order, and insert the payment only if
 * the order is open and neither unique index objects (the reference per partner; one in-flight or
 * pending payment per order). ON CONFLICT decides on the latest committed rows, waiting for a
 * concurrent inserter, which a check in this statement could not: its snapshot predates the wait
 * for the order lock. `payment` is null when nothing was inserted; the caller then finds out why
 * with fresh reads, under the lock this statement took. `order` is the locked order as it stands
 * under that lock, so the caller needs no second lock to settle it. Run it in the claim's transaction.
 */
export async function claimOrder(tx: Executor, p: NewPayment, now: Date, venueCurrency: string): Promise<ClaimResult> {
  const confirmed = p.status === 'confirmed';
  // A payment recorded confirmed at once (no forwarding) is announced like every status write, by
  // this same statement and only if it inserted the payment (one round trip fewer per payment). The
  // event is built from the row as this statement writes it.
  const outcome = confirmed
    ? outcomeEvent({ ...p, failure_code: null, forwarded: false, confirmed_at: now, terminal_at: now, late_pos_status: null, final_check_at: null, updated_at: now }, venueCurrency)
    : null;
  const announced = outcome ? emitting('announced', outcome.scope, outcome.event, now, sql`EXISTS (SELECT 1 FROM ins)`) : null;
  const { rows } = await sql<
    PaymentRow & { claim_order_status: OrderRow['status']; claim_order_prepayment_minor: number; claim_order_venue_id: string; claim_order_pos_order_id: string; claim_notified?: number }
  >`
    WITH o AS (SELECT id, status, prepayment_minor, venue_id, pos_order_id FROM orders WHERE id = ${p.order_id} FOR UPDATE),
    ins AS (
      INSERT INTO payments (id, partner_id, external_reference, venue_id, order_id, type, amount_minor, tip_minor, currency,
                            payment_method, status, recorded_at, confirmed_at, terminal_at, deadline_at, updated_at)
      SELECT ${p.id}::uuid, ${p.partner_id}::uuid, ${p.external_reference}::text, ${p.venue_id}::uuid, o.id, ${p.type}::text,
             ${p.amount_minor}::bigint, ${p.tip_minor}::bigint, ${p.currency}::text, ${p.payment_method}::text, ${p.status}::text,
             ${p.recorded_at}::timestamptz, ${confirmed ? now : null}::timestamptz, ${confirmed ? now : null}::timestamptz,
             ${p.deadline_at}::timestamptz, ${now}::timestamptz
      FROM o WHERE o.status = 'open'
      ON CONFLICT DO NOTHING
      RETURNING *)${announced ? sql`,
    ${announced.ctes}` : sql``}
    SELECT o.status AS claim_order_status, o.prepayment_minor AS claim_order_prepayment_minor,
           o.venue_id AS claim_order_venue_id, o.pos_order_id AS claim_order_pos_order_id, ins.*${announced ? sql`, ${announced.notify} AS claim_notified` : sql``}
    FROM o LEFT JOIN ins ON true`.execute(tx);
  const r = rows[0];
  if (!r) throw new Error(`claimOrder: no order ${p.order_id}`);
  const {
    claim_order_status: status, claim_order_prepayment_minor: prepayment_minor, claim_order_venue_id: venue_id, claim_order_pos_order_id: pos_order_id,
    claim_notified: _n, ...inserted
  } = r;
  const written = inserted.id ? (inserted as PaymentRow) : null;
  return { order: { id: p.order_id, status, prepayment_minor, venue_id, pos_order_id }, payment: written };
}
