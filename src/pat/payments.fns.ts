// The payment lifecycle of spec 3.1 as a transition table, and the idempotency comparison of
// spec 4.7 / 7.3. Pure: the service applies these under its database locks.

export type PaymentStatus = 'pending' | 'confirmed' | 'failed';
export type FailureCode = 'pos_confirmation_timeout' | 'pos_check_not_found' | 'pos_overpaid' | 'pos_config_missing';

export const FAILURE_CODES: readonly FailureCode[] = [
  'pos_confirmation_timeout',
  'pos_check_not_found',
  'pos_overpaid',
  'pos_config_missing',
];

export type PaymentEvent =
  | { type: 'pos_confirmed' }
  | { type: 'pos_rejected'; failureCode: string }
  | { type: 'pos_pending' }
  | { type: 'deadline_passed' };

export interface PaymentState {
  status: PaymentStatus;
  failureCode: FailureCode | null;
}

/**
 * A POS may answer with a code outside the stable list; partners only ever see the four slugs
 * (PAY-64), so anything else is reported as a configuration problem of the venue's POS.
 */
export function normalizeFailureCode(code: string): FailureCode {
  return (FAILURE_CODES as readonly string[]).includes(code) ? (code as FailureCode) : 'pos_config_missing';
}

/** spec 3.1: pending moves once, to confirmed or failed; confirmed and failed are terminal. */
export function transition(state: PaymentState, event: PaymentEvent): PaymentState {
  if (state.status !== 'pending') return state;
  switch (event.type) {
    case 'pos_confirmed':
      return { status: 'confirmed', failureCode: null };
    case 'pos_rejected':
      return { status: 'failed', failureCode: normalizeFailureCode(event.failureCode) };
    case 'deadline_passed':
      return { status: 'failed', failureCode: 'pos_confirmation_timeout' };
    case 'pos_pending':
      return state;
  }
}

export const isTerminal = (status: string): boolean => status === 'confirmed' || status === 'failed';

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
