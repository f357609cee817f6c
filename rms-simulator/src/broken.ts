// Deliberately broken modes. Each makes the simulator violate one rule of the booking-services
// contract (DESIGN 8.2), so the conformance kit (`tableside rms-check`) can show it catches it.
// The value lists the rms-check rules that must fail in that mode: the rule the mode breaks, and
// where one fault is visible to two rules, both (e.g. a misspelt status breaks the status
// vocabulary and the cancel answer alike).

export const BROKEN_MODES = {
  /** /healthcheck answers 200 without a key (the other paths still check it). */
  'no-auth-healthcheck': ['auth-required'],
  /** Slot counts as strings and deposit as "false". */
  'slot-fields-wrong-types': ['availability-shape'],
  /** The next day's first seatings are listed under the requested date. */
  'slots-outside-date': ['slots-in-date'],
  /** The same Idempotency-Key creates a new booking every time, and another body is not refused. */
  'non-idempotent-create': ['create-idempotent'],
  /** Cancelling a cancelled booking answers 200 again instead of 402 booking_already_cancelled. */
  'cancel-twice-succeeds': ['cancel'],
  /** 402s answered as {"error": "<code>"} instead of {"error": {"code", "message"}}. */
  'flat-402-envelope': ['error-envelope'],
  /** A slot with no open spots still takes bookings (capacity and pacing ignored on create). */
  'overbooks-full-slot': ['full-slot-refused'],
  /** /bookings/search ignores startDate and endDate. */
  'search-ignores-dates': ['search'],
  /** Cancelled bookings read as "cancelled" (one of the eight statuses is "canceled"). */
  'cancelled-spelling': ['cancel', 'status-values'],
  /** PUT /booking/{id} answers 200 and changes nothing. */
  'update-ignored': ['booking-update'],
  /** Booking timestamps without an offset ("2025-03-01T19:30:00"). */
  'timestamps-without-offset': ['booking-read'],
} as const;

export type BrokenMode = keyof typeof BROKEN_MODES;

export function isBrokenMode(value: unknown): value is BrokenMode {
  return typeof value === 'string' && Object.hasOwn(BROKEN_MODES, value);
}

/** A booking view as a faulty RMS would answer it, for the modes that corrupt it. */
export function distortBooking(view: Record<string, unknown>, mode: BrokenMode | null): Record<string, unknown> {
  if (mode === 'cancelled-spelling' && view.status === 'canceled') return { ...view, status: 'cancelled' };
  if (mode === 'timestamps-without-offset') {
    const strip = (v: unknown) => (typeof v === 'string' ? v.replace(/(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, '') : v);
    return { ...view, date: strip(view.date), createdAt: strip(view.createdAt), updatedAt: strip(view.updatedAt) };
  }
  return view;
}
