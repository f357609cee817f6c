import type { Executor } from '../db/db.ts';
import { cancelJob, scheduleJob } from '../db/jobs.ts';

// The durable jobs of payments: their kinds, their dedupe keys (one job of a kind per payment) and
// the helpers that schedule them in the caller's transaction. Their handlers finish payments through
// the outcomes, which schedule jobs here, so the handlers live above both, in payments.service.ts.
//   timeout     at a pending payment's deadline: fails it with pos_confirmation_timeout
//   dispatch    forwards a pending payment, then polls the POS until it is terminal
//   recover     an in-flight forward whose process died: asks the POS what happened
//   late-check  after a timeout, asks the POS a few times more, to record a late answer

export const PAYMENT_JOBS = {
  dispatch: 'payment.dispatch',
  timeout: 'payment.timeout',
  recover: 'payment.recover',
  lateCheck: 'payment.late-check',
} as const;

/** The dedupe keys: scheduling a key that exists changes nothing. */
export const paymentJobKey = {
  timeout: (paymentId: string) => `payment-timeout:${paymentId}`,
  dispatch: (paymentId: string) => `payment-dispatch:${paymentId}`,
  recover: (paymentId: string) => `payment-recover:${paymentId}`,
  lateCheck: (paymentId: string, attempt: number) => (attempt === 0 ? `payment-late:${paymentId}` : `payment-late:${paymentId}:${attempt}`),
};

/** Interval of the dispatch job's polls of a forwarded payment (twice that before the POS has it). */
export const POLL_MS = 1000;
/**
 * How long before a pending payment's deadline the timeout job asks the POS once more (the final
 * check, PAY-75); longer than the check's own bound (FINAL_CHECK_MAX_MS), so it ends in time.
 */
export const FINAL_CHECK_LEAD_MS = 5000;
/** Checks of the POS after a payment timed out, to catch a late confirmation for reconciliation. */
export const LATE_CHECKS_MS = [30_000, 120_000, 600_000];

/**
 * Watches a pending payment: fails it at its deadline, and dispatches it (forward, then poll) from
 * `dispatchAt`. Every payment that turns pending is watched this way, in the transaction that makes it so.
 */
export async function watchPending(tx: Executor, payment: { id: string; deadline_at: Date }, dispatchAt: Date, now: Date): Promise<void> {
  const payload = { paymentId: payment.id };
  // The timeout job starts early enough for the final check (PAY-75) to end inside the deadline.
  const finalCheckAt = new Date(Math.max(now.getTime(), payment.deadline_at.getTime() - FINAL_CHECK_LEAD_MS));
  await scheduleJob(tx, { kind: PAYMENT_JOBS.timeout, runAt: finalCheckAt, dedupeKey: paymentJobKey.timeout(payment.id), payload }, now);
  await scheduleJob(tx, { kind: PAYMENT_JOBS.dispatch, runAt: dispatchAt, dedupeKey: paymentJobKey.dispatch(payment.id), payload }, now);
}

/**
 * A terminal payment needs no deadline any more, nor the recover job of its forward (which would
 * only find it settled): both go in the transaction that settles it, in one statement.
 */
export function cancelTimeout(tx: Executor, paymentId: string): Promise<void> {
  return cancelJob(tx, paymentJobKey.timeout(paymentId), paymentJobKey.recover(paymentId));
}

/** If the process forwarding an in-flight claim dies, this releases it (or finds it applied). */
export async function scheduleRecover(tx: Executor, paymentId: string, runAt: Date, now: Date): Promise<void> {
  await scheduleJob(tx, { kind: PAYMENT_JOBS.recover, runAt, dedupeKey: paymentJobKey.recover(paymentId), payload: { paymentId } }, now);
}

/** The `attempt`-th check of the POS after a forwarded payment timed out (LATE_CHECKS_MS). */
export async function scheduleLateCheck(ex: Executor, paymentId: string, attempt: number, now: Date): Promise<void> {
  await scheduleJob(ex, {
    kind: PAYMENT_JOBS.lateCheck,
    runAt: new Date(now.getTime() + LATE_CHECKS_MS[attempt]),
    dedupeKey: paymentJobKey.lateCheck(paymentId, attempt),
    payload: { paymentId, attempt },
  }, now);
}
