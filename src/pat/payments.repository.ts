import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { emit } from '../db/outbox.ts';
import { paymentView, type Move, type PaymentStatus } from './payments.fns.ts';

// SQL for payments. A payment's status changes only through
// moveStatus, with a Move from the transition table of payments.fns.ts.

export interface PaymentRow {
  id: string;
  partner_id: string;
  external_reference: string;
  venue_id: string;
  order_id: string;
  type: 'full' | 'partial';
  amount_minor: number;
  tip_minor: number | null;
  currency: string | null;
  payment_method: string | null;
  status: PaymentStatus;
  failure_code: string | null;
  forwarded: boolean;
  recorded_at: Date;
  confirmed_at: Date | null;
  deadline_at: Date;
  terminal_at: Date | null;
  late_pos_status: string | null;
  updated_at: Date;
}

export type NewPayment = Omit<PaymentRow, 'failure_code' | 'confirmed_at' | 'terminal_at' | 'late_pos_status' | 'updated_at' | 'forwarded'>;

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
  const { rows } = await sql<PaymentRow>`
    INSERT INTO payments (id, partner_id, external_reference, venue_id, order_id, type, amount_minor, tip_minor, currency,
                          payment_method, status, recorded_at, confirmed_at, terminal_at, deadline_at, updated_at)
    VALUES (${p.id}, ${p.partner_id}, ${p.external_reference}, ${p.venue_id}, ${p.order_id}, ${p.type}, ${p.amount_minor},
            ${p.tip_minor}, ${p.currency}, ${p.payment_method}, ${p.status}, ${p.recorded_at},
            ${confirmed ? now : null}, ${confirmed ? now : null}, ${p.deadline_at}, ${now})
    RETURNING *`.execute(ex);
  await announceOutcome(ex, rows[0], now);
  return rows[0];
}

/**
 * A payment that reaches confirmed or failed is announced in the same transaction (outbox:
 * `payment.confirmed` / `payment.failed`, for the partner whose payment it is). Every statement that
 * writes a payment's status calls it (insertPayment, moveStatus; a new one must too).
 */
export async function announceOutcome(ex: Executor, p: PaymentRow | undefined, now: Date): Promise<void> {
  if (!p || (p.status !== 'confirmed' && p.status !== 'failed')) return;
  const { rows } = await sql<{ currency: string }>`SELECT currency FROM venues WHERE id = ${p.venue_id}`.execute(ex);
  const { orderStatus: _o, ...view } = paymentView(p, null, rows[0]!.currency);
  await emit(ex, { partnerId: p.partner_id, venueId: p.venue_id }, { type: `payment.${p.status}`, entityId: p.id, data: { ...view, venueId: p.venue_id } }, now);
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
  const { rows } = await sql<PaymentRow>`
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
    RETURNING *`.execute(ex);
  await announceOutcome(ex, rows[0], now);
  return rows[0] ?? null;
}

export async function markForwarded(ex: Executor, id: string, now: Date): Promise<void> {
  await sql`UPDATE payments SET forwarded = true, updated_at = ${now} WHERE id = ${id}`.execute(ex);
}

export async function recordLateStatus(ex: Executor, id: string, status: string, now: Date): Promise<boolean> {
  const r = await sql`UPDATE payments SET late_pos_status = ${status}, updated_at = ${now}
                      WHERE id = ${id} AND late_pos_status IS DISTINCT FROM ${status}`.execute(ex);
  return Number(r.numAffectedRows) > 0;
}

