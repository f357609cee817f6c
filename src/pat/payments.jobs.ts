import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { cancelJob, scheduleJob, type JobDefinition } from '../db/jobs.ts';
import type { Clock } from '../lib/clock.ts';
import type { PaymentOutcomes } from './payments.outcomes.ts';

// The durable jobs of payments: their kinds, their dedupe keys (one job of a kind per payment), the
// helpers that schedule them in the caller's transaction, and their handlers.
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

export interface PaymentJobsDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  outcomes: PaymentOutcomes;
}

type PaymentJob = { payload: { paymentId: string } };

export function createPaymentJobs({ db, clock, log, outcomes }: PaymentJobsDeps): Record<string, JobDefinition<any>> {
  return {
    // Runs FINAL_CHECK_LEAD_MS before the deadline: asks the POS once more (the final check), then
    // at the deadline fails what is still pending. A run that comes late (every process was down)
    // still asks first if nobody did.
    [PAYMENT_JOBS.timeout]: {
      run: async (job: PaymentJob, ctx) => {
        let p = await outcomes.find(job.payload.paymentId);
        if (!p || p.status !== 'pending') return;
        if (clock.now().getTime() < p.deadline_at.getTime()) {
          if (!p.final_check_at) p = (await outcomes.finalCheck(p)).row;
          return p.status === 'pending' ? { retryAt: p.deadline_at } : undefined;
        }
        // At or past the deadline: asks first if nobody did (every process was down in the run-up)
        // and waits for a check in flight, like a read; then fails what is still pending.
        p = await outcomes.current(p);
        if (p.status === 'pending') await ctx.transaction((tx) => outcomes.expire(tx, job.payload.paymentId, clock.now()));
      },
      // A process killed mid-check must not hold the job past the deadline for the default minute.
      leaseMs: 15_000,
    } as JobDefinition<{ paymentId: string }>,

    [PAYMENT_JOBS.dispatch]: {
      run: async (job: PaymentJob) => {
        const p = await outcomes.step(job.payload.paymentId);
        if (!p || p.status !== 'pending') return;
        const now = clock.now().getTime();
        if (now >= p.deadline_at.getTime()) return; // the timeout job ends it
        return { retryAt: new Date(Math.min(now + (p.forwarded ? POLL_MS : 2 * POLL_MS), p.deadline_at.getTime())) };
      },
    } as JobDefinition<{ paymentId: string }>,

    // An in-flight claim left by a process that died mid-forward: ask the POS what happened.
    [PAYMENT_JOBS.recover]: {
      run: async (job: PaymentJob) => {
        const p = await outcomes.find(job.payload.paymentId);
        if (!p || p.status !== 'in_flight') return;
        const target = await outcomes.targetOf(p);
        const answer = target ? await target.pos.paymentStatus(target.posVenueId, target.posOrderId, p.id).catch(() => null) : null;
        if (answer?.status === 'confirmed') await outcomes.confirm(p.id);
        else if (answer?.status === 'pending') await outcomes.acceptedPending(p, 0);
        else {
          log.warn({ paymentId: p.id }, 'an interrupted forward was not applied by the POS (or it cannot tell); released');
          await outcomes.giveBack(p.id, 'interrupted');
        }
      },
    } as JobDefinition<{ paymentId: string }>,

    [PAYMENT_JOBS.lateCheck]: {
      run: async (job: { payload: { paymentId: string; attempt: number } }) => {
        const p = await outcomes.find(job.payload.paymentId);
        if (!p || p.status !== 'failed' || p.failure_code !== 'pos_confirmation_timeout') return;
        const target = await outcomes.targetOf(p);
        if (!target) return;
        try {
          const answer = await target.pos.paymentStatus(target.posVenueId, target.posOrderId, p.id);
          if (answer.status !== 'pending') {
            await outcomes.recordLateAnswer(p.id, answer);
            return;
          }
        } catch (err) {
          log.debug({ paymentId: p.id, err: (err as Error).message }, 'late check could not reach the POS');
        }
        const next = job.payload.attempt + 1;
        if (next < LATE_CHECKS_MS.length) await scheduleLateCheck(db.kysely, p.id, next, clock.now());
      },
    } as JobDefinition<{ paymentId: string; attempt: number }>,
  };
}
