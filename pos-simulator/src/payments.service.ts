// The payment extension of DESIGN 6.2 as a POS would implement it: forwarded payments are applied
// once per paymentId, a full payment closes the order, partials accumulate and close it at the
// balance, and each venue's behaviour knob decides how (and whether) the POS answers.

import { badRequest, notFound } from './errors.ts';
import { fromMinor, toMinor } from './money.ts';
import { balanceMinor } from './orders.fns.ts';
import { closeOrderState } from './orders.service.ts';
import { closingPaymentMethod, paymentAnswer, paymentHttpStatus, paymentTipsMinor } from './payments.fns.ts';
import type { SimStore } from './store.ts';
import type { FailureCode, PaymentAnswer, PaymentState, VenueState } from './types.ts';
import type { VenuesService } from './venues.service.ts';
import type { PaymentForwardBody } from './contract.schemas.ts';

/** What the route does: answer with a status and body, or never answer (the 'hang' knob). */
export type ForwardResult = { kind: 'answer'; statusCode: number; body: PaymentAnswer | Record<string, unknown> } | { kind: 'hang' };

export function createPaymentsService(store: SimStore, venues: VenuesService) {
  const timers = new Set<NodeJS.Timeout>();

  const answer = (p: PaymentState): ForwardResult => ({ kind: 'answer', statusCode: paymentHttpStatus(p), body: paymentAnswer(p) });

  function openOrderOf(p: PaymentState) {
    const order = store.order(p.venueId, p.orderId);
    return order && order.status === 'open' ? order : undefined;
  }

  /** Confirms p if the order can still take it, otherwise fails it with the reason. */
  function apply(p: PaymentState, now: number): void {
    const order = openOrderOf(p);
    if (!order) return fail(p, 'pos_check_not_found', now);
    if (p.type === 'partial' && p.amountMinor - p.tipMinor > balanceMinor(order, store.paymentsOf(p.venueId, p.orderId))) {
      return fail(p, 'pos_overpaid', now);
    }
    p.status = 'confirmed';
    p.settledAt = now;
    const confirmed = store.paymentsOf(p.venueId, p.orderId).filter((x) => x.status === 'confirmed');
    if (p.type === 'full' || balanceMinor(order, confirmed) <= 0) {
      closeOrderState(order, now, closingPaymentMethod(confirmed), paymentTipsMinor(confirmed));
    }
    order.updatedAt = now;
  }

  function fail(p: PaymentState, code: FailureCode, now: number): void {
    p.status = 'failed';
    p.failureCode = code;
    p.settledAt = now;
  }

  /** Turns every pending payment whose time has come (on the simulator clock) terminal. */
  function settleDue(): void {
    const now = store.now();
    let changed = false;
    for (const p of store.pendingPayments()) {
      if (p.dueAt === null || p.dueAt > now) continue;
      if (p.outcome === 'confirmed') apply(p, now);
      else fail(p, p.outcome ?? 'pos_config_missing', now);
      changed = true;
    }
    if (changed) store.save();
  }

  /** Wakes up when a deferred payment is due; the clock may also be advanced past it meanwhile. */
  function arm(p: PaymentState): void {
    if (p.dueAt === null) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      settleDue();
    }, Math.max(0, p.dueAt - store.now()));
    timer.unref();
    timers.add(timer);
  }

  function money(venue: VenueState, value: number, field: string): number {
    const minor = toMinor(value, venue.currency);
    if (minor === null || minor < 0) throw badRequest(`${field} is not a valid ${venue.currency} amount`);
    return minor;
  }

  function forward(venueId: string, orderId: string, body: PaymentForwardBody): ForwardResult {
    const venue = venues.get(venueId);
    settleDue();
    const b = venue.behaviour;

    // Transport-level behaviours come first: a POS that is down or stuck answers nothing useful,
    // whatever the payment. Nothing is recorded, so the same paymentId can be sent again.
    if (b.payment === 'hang') return { kind: 'hang' };
    if (b.failNext && b.failNext > 0) {
      b.failNext -= 1;
      store.save();
      return { kind: 'answer', statusCode: 503, body: { error: 'POS temporarily unavailable (failNext)' } };
    }
    if (b.payment === 'error5xx') return { kind: 'answer', statusCode: 503, body: { error: 'POS temporarily unavailable' } };

    const previous = store.payment(venueId, body.paymentId);
    // Deliberately broken mode: a POS without idempotency applies the replay as a new payment.
    if (previous && store.broken !== 'double-apply-payment') return answer(previous);

    const amountMinor = money(venue, body.amount, 'amount');
    const tipMinor = money(venue, body.tip ?? 0, 'tip');
    if (tipMinor > amountMinor) throw badRequest('tip is part of amount and cannot exceed it');

    const now = store.now();
    const p: PaymentState = {
      paymentId: body.paymentId,
      venueId,
      orderId,
      type: body.type,
      amountMinor,
      tipMinor,
      currency: body.currency ?? null,
      paymentMethod: body.paymentMethod ?? null,
      status: 'pending',
      failureCode: null,
      receivedAt: now,
      dueAt: null,
      outcome: null,
      settledAt: null,
    };
    store.addPayment(p);

    const order = openOrderOf(p);
    if (!order) fail(p, 'pos_check_not_found', now);
    else if (p.type === 'partial' && amountMinor - tipMinor > balanceMinor(order, store.paymentsOf(venueId, orderId))) {
      fail(p, 'pos_overpaid', now);
    } else if (b.payment === 'reject') fail(p, b.failureCode, now);
    else if (b.payment === 'immediate') apply(p, now);
    else {
      p.dueAt = b.delayMs === null ? null : now + b.delayMs;
      p.outcome = b.outcome;
      arm(p);
    }
    store.save();
    return answer(p);
  }

  function status(venueId: string, orderId: string, paymentId: string): { statusCode: number; body: PaymentAnswer & Record<string, unknown> } {
    const venue = venues.get(venueId);
    settleDue();
    const p = store.paymentsOf(venueId, orderId).find((x) => x.paymentId === paymentId);
    if (!p) throw notFound(`payment ${paymentId} on order ${orderId}`);
    return {
      statusCode: 200,
      body: {
        ...paymentAnswer(p),
        paymentId: p.paymentId,
        orderId: p.orderId,
        type: p.type,
        amount: fromMinor(p.amountMinor, venue.currency),
        tip: fromMinor(p.tipMinor, venue.currency),
      },
    };
  }

  return {
    forward,
    status,
    settleDue,
    /** Re-arms timers for payments left pending by an earlier run (state file). */
    resume(): void {
      for (const p of store.pendingPayments()) arm(p);
      settleDue();
    },
    stop(): void {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
