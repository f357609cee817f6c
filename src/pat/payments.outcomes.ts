import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { emit } from '../db/outbox.ts';
import type { Clock } from '../lib/clock.ts';
import { PosError, type PosAdapter, type PosPaymentAnswer } from '../pos/pos-client.ts';
import type { ConnectionsService } from '../pos-mirror/connections.service.ts';
import type { OrderStatus } from '../pos-mirror/orders.fns.ts';
import type { OrdersService } from '../pos-mirror/orders.service.ts';
import { isSettled, orderTotals } from './bill.fns.ts';
import { forwardBody, moveOf, type PaymentEvent, type PaymentRow } from './payments.fns.ts';
import { cancelTimeout, scheduleLateCheck, watchPending } from './payments.jobs.ts';
import * as repo from './payments.repository.ts';

// What happens to a payment once it is claimed: every outcome is one short transaction that takes
// the order's lock first and moves the payment by the transition table (payments.fns.ts); the POS
// is only ever called with no transaction open. The submission and the job handlers (both in
// payments.service.ts) finish payments through these.

/** Longest wait for the POS's answer to the final check (less than FINAL_CHECK_LEAD_MS of payments.jobs.ts). */
export const FINAL_CHECK_MAX_MS = 4000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

export interface PaymentOutcomesDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  orders: Pick<OrdersService, 'find' | 'lock' | 'openChecks' | 'closeByPat'>;
  connections: Pick<ConnectionsService, 'forVenue'>;
}

/** Where a payment's POS is, to forward it or ask about it. */
export interface PosTarget {
  pos: PosAdapter;
  posVenueId: string;
  posOrderId: string;
  currency: string;
}

export function createPaymentOutcomes({ db, clock, log, orders, connections }: PaymentOutcomesDeps) {
  const ex = db.kysely;

  /** Moves a payment by an event of the transition table; null when it was not in a status the event leaves. */
  const move = (tx: Executor, paymentId: string, event: PaymentEvent, now: Date, extra?: { recordedAt?: Date; deadlineAt?: Date }) =>
    repo.moveStatus(tx, paymentId, moveOf(event), now, extra);

  /**
   * Settles the order with a confirmed payment: a full payment or a reached balance closes it (spec
   * 3.2). `locked` is the order as this transaction's lock already read it (the claim, confirm), so
   * it is not locked and read twice; without it the order is locked here. Returns its status after.
   */
  async function applyToOrder(tx: Executor, payment: PaymentRow, now: Date, locked?: repo.LockedOrder): Promise<OrderStatus> {
    const order = locked ?? (await orders.lock(tx, payment.order_id));
    if (order.status !== 'open') return order.status;
    let close = payment.type === 'full';
    if (!close) {
      const checks = await orders.openChecks(order.id, tx);
      const payments = await repo.listOrderPayments(tx, order.id);
      const totals = orderTotals(checks, order.prepayment_minor, payments.map((p) => ({ status: p.status, amountMinor: p.amount_minor, tipMinor: p.tip_minor })));
      close = isSettled(totals);
    }
    if (!close) return 'open';
    await orders.closeByPat(tx, order, now, payment.payment_method);
    return 'closed';
  }

  /**
   * Runs fn in a transaction that first locks the payment's order. Every change of a payment's
   * status takes the order lock first, the same order as a new claim, so concurrent claims and
   * outcomes on one order queue behind each other instead of deadlocking. fn gets the order as the
   * lock read it.
   */
  async function underOrderLock<T>(paymentId: string, fn: (tx: Executor, order: repo.LockedOrder) => Promise<T>): Promise<T | null> {
    return ex.transaction().execute(async (tx) => {
      // The payment's order, locked, in one statement (a payment never changes order).
      const order = await repo.lockOrderOfPayment(tx, paymentId);
      return order ? fn(tx, order) : null;
    });
  }

  /**
   * A POS answer for a payment that already timed out is not applied (PAY-31); it is recorded, logged
   * and emitted to the outbox, so the partner and the venue can reconcile (DES-104).
   */
  async function noteLateAnswer(tx: Executor, paymentId: string, answer: PosPaymentAnswer, now: Date): Promise<void> {
    const p = await repo.findById(tx, paymentId);
    if (!p || p.status !== 'failed' || p.failure_code !== 'pos_confirmation_timeout') return;
    if (!(await repo.recordLateStatus(tx, p.id, answer.status, now))) return;
    log.warn({ paymentId: p.id, venueId: p.venue_id, posStatus: answer.status }, 'POS answered a payment after its confirmation timeout; not applied, needs reconciliation');
    await emit(tx, { partnerId: p.partner_id, venueId: p.venue_id }, {
      type: answer.status === 'confirmed' ? 'payment.late_confirmation' : 'payment.late_answer',
      entityId: p.id,
      data: {
        paymentId: p.id,
        externalReference: p.external_reference,
        orderId: p.order_id,
        venueId: p.venue_id,
        posStatus: answer.status,
        failureCode: p.failure_code,
      },
    }, now);
  }

  /** Confirms a payment the POS confirmed; with it, the order's status as this transaction left it. */
  async function confirm(paymentId: string): Promise<{ payment: PaymentRow; orderStatus: OrderStatus } | null> {
    const now = clock.now();
    return underOrderLock(paymentId, async (tx, order) => {
      const row = await move(tx, paymentId, { type: 'pos_confirmed' }, now);
      if (row) {
        // The order this transaction locked: moving the payment did not change it.
        const orderStatus = await applyToOrder(tx, row, now, order);
        await cancelTimeout(tx, row.id);
        return { payment: row, orderStatus };
      }
      await noteLateAnswer(tx, paymentId, { status: 'confirmed' }, now);
      return null;
    });
  }

  async function reject(paymentId: string, failureCode: string): Promise<PaymentRow | null> {
    const now = clock.now();
    return underOrderLock(paymentId, async (tx) => {
      const row = await move(tx, paymentId, { type: 'pos_rejected', failureCode }, now);
      if (row) await cancelTimeout(tx, row.id);
      else await noteLateAnswer(tx, paymentId, { status: 'failed', failureCode }, now);
      return row;
    });
  }

  /** Fails a pending payment whose deadline has passed (idempotent; exactly once in effect). */
  async function expire(tx: Executor, paymentId: string, now: Date): Promise<PaymentRow | null> {
    const p = await repo.findById(tx, paymentId);
    if (!p || p.status !== 'pending' || p.deadline_at.getTime() > now.getTime()) return null;
    await orders.lock(tx, p.order_id);
    const row = await move(tx, paymentId, { type: 'deadline_passed' }, now);
    // The POS had it: ask again later, so a late confirmation is recorded for reconciliation.
    if (row?.forwarded) await scheduleLateCheck(tx, row.id, 0, now);
    return row;
  }

  /**
   * The final check (PAY-75): asks the POS once more how a pending payment stands, with no
   * transaction open and a short bound, and records a terminal answer. A payment the POS applied
   * while every process was down is confirmed, not failed. One asker per payment (the claim on
   * `final_check_at`); `asked` is false when another request or process holds it.
   */
  async function finalCheck(p: PaymentRow): Promise<{ row: PaymentRow; asked: boolean }> {
    const now = clock.now();
    const endsBy = new Date(now.getTime() + FINAL_CHECK_MAX_MS);
    if (!(await repo.claimFinalCheck(ex, p.id, endsBy, now))) return { row: (await repo.findById(ex, p.id))!, asked: false };
    const target = await targetOf(p);
    let answer: PosPaymentAnswer | null = null;
    if (target) {
      // Inside the deadline when a process is alive in the run-up to it (the timeout job starts
      // FINAL_CHECK_LEAD_MS early); when every process was down then, at most this bound past it.
      // Not shortened to what is left: a POS slow to answer would then fail a payment it applied.
      answer = await withTimeout(target.pos.paymentStatus(target.posVenueId, target.posOrderId, p.id), FINAL_CHECK_MAX_MS).catch((err) => {
        log.warn({ paymentId: p.id, err: (err as Error).message }, 'final check: the POS could not tell how the payment stands');
        return null;
      });
    }
    if (answer?.status === 'confirmed') await confirm(p.id);
    else if (answer?.status === 'failed') await reject(p.id, answer.failureCode);
    await repo.endFinalCheck(ex, p.id, clock.now());
    return { row: (await repo.findById(ex, p.id))!, asked: true };
  }

  /**
   * The payment as it is now, failing it first if its deadline passed while nobody looked. A
   * payment whose final check never happened is asked about first (PAY-75), and a check another
   * request started moments ago is waited for (bounded), so its answer is not overtaken by a failure.
   */
  async function current(p: PaymentRow): Promise<PaymentRow> {
    if (p.status !== 'pending' || p.deadline_at.getTime() > clock.now().getTime()) return p;
    let row = p;
    let asked = false;
    if (!row.final_check_at) ({ row, asked } = await finalCheck(row));
    // Another request's check still in flight: wait for its answer (bounded in real time too, in
    // case its process died mid-check).
    const until = Date.now() + FINAL_CHECK_MAX_MS + 500;
    while (!asked && row.status === 'pending' && row.final_check_at && row.final_check_at > clock.now() && Date.now() < until) {
      await sleep(100);
      row = (await repo.findById(ex, p.id))!;
    }
    if (row.status !== 'pending') return row;
    await ex.transaction().execute((tx) => expire(tx, p.id, clock.now()));
    return (await repo.findById(ex, p.id))!;
  }

  async function targetOf(p: PaymentRow): Promise<PosTarget | null> {
    const cv = await connections.forVenue(p.venue_id);
    const order = cv ? await orders.find(p.venue_id, p.order_id) : null;
    if (!cv || !order) return null;
    return { pos: cv.pos, posVenueId: cv.connection.pos_venue_id, posOrderId: order.pos_order_id, currency: cv.venue.currency };
  }

  /** The POS accepted an in-flight forward without confirming it yet: pending, watched by jobs. */
  async function acceptedPending(p: PaymentRow, dispatchInMs: number): Promise<PaymentRow | null> {
    const now = clock.now();
    return ex.transaction().execute(async (tx) => {
      await orders.lock(tx, p.order_id);
      const row = await move(tx, p.id, { type: 'pos_pending' }, now);
      if (row) await watchPending(tx, row, new Date(now.getTime() + dispatchInMs), now);
      return row;
    });
  }

  /** Undoes an in-flight claim: the payment is not recorded, the order is free again. */
  async function giveBack(paymentId: string, reason: string): Promise<void> {
    await underOrderLock(paymentId, (tx) => move(tx, paymentId, { type: 'forward_failed', reason }, clock.now()));
  }

  return {
    find: (paymentId: string) => repo.findById(ex, paymentId),
    current,
    finalCheck,
    targetOf,
    applyToOrder,
    confirm,
    reject,
    expire,
    acceptedPending,
    giveBack,

    /** Records a late POS answer in its own transaction (see noteLateAnswer). */
    recordLateAnswer(paymentId: string, answer: PosPaymentAnswer): Promise<void> {
      return ex.transaction().execute((tx) => noteLateAnswer(tx, paymentId, answer, clock.now()));
    },

    /**
     * One step of a pending payment: forward it if the POS has not accepted it yet, else ask the POS
     * how it stands; record a terminal answer. POS failures leave it pending (retried until the deadline).
     */
    async step(paymentId: string): Promise<PaymentRow | null> {
      const found = await repo.findById(ex, paymentId);
      if (!found) return null;
      const p = await current(found);
      if (p.status !== 'pending') return p;
      const target = await targetOf(p);
      if (!target) return p;
      let answer: PosPaymentAnswer;
      try {
        answer = p.forwarded
          ? await target.pos.paymentStatus(target.posVenueId, target.posOrderId, p.id)
          : await target.pos.forwardPayment(target.posVenueId, target.posOrderId, forwardBody(p, target.currency));
      } catch (err) {
        if (!(err instanceof PosError)) throw err;
        log.warn({ paymentId: p.id, err: err.message }, 'POS not reachable for a pending payment; will retry until the deadline');
        return p;
      }
      if (answer.status === 'confirmed') await confirm(p.id);
      else if (answer.status === 'failed') await reject(p.id, answer.failureCode);
      else if (!p.forwarded) await repo.markForwarded(ex, p.id, clock.now());
      return repo.findById(ex, p.id);
    },
  };
}

export type PaymentOutcomes = ReturnType<typeof createPaymentOutcomes>;
