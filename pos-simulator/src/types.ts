// Internal state of the simulator (what the state file holds) and the wire shapes it answers.
// Money is integer minor units inside (fields ending in Minor); epoch ms for instants (fields ending in At).

import type { BrokenMode } from './broken.ts';
import type { ClockState } from './time.ts';

export type FailureCode = 'pos_check_not_found' | 'pos_overpaid' | 'pos_config_missing';
export const FAILURE_CODES: readonly FailureCode[] = ['pos_check_not_found', 'pos_overpaid', 'pos_config_missing'];

/** How the venue's POS answers a forwarded payment (DESIGN 6.2 extension). */
export type PaymentBehaviour =
  | { payment: 'immediate' }
  | { payment: 'deferred'; delayMs: number | null; outcome: 'confirmed' | FailureCode }
  | { payment: 'reject'; failureCode: FailureCode }
  | { payment: 'error5xx' }
  | { payment: 'hang' };

/** A payment knob plus an optional count of forwards to answer 503 before behaving normally. */
export type VenueBehaviour = PaymentBehaviour & { failNext?: number };

export interface TableState { id: string; name: string }
export interface MenuEntry { sku: string; name: string; priceMinor: number }

export interface VenueState {
  id: string;
  name: string;
  timezone: string;
  currency: string;
  itemsSupported: boolean;
  behaviour: VenueBehaviour;
  /** The restaurant withdrew the integration's access in its back office: contract calls get 403. */
  accessRevoked?: boolean;
  tables: TableState[];
  menu: MenuEntry[];
  /** Per-venue counters: order ids, check numbers and item ids are readable sequences. */
  nextOrderNo: number;
  nextCheckNo: number;
  nextItemId: number;
}

export interface ItemState {
  id: number;
  sku: string | null;
  name: string;
  priceMinor: number;
  quantity: number;
  notes: string | null;
  /** Line discount in minor units (0 when none); counted in the check's discount. */
  discountMinor: number;
}

export type CheckStatus = 'open' | 'closed' | 'void';

export interface CheckState {
  checkNumber: string;
  status: CheckStatus;
  items: ItemState[];
  taxMinor: number;
  tipMinor: number;
  /** Check-level discount, not counting line discounts. */
  discountMinor: number;
  paymentMethod: string;
  closedAt: number | null;
  voidedAt: number | null;
}

export type PaymentStatus = 'pending' | 'confirmed' | 'failed';

export interface PaymentState {
  paymentId: string;
  venueId: string;
  /** The order id the payment was sent for (it may not exist: such payments fail). */
  orderId: string;
  type: 'full' | 'partial';
  amountMinor: number;
  tipMinor: number;
  currency: string | null;
  paymentMethod: string | null;
  status: PaymentStatus;
  failureCode: FailureCode | null;
  receivedAt: number;
  /** When a pending payment turns terminal (deferred behaviour); null = never on its own. */
  dueAt: number | null;
  /** Outcome a pending payment turns into at dueAt. */
  outcome: 'confirmed' | FailureCode | null;
  settledAt: number | null;
}

export interface OrderState {
  id: string;
  venueId: string;
  status: 'open' | 'closed';
  /** 'partner' = created through POST /venue/{id}/orders; 'pos' = opened by staff (walk-in). */
  source: 'partner' | 'pos';
  /** The partner's own order id (create-order body `id`), when it sent one. */
  reservationId: string | null;
  tables: string[];
  partySize: number;
  guestName: string;
  guestEmail: string | null;
  guestTelephone: string | null;
  prepaymentMinor: number;
  seatedAt: number;
  checks: CheckState[];
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
}

export interface SimState {
  version: 1;
  apiKey: string;
  clock: ClockState;
  broken: BrokenMode | null;
  venues: VenueState[];
  orders: OrderState[];
  /** Every payment forwarded to any venue, in arrival order. */
  payments: PaymentState[];
}

// ---- Wire shapes (spec 2.6, 2.7, DESIGN 6.2) ----

export interface PosTable { id: string; name: string }

export interface PosItem {
  id: number;
  name: string;
  price: number;
  quantity: number;
  sku?: string;
  notes?: string;
  discount?: number;
}

export interface PosCheck {
  checkNumber: string;
  status: CheckStatus;
  totalAmount: number;
  tax: number;
  tip: number;
  discount: number;
  paymentMethod: string;
  items: PosItem[];
  closedAt: string | null;
  voidedAt: string | null;
}

export interface PosPaymentView {
  paymentId: string;
  type: 'full' | 'partial';
  amount: number;
  tip: number;
  status: PaymentStatus;
  failureCode?: FailureCode;
}

export interface PosOrder {
  id: string;
  status: 'open' | 'closed';
  tables: string[];
  partySize: number;
  guestName: string;
  checks: PosCheck[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  // Extensions the service may use:
  source: 'partner' | 'pos';
  reservationId: string | null;
  prepayment: number;
  currency: string;
  seatedAt: string;
  payments: PosPaymentView[];
}

export interface PaymentAnswer { status: PaymentStatus; failureCode?: FailureCode }
