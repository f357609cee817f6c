import type { Slot } from '../rms/rms-client.fns.ts';

// Pure rules of Google's Booking Server API v3 (DESIGN 8.4b), tested without a database: statuses
// and failure causes mapped from the 8.2 contract, int64 fields (strings out, strings or numbers
// in), and which requested slot times are available.

export const SERVICE_ID = 'dining' as const;

export type V3Status = 'CONFIRMED' | 'PENDING_MERCHANT_CONFIRMATION' | 'CANCELED' | 'NO_SHOW' | 'DECLINED_BY_MERCHANT' | 'FAILED';

/** 8.2 statuses → Google's BookingStatus. `null`: the RMS has not answered the create yet. */
export function v3Status(status: string | null): V3Status {
  switch (status) {
    case 'confirmed': case 'seated': case 'completed': return 'CONFIRMED';
    case 'pending_confirmation': case 'requires_payment': case null: return 'PENDING_MERCHANT_CONFIRMATION';
    case 'canceled': return 'CANCELED';
    case 'no-show': return 'NO_SHOW';
    case 'rejected': return 'DECLINED_BY_MERCHANT';
    default: return 'FAILED';
  }
}

/**
 * 8.2 failure codes (and Tableside's notice checks) → Google's BookingFailure.Cause. Google has no
 * cause for a party size or a booking window, so those are the slot being unavailable to this
 * request; a cause is never CAUSE_UNSPECIFIED when the code is one of these (CHN-14).
 */
export const CAUSE_OF: Record<string, string> = {
  slot_unavailable: 'SLOT_UNAVAILABLE',
  party_size_out_of_range: 'SLOT_UNAVAILABLE',
  outside_booking_window: 'SLOT_UNAVAILABLE',
  outside_cancellation_window: 'OUTSIDE_CANCELLATION_WINDOW',
  booking_already_cancelled: 'BOOKING_ALREADY_CANCELLED',
  booking_not_modifiable: 'BOOKING_NOT_CANCELLABLE',
  payment_required: 'PAYMENT_OPTION_NOT_VALID',
  payment_failed: 'PAYMENT_ERROR',
};

export const causeOf = (code: string) => CAUSE_OF[code] ?? 'CAUSE_UNSPECIFIED';

/** An int64 read as Google may send it: a decimal string or a JSON number. */
export function int64(value: string | number): number {
  return typeof value === 'number' ? value : Number(value);
}

/** A slot time echoed as requested, its int64 fields as strings (CHN-12, CHN-15). */
export function echoSlotTime<T extends { start_sec: string | number; duration_sec?: string | number }>(
  slot: T,
): Omit<T, 'start_sec' | 'duration_sec'> & { start_sec: string; duration_sec?: string } {
  // A copy with two fields replaced, not a rest pattern: copying all but named keys takes V8's slow
  // path (echoSlotTime was ~4% of the serve's main thread on 50-slot lookups, issue 28, profiled).
  const echoed: Record<string, unknown> = { ...slot, start_sec: String(slot.start_sec) };
  if (slot.duration_sec !== undefined) echoed.duration_sec = String(slot.duration_sec);
  else if ('duration_sec' in echoed) delete echoed.duration_sec;
  return echoed as Omit<T, 'start_sec' | 'duration_sec'> & { start_sec: string; duration_sec?: string };
}

/** Whether `startSec` is an offered slot with a free spot, at least `minAdvanceS` after `now`. */
export function isAvailable(slots: readonly Slot[], startSec: number, now: Date, minAdvanceS: number): boolean {
  if (startSec * 1000 < now.getTime() + minAdvanceS * 1000) return false;
  return slots.some((s) => s.start.getTime() === startSec * 1000 && s.openSpots > 0);
}

/** The idempotency key of a v3 create, scoped by Google's user (so ListBookings finds a user's bookings). */
export const v3Key = (userId: string, token: string) => `v3:${encodeURIComponent(userId)}:${token}`;
export const v3UserPrefix = (userId: string) => `v3:${encodeURIComponent(userId)}:`;

/** Google's user id back from a booking's scoped key (`channel:<id>:v3:<user>:<token>`). */
export function userOfKey(key: string): string | null {
  const m = /^channel:[^:]+:v3:([^:]*):/.exec(key);
  return m ? decodeURIComponent(m[1]) : null;
}
