import { ProblemList } from '../lib/errors.ts';
import { parseAmount, toWire } from '../lib/money.ts';
import type { ForwardPaymentInput } from '../pos/pos-client.ts';
import type { PosType } from '../pos/pos-types.ts';
import type { Payment, SubmitPaymentBody } from './payments.schemas.ts';

// The pure rules of pay-at-table payments: the lifecycle as one transition table (the one the
// service applies to stored payments under its database locks), the idempotency comparison of
// spec 4.7 / 7.3, and the shapes a payment takes: stored, on the way in, to the POS and back out.

// ---- the lifecycle ----

/**
 * A stored payment's status. Partners see three (spec 3.1: pending, confirmed, failed); two more
 * exist only while an immediate venue's POS is being called: `in_flight` (claimed, being forwarded;
 * it blocks other payments on the order) and `forward_failed` (the POS refused or could not be
 * reached: nothing was recorded, and the same reference may be submitted again).
 */
export type PaymentStatus = 'in_flight' | 'forward_failed' | 'pending' | 'confirmed' | 'failed';

/** A payment as the store keeps it (a row of `payments`). */
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
  /** When the final check of PAY-75 ended (ahead of now while it is in flight); null before it. */
  final_check_at: Date | null;
  updated_at: Date;
}

/** A submission not stored yet: where the three submission events start. */
export type Unrecorded = 'new';
export type WireStatus = 'pending' | 'confirmed' | 'failed';
export type FailureCode = 'pos_confirmation_timeout' | 'pos_check_not_found' | 'pos_overpaid' | 'pos_config_missing';

export const FAILURE_CODES: readonly FailureCode[] = [
  'pos_confirmation_timeout',
  'pos_check_not_found',
  'pos_overpaid',
  'pos_config_missing',
];

export type PaymentEvent =
  /** A venue whose POS takes no payments: the payment is recorded, confirmed at once. */
  | { type: 'record' }
  /** A deferred venue: recorded pending, then forwarded and polled by jobs until terminal. */
  | { type: 'defer' }
  /** An immediate venue: claimed in flight while the request forwards it to the POS. */
  | { type: 'forward' }
  | { type: 'pos_confirmed' }
  /** The POS accepted the payment and will confirm it later. */
  | { type: 'pos_pending' }
  | { type: 'pos_rejected'; failureCode: string }
  /** An immediate forward the POS refused or did not answer: nothing is recorded. */
  | { type: 'forward_failed'; reason: string }
  | { type: 'deadline_passed' };
export type PaymentEventType = PaymentEvent['type'];

export interface Transition {
  /** The statuses the event moves a payment out of; in any other status the event changes nothing. */
  from: ReadonlyArray<PaymentStatus | Unrecorded>;
  to: PaymentStatus;
  /** The move means the POS has the payment (a later step asks for its status instead of forwarding it). */
  forwarded: boolean;
}

/**
 * The payment lifecycle (spec 3.1, extended by the in-flight claim of an immediate forward). Every
 * change of a stored payment's status is one row of this table: the repository moves a payment
 * only with a Move built from it, guarded by `status IN (from)`.
 */
export const TRANSITIONS: Readonly<Record<PaymentEventType, Transition>> = {
  record: { from: ['new', 'forward_failed'], to: 'confirmed', forwarded: false },
  defer: { from: ['new', 'forward_failed'], to: 'pending', forwarded: false },
  forward: { from: ['new', 'forward_failed'], to: 'in_flight', forwarded: false },
  pos_confirmed: { from: ['in_flight', 'pending'], to: 'confirmed', forwarded: true },
  pos_pending: { from: ['in_flight'], to: 'pending', forwarded: true },
  pos_rejected: { from: ['pending'], to: 'failed', forwarded: false },
  forward_failed: { from: ['in_flight'], to: 'forward_failed', forwarded: false },
  deadline_passed: { from: ['pending'], to: 'failed', forwarded: false },
};

export interface PaymentState {
  status: PaymentStatus | Unrecorded;
  /** Set exactly when the status is failed: one of the four stable slugs. */
  failureCode: FailureCode | null;
}

/**
 * A POS may answer with a code outside the stable list; partners only ever see the four slugs
 * (PAY-64), so anything else is reported as a configuration problem of the venue's POS.
 */
export function normalizeFailureCode(code: string): FailureCode {
  return (FAILURE_CODES as readonly string[]).includes(code) ? (code as FailureCode) : 'pos_config_missing';
}

function failureCodeOf(event: PaymentEvent): FailureCode | null {
  if (event.type === 'pos_rejected') return normalizeFailureCode(event.failureCode);
  if (event.type === 'deadline_passed') return 'pos_confirmation_timeout';
  return null;
}

/** The state after the event; the same state when the table has no move for it from there. */
export function transition(state: PaymentState, event: PaymentEvent): PaymentState {
  const rule = TRANSITIONS[event.type];
  if (!rule.from.includes(state.status)) return state;
  return { status: rule.to, failureCode: rule.to === 'failed' ? failureCodeOf(event) : null };
}

/** What the store writes for an event: the guard, the new status and the columns that go with it. */
export interface Move {
  from: PaymentStatus[];
  to: PaymentStatus;
  /** failure_code: the partner's slug when failed, the reason of a failed forward (kept for the log), else null. */
  failureCode: string | null;
  forwarded: boolean;
}

export function moveOf(event: PaymentEvent): Move {
  const rule = TRANSITIONS[event.type];
  return {
    from: rule.from.filter((s): s is PaymentStatus => s !== 'new'),
    to: rule.to,
    failureCode: event.type === 'forward_failed' ? event.reason.slice(0, 100) : failureCodeOf(event),
    forwarded: rule.forwarded,
  };
}

/** The status a new submission is recorded with (the event's move out of 'new'). */
export function recordedStatus(event: PaymentEvent): PaymentStatus {
  const next = transition({ status: 'new', failureCode: null }, event).status;
  if (next === 'new') throw new Error(`the event ${event.type} does not record a payment`);
  return next;
}

/** How a submission enters the lifecycle on a venue, by its POS type's capabilities. */
export function submissionEvent(posType: Pick<PosType, 'paymentForwarding' | 'paymentConfirmation'>): PaymentEvent {
  if (!posType.paymentForwarding) return { type: 'record' };
  return posType.paymentConfirmation === 'deferred' ? { type: 'defer' } : { type: 'forward' };
}

export const isTerminal = (status: string): boolean => status === 'confirmed' || status === 'failed';

/** What a partner is told: anything not terminal reads as pending. */
export const wireStatus = (status: PaymentStatus): WireStatus => (status === 'confirmed' || status === 'failed' ? status : 'pending');

// ---- idempotency ----

/** What identifies a submission: the same reference must come with the same of these. */
export interface PaymentPayload {
  orderId: string;
  type: 'full' | 'partial';
  amountMinor: number;
  tipMinor: number | null;
  currency: string | null;
  paymentMethod: string | null;
}

const PAYLOAD_FIELDS: Array<[keyof PaymentPayload, string]> = [
  ['orderId', 'orderId'],
  ['type', 'type'],
  ['amountMinor', 'amount'],
  ['tipMinor', 'tip'],
  ['currency', 'currency'],
  ['paymentMethod', 'paymentMethod'],
];

/** The wire names of the fields that differ between a stored payment and a new submission. */
export function payloadMismatch(stored: PaymentPayload, submitted: PaymentPayload): string[] {
  return PAYLOAD_FIELDS.filter(([key]) => stored[key] !== submitted[key]).map(([, name]) => name);
}

/**
 * The amounts of a submission, read in the venue's currency (a request's own `currency` is only
 * echoed, DES-124): more decimals than the currency has, or a tip larger than the amount, are a 400
 * naming every offending field.
 */
export function parsePayload(body: SubmitPaymentBody, orderId: string, venueCurrency: string): PaymentPayload {
  const problems = new ProblemList();
  const amount = parseAmount(body.amount, venueCurrency);
  if (!amount.ok) problems.add('amount', amount.problem);
  const tip = body.tip === undefined ? null : parseAmount(body.tip, venueCurrency);
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

export const payloadOf = (p: PaymentRow): PaymentPayload => ({
  orderId: p.order_id,
  type: p.type,
  amountMinor: p.amount_minor,
  tipMinor: p.tip_minor,
  currency: p.currency,
  paymentMethod: p.payment_method,
});

// ---- shapes ----

/**
 * The body of a forward to the POS (the payment extension of the POS contract,
 * docs/pos-partner-contract.md). It carries the service's payment id, so a retried forward is recognised.
 */
export const forwardBody = (p: PaymentRow, venueCurrency: string): ForwardPaymentInput => ({
  paymentId: p.id,
  type: p.type,
  amount: toWire(p.amount_minor, venueCurrency),
  tip: toWire(p.tip_minor ?? 0, venueCurrency),
  currency: p.currency ?? venueCurrency,
  paymentMethod: p.payment_method,
});

/** The payment as a partner reads it; a voided order reads as closed (the lifecycle knows open and closed). */
export function paymentView(p: PaymentRow, orderStatus: string | null, venueCurrency: string): Payment {
  const status = wireStatus(p.status);
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
    orderStatus: orderStatus === 'open' ? 'open' : 'closed',
    recordedAt: p.recorded_at.toISOString(),
    confirmedAt: status === 'confirmed' && p.confirmed_at ? p.confirmed_at.toISOString() : null,
  };
}
