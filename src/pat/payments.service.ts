import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { cancelJob, scheduleJob, type JobDefinition } from '../db/jobs.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, badGateway, conflict, notFound, ProblemList, unprocessable } from '../lib/errors.ts';
import { isUuid, uuidv7 } from '../lib/ids.ts';
import { parseAmount, toWire } from '../lib/money.ts';
import { PosError, type PosPaymentAnswer } from '../pos/pos-client.ts';
import { isSettled, orderTotals } from './bill.fns.ts';
import type { ConnectionsService } from '../pos-mirror/connections.service.ts';
import type { OrdersService } from '../pos-mirror/orders.service.ts';
import { isTerminal, normalizeFailureCode, payloadMismatch, type PaymentPayload } from './payments.fns.ts';
import * as repo from './payments.repository.ts';
import type { Payment, SubmitPaymentBody } from './payments.schemas.ts';
import { suspendedMessage, type VenueContext, type VenueContexts } from './venue-context.ts';

// Pay-at-table payments (spec 2.11, 3.1, 3.2, 4.7, 7.3, 7.4; DESIGN 7).
//
// A submission claims the order in one short transaction (order row locked, one in-flight or
// pending payment per order, the reference unique per partner), talks to the POS with no
// transaction open, and records the outcome in a second short transaction.
//   no forwarding   recorded confirmed at once
//   immediate       forwarded synchronously: confirmed (200), or nothing recorded (502)
//   deferred        recorded pending with a timeout job, dispatched, waited on a few seconds
//                   (200 if terminal by then, else 202), then polled by a job until terminal
// Every pending payment fails with pos_confirmation_timeout at its deadline, from the timeout job
// or, whichever comes first, from the next read that sees the deadline has passed.

export const JOBS = {
  dispatch: 'payment.dispatch',
  timeout: 'payment.timeout',
  recover: 'payment.recover',
  lateCheck: 'payment.late-check',
} as const;

const ORDER_NOT_FOUND = 'Order not found in this venue.';
const POLL_MS = 1000;
const INLINE_STEP_MS = 200;
/** Checks of the POS after a payment timed out, to catch a late confirmation for reconciliation. */
const LATE_CHECKS_MS = [30_000, 120_000, 600_000];

export interface PaymentsServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  contexts: VenueContexts;
  orders: OrdersService;
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

function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint || (e.message ?? '').includes(constraint);
}

const payloadOf = (p: repo.PaymentRow): PaymentPayload => ({
  orderId: p.order_id,
  type: p.type,
  amountMinor: p.amount_minor,
  tipMinor: p.tip_minor,
  currency: p.currency,
  paymentMethod: p.payment_method,
});

export function createPaymentsService(deps: PaymentsServiceDeps) {
  const { db, clock, log, contexts, orders, connections } = deps;
  const ex = db.kysely;

  /** The amounts of a submission, checked against the venue's currency (DES-124, DESIGN 5). */
  function parsePayload(body: SubmitPaymentBody, orderId: string, currency: string): PaymentPayload {
    const problems = new ProblemList();
    const amount = parseAmount(body.amount, currency);
    if (!amount.ok) problems.add('amount', amount.problem);
    const tip = body.tip === undefined ? null : parseAmount(body.tip, currency);
    if (tip && !tip.ok) problems.add('tip', tip.problem);
    if (amount.ok && tip?.ok && tip.minor > amount.minor) problems.add('tip', 'must not be greater than amount (tip is the part of amount that is tip)');
    problems.throwIfAny();
    return {
      orderId,
      type: body.type as 'full' | 'partial',
      amountMinor: (amount as { minor: number }).minor,
      tipMinor: tip ? (tip as { minor: number }).minor : null,
      currency: body.currency ?? null,
      paymentMethod: body.paymentMethod ?? null,
    };
  }

  async function view(p: repo.PaymentRow, venueCurrency: string): Promise<Payment> {
    const order = await orders.find(p.venue_id, p.order_id);
    // A voided order reads as closed: the payment lifecycle knows open and closed only (spec 2.11).
    const orderStatus = order?.status === 'open' ? 'open' : 'closed';
    const status = p.status === 'confirmed' || p.status === 'failed' ? p.status : 'pending';
    return {
      paymentId: p.id,
      orderId: p.order_id,
      status,
      failureCode: status === 'failed' ? (normalizeFailureCode(p.failure_code ?? 'pos_config_missing') as Payment['failureCode']) : null,
      type: p.type,
      amount: toWire(p.amount_minor, venueCurrency),
      currency: p.currency,
      paymentMethod: p.payment_method,
      tip: p.tip_minor === null ? null : toWire(p.tip_minor, venueCurrency),
      externalReference: p.external_reference,
      orderStatus,
      recordedAt: p.recorded_at.toISOString(),
      confirmedAt: status === 'confirmed' && p.confirmed_at ? p.confirmed_at.toISOString() : null,
    };
  }

  // ---- outcomes (each one short transaction) ----

  /** Settles the order with a confirmed payment: a full payment or a reached balance closes it (spec 3.2). */
  async function applyToOrder(tx: Executor, payment: repo.PaymentRow, now: Date): Promise<void> {
    const order = await orders.lock(tx, payment.order_id);
    if (order.status !== 'open') return;
    let close = payment.type === 'full';
    if (!close) {
      const checks = await orders.openChecks(order.id, tx);
      const payments = await repo.listOrderPayments(tx, order.id);
      const totals = orderTotals(checks, order.prepayment_minor, payments.map((p) => ({ status: p.status, amountMinor: p.amount_minor, tipMinor: p.tip_minor })));
      close = isSettled(totals);
    }
    if (close) await orders.closeByPat(tx, order.id, now, payment.payment_method);
  }

  /**
   * Runs fn in a transaction that first locks the payment's order. Every change of a payment's
   * status takes the order lock first, the same order as a new claim, so concurrent claims and
   * outcomes on one order queue behind each other instead of deadlocking.
   */
  async function underOrderLock<T>(paymentId: string, fn: (tx: Executor) => Promise<T>, outer?: Executor): Promise<T | null> {
    const p = await repo.findById(outer ?? ex, paymentId);
    if (!p) return null;
    const run = async (tx: Executor) => {
      await orders.lock(tx, p.order_id);
      return fn(tx);
    };
    return outer ? run(outer) : ex.transaction().execute(run);
  }

  async function confirm(paymentId: string): Promise<repo.PaymentRow | null> {
    const now = clock.now();
    return underOrderLock(paymentId, async (tx) => {
      const row = await repo.moveStatus(tx, paymentId, ['pending', 'in_flight'], 'confirmed', now, { forwarded: true });
      if (row) {
        await applyToOrder(tx, row, now);
        await cancelJob(tx, `payment-timeout:${row.id}`);
        return row;
      }
      await noteLateAnswer(tx, paymentId, { status: 'confirmed' }, now);
      return null;
    });
  }

  async function reject(paymentId: string, failureCode: string): Promise<repo.PaymentRow | null> {
    const now = clock.now();
    return underOrderLock(paymentId, async (tx) => {
      const row = await repo.moveStatus(tx, paymentId, ['pending'], 'failed', now, { failureCode: normalizeFailureCode(failureCode) });
      if (row) await cancelJob(tx, `payment-timeout:${row.id}`);
      else await noteLateAnswer(tx, paymentId, { status: 'failed', failureCode }, now);
      return row;
    });
  }

  /**
   * A POS answer for a payment that already timed out is not applied (PAY-31); it is recorded, logged
   * and written as an event, so the partner and the venue can reconcile (DES-104).
   */
  async function noteLateAnswer(tx: Executor, paymentId: string, answer: PosPaymentAnswer, now: Date): Promise<void> {
    const p = await repo.findById(tx, paymentId);
    if (!p || p.status !== 'failed' || p.failure_code !== 'pos_confirmation_timeout') return;
    if (!(await repo.recordLateStatus(tx, p.id, answer.status, now))) return;
    log.warn({ paymentId: p.id, venueId: p.venue_id, posStatus: answer.status }, 'POS answered a payment after its confirmation timeout; not applied, needs reconciliation');
    await repo.insertEvent(tx, p.partner_id, answer.status === 'confirmed' ? 'payment.late_confirmation' : 'payment.late_answer', {
      paymentId: p.id,
      externalReference: p.external_reference,
      orderId: p.order_id,
      venueId: p.venue_id,
      posStatus: answer.status,
      failureCode: p.failure_code,
    }, now);
  }

  /** Fails a pending payment whose deadline has passed (idempotent; exactly once in effect). */
  async function expire(tx: Executor, paymentId: string, now: Date): Promise<repo.PaymentRow | null> {
    const p = await repo.findById(tx, paymentId);
    if (!p || p.status !== 'pending' || p.deadline_at.getTime() > now.getTime()) return null;
    await orders.lock(tx, p.order_id);
    const row = await repo.moveStatus(tx, paymentId, ['pending'], 'failed', now, { failureCode: 'pos_confirmation_timeout' });
    if (row?.forwarded) {
      await scheduleJob(tx, { kind: JOBS.lateCheck, runAt: new Date(now.getTime() + LATE_CHECKS_MS[0]), dedupeKey: `payment-late:${row.id}`, payload: { paymentId: row.id, attempt: 0 } }, now);
    }
    return row;
  }

  /** The payment as it is now, failing it first if its deadline passed while nobody looked. */
  async function current(p: repo.PaymentRow): Promise<repo.PaymentRow> {
    if (p.status !== 'pending' || p.deadline_at.getTime() > clock.now().getTime()) return p;
    await ex.transaction().execute((tx) => expire(tx, p.id, clock.now()));
    return (await repo.findById(ex, p.id))!;
  }

  // ---- talking to the POS ----

  interface PosTarget {
    pos: VenueContext['pos'];
    posVenueId: string;
    posOrderId: string;
    currency: string;
  }

  async function targetOf(p: repo.PaymentRow): Promise<PosTarget | null> {
    const cv = await connections.forVenue(p.venue_id);
    const order = cv ? await orders.find(p.venue_id, p.order_id) : null;
    if (!cv || !order) return null;
    return { pos: cv.pos, posVenueId: cv.connection.pos_venue_id, posOrderId: order.pos_order_id, currency: cv.venue.currency };
  }

  const forwardBody = (p: repo.PaymentRow, currency: string) => ({
    paymentId: p.id,
    type: p.type,
    amount: toWire(p.amount_minor, currency),
    tip: toWire(p.tip_minor ?? 0, currency),
    currency: p.currency ?? currency,
    paymentMethod: p.payment_method,
  });

  /**
   * One step of a pending payment: forward it if the POS has not accepted it yet, else ask the POS
   * how it stands; record a terminal answer. POS failures leave it pending (retried until the deadline).
   */
  async function step(paymentId: string): Promise<repo.PaymentRow | null> {
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
  }

  /** Waits up to the in-request wait for a pending payment to turn terminal (deferred venues). */
  async function settleInline(paymentId: string): Promise<repo.PaymentRow> {
    const until = Date.now() + deps.inlineWaitMs;
    let p = await step(paymentId);
    while (p && p.status === 'pending' && Date.now() < until) {
      await sleep(Math.min(INLINE_STEP_MS, Math.max(0, until - Date.now())));
      p = await step(paymentId);
    }
    return p!;
  }

  // ---- submission ----

  type Claim = { kind: 'claimed'; payment: repo.PaymentRow } | { kind: 'race' };

  /** The first transaction: lock the order, check it can take a payment, record the claim. */
  async function claim(ctx: VenueContext, partnerId: string, ref: string, payload: PaymentPayload, reuse: repo.PaymentRow | null): Promise<Claim> {
    const now = clock.now();
    const forwarding = ctx.posType.paymentForwarding;
    const deferred = forwarding && ctx.posType.paymentConfirmation === 'deferred';
    const status: repo.StoredPaymentStatus = !forwarding ? 'confirmed' : deferred ? 'pending' : 'in_flight';
    const deadline = new Date(now.getTime() + deps.confirmationTimeoutS * 1000);
    try {
      return await ex.transaction().execute(async (tx): Promise<Claim> => {
        const order = await orders.lock(tx, payload.orderId);
        // Another request with this reference claimed first (we waited on its lock): replay it.
        const same = await repo.findByRef(tx, partnerId, ref);
        if (same && same.id !== reuse?.id) return { kind: 'race' };
        if (order.status === 'closed') throw unprocessable('The order is already closed; it cannot take a payment.');
        if (order.status === 'void') throw unprocessable('The order was voided; it cannot take a payment.');
        const open = await repo.openOnOrder(tx, order.id);
        if (open && open.id !== reuse?.id) {
          throw conflict(
            `Another payment (externalReference "${open.external_reference}") is still pending on this order. ` +
              'Poll it until it is confirmed or failed, then submit again.',
          );
        }
        let payment: repo.PaymentRow | null;
        if (reuse) {
          // A retry after a failed forward: same paymentId, so a POS that did apply the first
          // attempt recognises it and never applies it twice.
          payment = await repo.moveStatus(tx, reuse.id, ['forward_failed'], status, now, { recordedAt: now, deadlineAt: deadline });
          if (!payment) return { kind: 'race' };
        } else {
          payment = await repo.insertPayment(tx, {
            id: uuidv7(),
            partner_id: partnerId,
            external_reference: ref,
            venue_id: ctx.venue.id,
            order_id: order.id,
            type: payload.type,
            amount_minor: payload.amountMinor,
            tip_minor: payload.tipMinor,
            currency: payload.currency,
            payment_method: payload.paymentMethod,
            status,
            recorded_at: now,
            deadline_at: deadline,
          }, now);
        }
        if (status === 'confirmed') await applyToOrder(tx, payment, now);
        if (status === 'pending') {
          await scheduleJob(tx, { kind: JOBS.timeout, runAt: deadline, dedupeKey: `payment-timeout:${payment.id}`, payload: { paymentId: payment.id } }, now);
          // The request dispatches at once; this job takes over if the process dies first.
          await scheduleJob(tx, { kind: JOBS.dispatch, runAt: new Date(now.getTime() + deps.inlineWaitMs), dedupeKey: `payment-dispatch:${payment.id}`, payload: { paymentId: payment.id } }, now);
        }
        if (status === 'in_flight') {
          // If this process dies mid-forward, the claim must not block the order for ever.
          await scheduleJob(tx, { kind: JOBS.recover, runAt: new Date(now.getTime() + deps.posTimeoutMs + 15_000), dedupeKey: `payment-recover:${payment.id}`, payload: { paymentId: payment.id } }, now);
        }
        return { kind: 'claimed', payment };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'payments_partner_id_external_reference_key')) return { kind: 'race' };
      if (isUniqueViolation(err, 'payments_one_open_per_order')) {
        throw conflict('Another payment is still pending on this order. Poll it until it is confirmed or failed, then submit again.');
      }
      throw err;
    }
  }

  /** The synchronous forward of an immediate venue. */
  async function forwardNow(ctx: VenueContext, p: repo.PaymentRow): Promise<repo.PaymentRow> {
    const order = (await orders.find(ctx.venue.id, p.order_id))!;
    let answer: PosPaymentAnswer;
    try {
      answer = await ctx.pos.forwardPayment(ctx.connection.pos_venue_id, order.pos_order_id, forwardBody(p, ctx.venue.currency));
    } catch (err) {
      await giveBack(p.id, err instanceof PosError ? err.kind : 'error');
      if (err instanceof PosError) {
        log.warn({ paymentId: p.id, err: err.message }, 'forward to an immediate POS failed; nothing recorded');
        throw badGateway(
          `The payment could not be forwarded to the venue's POS (${err.kind === 'timeout' ? 'it did not answer in time' : err.kind === 'unreachable' ? 'it could not be reached' : 'it answered with an error'}). ` +
            'Nothing was recorded and the order is unchanged; retrying with the same externalReference is safe.',
        );
      }
      throw err;
    }
    if (answer.status === 'confirmed') return (await confirm(p.id)) ?? (await repo.findById(ex, p.id))!;
    if (answer.status === 'failed') {
      await giveBack(p.id, answer.failureCode);
      throw badGateway(
        `The POS refused the payment: ${normalizeFailureCode(answer.failureCode)}. Nothing was recorded and the order is unchanged.`,
      );
    }
    // An immediate POS that answers "pending" is treated as deferred rather than losing the payment.
    const now = clock.now();
    return ex.transaction().execute(async (tx) => {
      await orders.lock(tx, p.order_id);
      const row = (await repo.moveStatus(tx, p.id, ['in_flight'], 'pending', now, { forwarded: true }))!;
      await scheduleJob(tx, { kind: JOBS.timeout, runAt: row.deadline_at, dedupeKey: `payment-timeout:${row.id}`, payload: { paymentId: row.id } }, now);
      await scheduleJob(tx, { kind: JOBS.dispatch, runAt: new Date(now.getTime() + POLL_MS), dedupeKey: `payment-dispatch:${row.id}`, payload: { paymentId: row.id } }, now);
      return row;
    });
  }

  /** Undoes an in-flight claim: the payment is not recorded, the order is free again. */
  async function giveBack(paymentId: string, reason: string): Promise<void> {
    await underOrderLock(paymentId, (tx) =>
      repo.moveStatus(tx, paymentId, ['in_flight'], 'forward_failed', clock.now(), { failureCode: reason.slice(0, 100) }),
    );
  }

  /** Waits for another request's in-flight forward of the same reference to end. */
  async function waitWhileInFlight(paymentId: string): Promise<repo.PaymentRow | null> {
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

  async function replay(p: repo.PaymentRow, currency: string): Promise<SubmitResult> {
    const now = await current(p);
    return { statusCode: isTerminal(now.status) ? 200 : 202, replay: true, payment: await view(now, currency) };
  }

  return {
    async submit(partnerId: string, venueId: string, orderId: string, body: SubmitPaymentBody): Promise<SubmitResult> {
      // A suspended venue still answers replays of payments it already has; new ones need it active.
      const ctx = await contexts.connected(partnerId, venueId);
      const payload = parsePayload(body, orderId, ctx.venue.currency);
      const order = isUuid(orderId) ? await orders.find(ctx.venue.id, orderId) : null;
      if (!order) throw notFound(ORDER_NOT_FOUND);
      const ref = body.externalReference;

      for (let attempt = 0; attempt < 10; attempt++) {
        let existing = await repo.findByRef(ex, partnerId, ref);
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
        if (p.status === 'in_flight') p = await forwardNow(ctx, p);
        if (p.status === 'pending') p = await settleInline(p.id);
        return { statusCode: isTerminal(p.status) ? 200 : 202, replay: false, payment: await view(p, ctx.venue.currency) };
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
      return view(await current(p), ctx.venue.currency);
    },

    jobs(): Record<string, JobDefinition<any>> {
      return {
        [JOBS.timeout]: {
          run: async (job: { payload: { paymentId: string } }, ctx) => {
            await ctx.transaction((tx) => expire(tx, job.payload.paymentId, clock.now()));
          },
        } as JobDefinition<{ paymentId: string }>,

        [JOBS.dispatch]: {
          run: async (job: { payload: { paymentId: string } }) => {
            const p = await step(job.payload.paymentId);
            if (!p || p.status !== 'pending') return;
            const now = clock.now().getTime();
            if (now >= p.deadline_at.getTime()) return; // the timeout job ends it
            return { retryAt: new Date(Math.min(now + (p.forwarded ? POLL_MS : 2 * POLL_MS), p.deadline_at.getTime())) };
          },
        } as JobDefinition<{ paymentId: string }>,

        // An in-flight claim left by a process that died mid-forward: ask the POS what happened.
        [JOBS.recover]: {
          run: async (job: { payload: { paymentId: string } }) => {
            const p = await repo.findById(ex, job.payload.paymentId);
            if (!p || p.status !== 'in_flight') return;
            const target = await targetOf(p);
            let answer: PosPaymentAnswer | null = null;
            try {
              answer = target ? await target.pos.paymentStatus(target.posVenueId, target.posOrderId, p.id) : null;
            } catch {
              answer = null;
            }
            if (answer?.status === 'confirmed') await confirm(p.id);
            else if (answer?.status === 'pending') {
              const now = clock.now();
              await ex.transaction().execute(async (tx) => {
                await orders.lock(tx, p.order_id);
                const row = await repo.moveStatus(tx, p.id, ['in_flight'], 'pending', now, { forwarded: true });
                if (!row) return;
                await scheduleJob(tx, { kind: JOBS.timeout, runAt: row.deadline_at, dedupeKey: `payment-timeout:${row.id}`, payload: { paymentId: row.id } }, now);
                await scheduleJob(tx, { kind: JOBS.dispatch, runAt: now, dedupeKey: `payment-dispatch:${row.id}`, payload: { paymentId: row.id } }, now);
              });
            } else {
              log.warn({ paymentId: p.id }, 'an interrupted forward was not applied by the POS (or it cannot tell); released');
              await giveBack(p.id, 'interrupted');
            }
          },
        } as JobDefinition<{ paymentId: string }>,

        [JOBS.lateCheck]: {
          run: async (job: { payload: { paymentId: string; attempt: number } }) => {
            const p = await repo.findById(ex, job.payload.paymentId);
            if (!p || p.status !== 'failed' || p.failure_code !== 'pos_confirmation_timeout') return;
            const target = await targetOf(p);
            if (!target) return;
            try {
              const answer = await target.pos.paymentStatus(target.posVenueId, target.posOrderId, p.id);
              if (answer.status !== 'pending') {
                await ex.transaction().execute((tx) => noteLateAnswer(tx, p.id, answer, clock.now()));
                return;
              }
            } catch (err) {
              log.debug({ paymentId: p.id, err: (err as Error).message }, 'late check could not reach the POS');
            }
            const next = job.payload.attempt + 1;
            if (next >= LATE_CHECKS_MS.length) return;
            const now = clock.now();
            await scheduleJob(ex, { kind: JOBS.lateCheck, runAt: new Date(now.getTime() + LATE_CHECKS_MS[next]), dedupeKey: `payment-late:${p.id}:${next}`, payload: { paymentId: p.id, attempt: next } }, now);
          },
        } as JobDefinition<{ paymentId: string; attempt: number }>,
      };
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
