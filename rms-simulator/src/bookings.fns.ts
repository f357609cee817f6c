// Pure rules of a booking's life: which staff action moves which status, what a guest may still
// change or cancel, how the payment definition decides the first status, and the wire view.

import { isoInZone } from '../../pos-simulator/src/time.ts';
import type { BookingState, BookingStatus, PaymentDefinition, RmsErrorCode } from './types.ts';

export const STAFF_ACTIONS = ['confirm', 'reject', 'seat', 'complete', 'no-show'] as const;
export type StaffAction = (typeof STAFF_ACTIONS)[number];

/** From which statuses a staff action is allowed, and where it leads. */
const STAFF: Record<StaffAction, { from: readonly BookingStatus[]; to: BookingStatus }> = {
  confirm: { from: ['pending_confirmation'], to: 'confirmed' },
  reject: { from: ['pending_confirmation', 'requires_payment'], to: 'rejected' },
  seat: { from: ['confirmed', 'pending_confirmation'], to: 'seated' },
  complete: { from: ['seated'], to: 'completed' },
  'no-show': { from: ['confirmed', 'pending_confirmation'], to: 'no-show' },
};

export function staffTransition(action: StaffAction, status: BookingStatus): BookingStatus | null {
  const rule = STAFF[action];
  return rule.from.includes(status) ? rule.to : null;
}

/** A guest (through Tableside) may change or cancel only a booking that is still ahead of them. */
const OPEN_FOR_GUEST: ReadonlySet<BookingStatus> = new Set(['pending_confirmation', 'requires_payment', 'confirmed']);

/** Why the booking cannot be changed now, or null when it can. */
export function modifyRefusal(status: BookingStatus): RmsErrorCode | null {
  if (status === 'canceled') return 'booking_already_cancelled';
  return OPEN_FOR_GUEST.has(status) ? null : 'booking_not_modifiable';
}

/** Why the booking cannot be cancelled now, or null when it can (spec 2.2 minAdvanceBookingCancelling, seconds). */
export function cancelRefusal(booking: Pick<BookingState, 'status' | 'start'>, now: number, minAdvanceCancellingSec: number): RmsErrorCode | null {
  const refusal = modifyRefusal(booking.status);
  if (refusal) return refusal;
  if (booking.start - now < minAdvanceCancellingSec * 1000) return 'outside_cancellation_window';
  return null;
}

export type PaymentOutcome =
  | { kind: 'refuse'; code: RmsErrorCode; reason: string }
  | { kind: 'accept'; status: BookingStatus; deposit: { amount: number; paid: boolean } | null; cardOnFile: boolean };

/** paymentToken values starting with this are declined, like a card test number: 402 payment_failed. */
export const DECLINED_TOKEN_PREFIX = 'tok_declined';

/**
 * The first status of a new booking from the venue's paymentDefinition (BKG-15):
 * - a deposit and no paymentToken: created as requires_payment with the deposit unpaid;
 * - a deposit and a token: the deposit is charged (paid) and the booking goes on;
 * - a card guarantee only and no token: 402 payment_required (nothing is created);
 * - a declined token (tok_declined…): 402 payment_failed.
 * Otherwise confirmed, or pending_confirmation at a venue whose staff confirm each booking.
 */
export function paymentOutcome(
  definition: PaymentDefinition, depositMinor: number, paymentToken: string | undefined, autoConfirm: boolean,
): PaymentOutcome {
  const next: BookingStatus = autoConfirm ? 'confirmed' : 'pending_confirmation';
  const needsDeposit = depositMinor > 0;
  if (paymentToken !== undefined && paymentToken.startsWith(DECLINED_TOKEN_PREFIX) && (needsDeposit || definition.requireCreditCard)) {
    return { kind: 'refuse', code: 'payment_failed', reason: 'the card was declined' };
  }
  if (needsDeposit) {
    if (paymentToken === undefined) return { kind: 'accept', status: 'requires_payment', deposit: { amount: depositMinor, paid: false }, cardOnFile: false };
    return { kind: 'accept', status: next, deposit: { amount: depositMinor, paid: true }, cardOnFile: true };
  }
  if (definition.requireCreditCard && paymentToken === undefined) {
    return { kind: 'refuse', code: 'payment_required', reason: 'this venue holds every booking with a card: send a paymentToken' };
  }
  return { kind: 'accept', status: next, deposit: null, cardOnFile: paymentToken !== undefined };
}

/** Status after the deposit of a requires_payment booking is paid. */
export function afterDepositPaid(status: BookingStatus, autoConfirm: boolean): BookingStatus {
  if (status !== 'requires_payment') return status;
  return autoConfirm ? 'confirmed' : 'pending_confirmation';
}

/** GET /booking/{id} and search items (DESIGN 8.2): times ISO 8601 with the venue's offset, deposit in minor units. */
export function bookingView(b: BookingState, timeZone: string): Record<string, unknown> {
  return {
    id: b.id,
    venueId: b.venueId,
    status: b.status,
    partySize: b.partySize,
    date: isoInZone(b.start, timeZone),
    duration: Math.round((b.end - b.start) / 1000),
    areaId: b.areaId,
    tables: b.tables,
    contact: b.contact,
    notes: b.notes,
    deposit: b.deposit,
    bookingChannel: b.bookingChannel,
    ...(b.status === 'canceled' ? { cancelActor: b.cancelActor, cancelReason: b.cancelReason } : {}),
    createdAt: isoInZone(b.createdAt, timeZone),
    updatedAt: isoInZone(b.updatedAt, timeZone),
  };
}

/** Canonical JSON (object keys sorted), so "the same body" ignores key order. */
export function canonicalJson(value: unknown): string {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return JSON.stringify(canon(value));
}

const digits = (s: string) => s.replace(/\D/g, '');

export interface SearchFilter { from: number; until: number; email?: string; phoneNumber?: string }

/** GET /bookings/search: booking time in [from, until), email case-insensitive, phone by its digits. */
export function matchesSearch(b: BookingState, f: SearchFilter): boolean {
  if (b.start < f.from || b.start >= f.until) return false;
  if (f.email !== undefined && b.contact.email.toLowerCase() !== f.email.toLowerCase()) return false;
  if (f.phoneNumber !== undefined && digits(b.contact.telephone) !== digits(f.phoneNumber)) return false;
  return true;
}
