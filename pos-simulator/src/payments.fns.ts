// Pure parts of the payment extension (DESIGN 6.2): how a payment's state is answered, and what a
// closing payment writes on the checks.

import type { FailureCode, PaymentAnswer, PaymentState } from './types.ts';

/** HTTP status the contract answers for a payment in this state (also for replays). */
export function paymentHttpStatus(p: Pick<PaymentState, 'status' | 'failureCode'>): number {
  if (p.status === 'confirmed') return 200;
  if (p.status === 'pending') return 202;
  return failureHttpStatus(p.failureCode ?? 'pos_config_missing');
}

/** 409 when the check is gone (a conflict with the POS's state), 422 for the other business refusals. */
export function failureHttpStatus(code: FailureCode): number {
  return code === 'pos_check_not_found' ? 409 : 422;
}

export function paymentAnswer(p: Pick<PaymentState, 'status' | 'failureCode'>): PaymentAnswer {
  return p.failureCode ? { status: p.status, failureCode: p.failureCode } : { status: p.status };
}

/** The payment method written on closed checks: every distinct method used, in order. */
export function closingPaymentMethod(confirmed: PaymentState[]): string {
  const methods = confirmed.map((p) => p.paymentMethod ?? '').filter((m) => m !== '');
  return [...new Set(methods)].join(', ');
}

/** Tips taken with the confirmed payments: added to the closed check's tip. */
export function paymentTipsMinor(confirmed: PaymentState[]): number {
  return confirmed.reduce((sum, p) => sum + p.tipMinor, 0);
}
