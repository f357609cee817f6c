import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { cancelJob, type JobDefinition } from '../db/jobs.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, badGateway, conflict, notFound, unprocessable } from '../lib/errors.ts';
import { isUuid, uuidv7 } from '../lib/ids.ts';
import { PosError, type PosPaymentAnswer } from '../pos/pos-client.ts';
import type { ConnectionsService } from '../pos-mirror/connections.service.ts';
import type { OrderStatus } from '../pos-mirror/orders.fns.ts';
import type { OrdersService } from '../pos-mirror/orders.service.ts';
import {
  forwardBody, isTerminal, moveOf, normalizeFailureCode, parsePayload, payloadMismatch, payloadOf, paymentView, recordedStatus,
  submissionEvent, type PaymentPayload, type PaymentRow,
} from './payments.fns.ts';
import { LATE_CHECKS_MS, PAYMENT_JOBS, paymentJobKey, POLL_MS, scheduleLateCheck, scheduleRecover, watchPending } from './payments.jobs.ts';
import { createPaymentOutcomes, type PaymentOutcomes } from './payments.outcomes.ts';
import * as repo from './payments.repository.ts';
import { findSubmission } from './submission.repository.ts';
import type { Payment, SubmitPaymentBody } from './payments.schemas.ts';
import { suspendedMessage, type VenueContext, type VenueContexts } from './venue-context.ts';

// Pay-at-table payments (spec 2.11, 3.1, 3.2, 4.7, 7.3, 7.4).
//
// A submission claims the order in one short transaction (order row locked, one in-flight or
// pending payment per order, the reference unique per partner), talks to the POS with no
// transaction open, and records the outcome in a second short transaction (payments.outcomes.ts).
//   no forwarding   recorded confirmed at once
//   immediate       forwarded synchronously: confirmed (200), or nothing recorded (502)
//   deferred        recorded pending with a timeout job, dispatched, waited on a few seconds
//                   (200 if terminal by then, else 202), then polled by a job until terminal
// Every pending payment fails with pos_confirmation_timeout at its deadline, from the timeout job
// or, whichever comes first, from the next read that sees the deadline has passed.

const ORDER_NOT_FOUND = 'Order not found in this venue.';
const INLINE_STEP_MS = 200;
/** How long after an in-flight claim the recover job looks at it, beyond the POS timeout. */
const RECOVER_AFTER_MS = 15_000;

export interface PaymentsServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  contexts: VenueContexts;
  orders: Pick<OrdersService, 'find' | 'lock' | 'openChecks' | 'closeByPat' | 'refresh'>;
  connections: Pick<ConnectionsService, 'forVenue'>;
  confirmationTimeoutS: number;
  inlineWaitMs: number;
  posTimeoutMs: number;
}

export interface SubmitResult {
  statusCode: 200 | 202;
  replay: boolean;
  payment: Payment;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createPaymentsService(deps: PaymentsServiceDeps) {
  const { db, clock, log, contexts, orders } = deps;
  const ex = db.kysely;
  const outcomes = createPaymentOutcomes(deps);

  async function view(p: PaymentRow, venueCurrency: string): Promise<Payment> {
    const order = await orders.find(p.venue_id, p.order_id);
    return paymentView(p, order?.status ?? null, venueCurrency);
  }

  /** Waits up to the in-request wait for a pending payment to turn terminal (deferred venues). */
  async function settleInline(paymentId: string): Promise<PaymentRow> {
    const until = Date.now() + deps.inlineWaitMs;
    let p = await outcomes.step(paymentId);
    while (p && p.status === 'pending' && Date.now() < until) {
      await sleep(Math.min(INLINE_STEP_MS, Math.max(0, until - Date.now())));
      p = await outcomes.step(paymentId);
    }
    return p!;
  }

  /** `orderStatus`: the order's status as the claim left it, when the claim confirmed the payment (no forwarding). */
  type Claim = { kind: 'claimed'; payment: PaymentRow; orderStatus: OrderStatus | null } | { kind: 'race' };

  /**
   * Why an order the claim holds locked cannot take this payment, from fresh reads: another request
   * with this reference claimed first (a race: replay it), the order is closed or void (422), or
   * another payment is in flight or pending on it (409). Null when nothing stands in the way.
   */
  async function refusal(tx: Executor, partnerId: string, ref: string, orderId: string, orderStatus: string, reuseId: string | null): Promise<{ kind: 'race' } | null> {
    const same = await repo.findByRef(tx, partnerId, ref);
    if (same && same.id !== reuseId) return { kind: 'race' };
    if (orderStatus === 'closed') throw unprocessable('The order is already closed; it cannot take a payment.');
    if (orderStatus === 'void') throw unprocessable('The order was voided; it cannot take a payment.');
    const open = await repo.openOnOrder(tx, orderId);
    if (open && open.id !== reuseId) {
      throw conflict(
        `Another payment (externalReference "${open.external_reference}") is still pending on this order. ` +
          'Poll it until it is confirmed or failed, then submit again.',
      );
    }
    return null;
  }

  /**
   * The first transaction: lock the order, check it can take a payment, record the claim. A new
   * payment is one statement (repo.claimOrder); the reads that explain a refusal run only then.
   */
  async function claim(ctx: VenueContext, partnerId: string, ref: string, payload: PaymentPayload, reuse: PaymentRow | null): Promise<Claim> {
    const now = clock.now();
    const event = submissionEvent(ctx.posType);
    const deadline = new Date(now.getTime() + deps.confirmationTimeoutS * 1000);
    try {
      return await ex.transaction().execute(async (tx): Promise<Claim> => {
        let payment: PaymentRow | null;
        let order: repo.LockedOrder;
        if (reuse) {
          // A retry after a failed forward: same paymentId, so a POS that did apply the first
          // attempt recognises it and never applies it twice.
          order = await orders.lock(tx, payload.orderId);
          const refused = await refusal(tx, partnerId, ref, order.id, order.status, reuse.id);
          if (refused) return refused;
          payment = await repo.moveStatus(tx, reuse.id, moveOf(event), now, { recordedAt: now, deadlineAt: deadline });
          if (!payment) return { kind: 'race' };
        } else {
          const claimed = await repo.claimOrder(tx, {
            id: uuidv7(),
            partner_id: partnerId,
            external_reference: ref,
            venue_id: ctx.venue.id,
            order_id: payload.orderId,
            type: payload.type,
            amount_minor: payload.amountMinor,
            tip_minor: payload.tipMinor,
            currency: payload.currency,
            payment_method: payload.paymentMethod,
            status: recordedStatus(event),
            recorded_at: now,
            deadline_at: deadline,
          }, now, ctx.venue.currency);
          ({ payment, order } = claimed);
          // Refused by a unique index or the order's status, yet nothing found to say why: the
          // other claim has gone meanwhile, so try again.
          if (!payment) return (await refusal(tx, partnerId, ref, payload.orderId, order.status, null)) ?? { kind: 'race' };
        }
        // The order is locked and read in this transaction already: settling it needs no second lock.
        const orderStatus = payment.status === 'confirmed' ? await outcomes.applyToOrder(tx, payment, now, order) : null;
        // The request dispatches at once; the dispatch job takes over if the process dies first.
        if (payment.status === 'pending') await watchPending(tx, payment, new Date(now.getTime() + deps.inlineWaitMs), now);
        // If this process dies mid-forward, the claim must not block the order for ever.
        if (payment.status === 'in_flight') await scheduleRecover(tx, payment.id, new Date(now.getTime() + deps.posTimeoutMs + RECOVER_AFTER_MS), now);
        return { kind: 'claimed', payment, orderStatus };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'payments_partner_id_external_reference_key')) return { kind: 'race' };
      if (isUniqueViolation(err, 'payments_one_open_per_order')) {
        throw conflict('Another payment is still pending on this order. Poll it until it is confirmed or failed, then submit again.');
      }
      throw err;
    }
  }

  /**
   * The synchronous forward of an immediate venue. A confirmation comes with the order's status as
   * its transaction left it, so the answer needs no re-read of the order.
   */
  async function forwardNow(ctx: VenueContext, p: PaymentRow, posOrderId: string): Promise<{ payment: PaymentRow; orderStatus: OrderStatus | null }> {
    let answer: PosPaymentAnswer;
    try {
      answer = await ctx.pos.forwardPayment(ctx.connection.pos_venue_id, posOrderId, forwardBody(p, ctx.venue.currency));
    } catch (err) {
      await outcomes.giveBack(p.id, err instanceof PosError ? err.kind : 'error');
      if (err instanceof PosError) {
        log.warn({ paymentId: p.id, err: err.message }, 'forward to an immediate POS failed; nothing recorded');
        throw badGateway(
          `The payment could not be forwarded to the venue's POS (${err.kind === 'timeout' ? 'it did not answer in time' : err.kind === 'unreachable' ? 'it could not be reached' : 'it answered with an error'}). ` +
            'Nothing was recorded and the order is unchanged; retrying with the same externalReference is safe.',
        );
      }
      throw err;
    }
    if (answer.status === 'confirmed') return (await outcomes.confirm(p.id)) ?? { payment: (await repo.findById(ex, p.id))!, orderStatus: null };
    if (answer.status === 'failed') {
      await outcomes.giveBack(p.id, answer.failureCode);
      throw badGateway(
        `The POS refused the payment: ${normalizeFailureCode(answer.failureCode)}. Nothing was recorded and the order is unchanged.`,
      );
    }
    // An immediate POS that answers "pending" is treated as deferred rather than losing the payment.
    return { payment: (await outcomes.acceptedPending(p, POLL_MS)) ?? (await repo.findById(ex, p.id))!, orderStatus: null };
  }

  /** Waits for another request's in-flight forward of the same reference to end. */
  async function waitWhileInFlight(paymentId: string): Promise<PaymentRow | null> {
    const until = Date.now() + deps.posTimeoutMs + 5_000;
    for (;;) {
      const p = await repo.findById(ex, paymentId);
      if (!p || p.status !== 'in_flight') return p;
      if (Date.now() > until) {
        throw conflict('This externalReference is still being forwarded to the POS by an earlier request; retry in a few seconds.');
      }
      await sleep(25);
    }
  }

  async function replay(p: PaymentRow, currency: string): Promise<SubmitResult> {
    const now = await outcomes.current(p);
    return { statusCode: isTerminal(now.status) ? 200 : 202, replay: true, payment: await view(now, currency) };
  }

  return {
    async submit(partnerId: string, venueId: string, orderId: string, body: SubmitPaymentBody): Promise<SubmitResult> {
      // A suspended venue still answers replays of payments it already has; new ones need it active.
      const ref = body.externalReference;
      const found = isUuid(venueId) ? await findSubmission(db, partnerId, venueId, orderId, ref) : null;
      const ctx = contexts.connectedFrom(found?.scoped ?? null);
      const payload = parsePayload(body, orderId, ctx.venue.currency);
      const order = found!.order;
      if (!order) throw notFound(ORDER_NOT_FOUND);

      for (let attempt = 0; attempt < 10; attempt++) {
        let existing = attempt === 0 ? found!.existing : await repo.findByRef(ex, partnerId, ref);
        if (existing) {
          const mismatch = payloadMismatch(payloadOf(existing), payload);
          if (mismatch.length) {
            throw conflict(
              `externalReference "${ref}" was already used with a different ${mismatch.join(', ')}. ` +
                'Send the same payload to read the payment again, or use a new externalReference for a new payment.',
              { mismatchingFields: mismatch },
            );
          }
          if (existing.status === 'in_flight') {
            existing = await waitWhileInFlight(existing.id);
            if (!existing) continue;
          }
          if (existing.status !== 'forward_failed') return replay(existing, ctx.venue.currency);
        }

        // A new submission (or the retry of a failed forward). On a live-bill venue the order is
        // re-read first, so a close or void made on the POS meanwhile answers 422 (DESIGN 9).
        if (ctx.connection.status !== 'active') throw notFound(suspendedMessage(ctx.connection.suspended_reason));
        if (ctx.posType.billRetrieval) {
          try {
            await orders.refresh(ctx, order);
          } catch (err) {
            if (!(err instanceof PosError)) throw err;
            if (ctx.posType.paymentForwarding && ctx.posType.paymentConfirmation === 'immediate') {
              throw badGateway("The venue's POS could not be reached to check the order. Nothing was recorded; retrying with the same externalReference is safe.");
            }
            log.warn({ venueId: ctx.venue.id, err: err.message }, 'could not re-read the order from the POS; using the stored state');
          }
        }
        const claimed = await claim(ctx, partnerId, ref, payload, existing);
        if (claimed.kind === 'race') continue;

        let p = claimed.payment;
        let orderStatus = claimed.orderStatus;
        if (p.status === 'in_flight') {
          ({ payment: p, orderStatus } = await forwardNow(ctx, p, order.pos_order_id));
          // The forward has an outcome, so the claim's recover job has nothing left to do: drop it
          // now rather than let every process claim, run and delete it later. A confirmation
          // dropped it already, in its own transaction (cancelTimeout).
          if (p.status !== 'in_flight' && p.status !== 'confirmed') await cancelJob(ex, paymentJobKey.recover(p.id));
        }
        if (p.status === 'pending') p = await settleInline(p.id);
        // Confirmed by the claim or by the forward's answer: that transaction knows the order's
        // status when the payment took effect, so there is nothing to re-read (a payment confirmed
        // later, by a job or a poll, is viewed afresh).
        const payment = orderStatus ? paymentView(p, orderStatus, ctx.venue.currency) : await view(p, ctx.venue.currency);
        return { statusCode: isTerminal(p.status) ? 200 : 202, replay: false, payment };
      }
      throw new AppError('conflict', 'This externalReference is being submitted concurrently; retry shortly.');
    },

    async status(partnerId: string, venueId: string, orderId: string, externalReference: string): Promise<Payment> {
      const ctx = await contexts.connected(partnerId, venueId);
      const order = isUuid(orderId) ? await orders.find(ctx.venue.id, orderId) : null;
      if (!order) throw notFound(ORDER_NOT_FOUND);
      const p = await repo.findByRef(ex, partnerId, externalReference);
      if (!p || p.order_id !== order.id || p.status === 'in_flight' || p.status === 'forward_failed') {
        throw notFound(`No payment with externalReference "${externalReference}" on this order.`);
      }
      return view(await outcomes.current(p), ctx.venue.currency);
    },

    /** The payment job kinds and their handlers (below), registered by the composition root. */
    jobs(): Record<string, JobDefinition<any>> {
      return createPaymentJobs({ db, clock, log, outcomes });
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;

// ---- the job handlers (the kinds and their scheduling: payments.jobs.ts) ----

interface PaymentJobsDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  outcomes: PaymentOutcomes;
}

type PaymentJob = { payload: { paymentId: string } };

function createPaymentJobs({ db, clock, log, outcomes }: PaymentJobsDeps): Record<string, JobDefinition<any>> {
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
