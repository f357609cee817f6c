// What the RMS does with bookings: create (idempotent per key), read, change, cancel, search, and
// the staff actions of its back office. Every decision about tables, pacing and windows is the
// availability engine's (availability.fns.ts); this file applies it to the store and reports each
// change to `events` (update notices, seated events: outbound.ts).

import { randomUUID } from 'node:crypto';
import { availability, decide, paymentTerms } from './availability.fns.ts';
import {
  afterDepositPaid, bookingView, cancelRefusal, canonicalJson, matchesSearch, modifyRefusal, paymentOutcome, staffTransition,
  type StaffAction,
} from './bookings.fns.ts';
import type { BrokenMode } from './broken.ts';
import type { AvailabilityQuery, CancelBookingBody, CreateBookingBody, SearchQuery, UpdateBookingBody } from './contract.schemas.ts';
import type { SeatInput } from './control.schemas.ts';
import { RmsError, badRequest, conflict, notFound, refused } from './errors.ts';
import type { RmsStore } from './store.ts';
import type { BookingState, Slot, VenueConfig } from './types.ts';
import { addDays, parseLocalDate, startOfLocalDay } from './zoned.fns.ts';

export interface BookingEvents {
  /** A booking was created or changed (action update) or cancelled (action cancel). */
  changed(booking: BookingState, action: 'update' | 'cancel'): void;
  /** Staff seated the booking; posTableIds given or mapped from its tables (DESIGN 8.3c). */
  seated(booking: BookingState, venue: VenueConfig, seat: SeatInput): void;
}

export interface CreateAnswer { statusCode: number; body: unknown; replayed: boolean }

export interface AvailabilityView {
  venueId: string;
  date: string;
  partySize: number;
  areaId?: string;
  duration: number;
  slotData: Slot[];
}

export function createBookingsService(store: RmsStore, events: BookingEvents) {
  const venueOf = (venueId: string): VenueConfig => {
    const venue = store.venue(venueId);
    if (!venue) throw new RmsError(404, 'venue_not_found', `venue ${venueId} not found`);
    return venue;
  };
  const bookingOf = (id: string): BookingState => {
    const booking = store.booking(id);
    if (!booking) throw notFound(`booking ${id}`);
    return booking;
  };
  const broken = (mode: BrokenMode) => store.broken === mode;
  const touch = (b: BookingState) => { b.updatedAt = store.now(); store.save(); };

  function parseInstant(text: string, field: string): number {
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) throw badRequest(`${field} is not a valid ISO 8601 date-time`, { [field]: ['not a valid date-time'] });
    return ms;
  }

  function availabilityOf(q: AvailabilityQuery): AvailabilityView {
    const venue = venueOf(q.venueId);
    if (!parseLocalDate(q.date)) throw badRequest('date is not a calendar date', { date: ['not a calendar date (YYYY-MM-DD)'] });
    const partySize = Number(q.partySize);
    const answer = availability(venue, store.bookings(venue.id), q.date, partySize, q.areaId ?? null, store.now());
    return {
      venueId: venue.id, date: q.date, partySize, ...(q.areaId !== undefined ? { areaId: q.areaId } : {}),
      duration: answer.durationSec, slotData: answer.slots,
    };
  }

  /** The create itself, once the key is known to be new (or the broken mode ignores keys). */
  function createNew(body: CreateBookingBody): { id: string; status: string } {
    const venue = venueOf(body.venueId);
    const start = parseInstant(body.date, 'date');
    const now = store.now();
    const areaId = body.areaId ?? null;
    const decision = decide(venue, store.bookings(venue.id), { partySize: body.partySize, start, areaId }, now);
    let tables: string[];
    let end: number;
    if (decision.ok) ({ tables, end } = decision);
    else if (broken('overbooks-full-slot') && decision.code === 'slot_unavailable') {
      // Deliberately broken: a full slot takes the booking anyway, on no table.
      tables = [];
      end = start + 90 * 60_000;
    } else throw refused(decision.code, decision.reason);
    const outcome = paymentOutcome(venue.paymentDefinition, paymentTerms(venue).depositAmount, body.paymentToken, venue.autoConfirm);
    if (outcome.kind === 'refuse') throw refused(outcome.code, outcome.reason);
    const booking: BookingState = {
      id: randomUUID(), venueId: venue.id, status: outcome.status, partySize: body.partySize, start, end, areaId, tables,
      contact: { ...body.contact }, notes: body.notes ?? null, bookingChannel: { ...body.bookingChannel },
      deposit: outcome.deposit, cardOnFile: outcome.cardOnFile, cancelActor: null, cancelReason: null, createdAt: now, updatedAt: now,
    };
    store.addBooking(booking);
    events.changed(booking, 'update');
    return { id: booking.id, status: booking.status };
  }

  /**
   * POST /booking. The same Idempotency-Key with the same body answers what the first create
   * answered (the booking's current status, or the same 402), creating nothing; with another body
   * it is 409. Refusals (402) are kept under the key too, so a retry cannot turn a refusal into a
   * booking made later under the same key.
   */
  function create(key: string, body: CreateBookingBody): CreateAnswer {
    const canonical = canonicalJson(body);
    const previous = broken('non-idempotent-create') ? undefined : store.idempotency(key);
    if (previous) {
      if (previous.body !== canonical) {
        throw conflict('idempotency_key_reused', `Idempotency-Key ${key} was used with another request body`);
      }
      if (previous.bookingId === null) return { statusCode: previous.statusCode, body: previous.answer, replayed: true };
      const booking = bookingOf(previous.bookingId);
      return { statusCode: 200, body: { id: booking.id, status: booking.status }, replayed: true };
    }
    try {
      const created = createNew(body);
      if (!broken('non-idempotent-create')) store.addIdempotency({ key, body: canonical, statusCode: 200, bookingId: created.id, answer: null });
      return { statusCode: 200, body: created, replayed: false };
    } catch (err) {
      if (err instanceof RmsError && err.statusCode === 402 && !broken('non-idempotent-create')) {
        store.addIdempotency({ key, body: canonical, statusCode: 402, bookingId: null, answer: err.body });
      }
      throw err;
    }
  }

  function view(id: string): Record<string, unknown> {
    const booking = bookingOf(id);
    return bookingView(booking, venueOf(booking.venueId).timezone);
  }

  function update(id: string, body: UpdateBookingBody): { id: string; status: string } {
    const booking = bookingOf(id);
    const venue = venueOf(booking.venueId);
    const refusal = modifyRefusal(booking.status);
    if (refusal) throw refused(refusal, `booking ${id} is ${booking.status}`);
    if (broken('update-ignored')) return { id, status: booking.status };
    const partySize = body.partySize ?? booking.partySize;
    const start = body.date !== undefined ? parseInstant(body.date, 'date') : booking.start;
    const others = store.bookings(venue.id).filter((b) => b.id !== id);
    const decision = decide(venue, others, { partySize, start, areaId: booking.areaId }, store.now());
    if (!decision.ok) throw refused(decision.code, decision.reason);
    Object.assign(booking, { partySize, start, end: decision.end, tables: decision.tables });
    touch(booking);
    events.changed(booking, 'update');
    return { id, status: booking.status };
  }

  function cancel(id: string, body: CancelBookingBody): { id: string; status: string } {
    const booking = bookingOf(id);
    const venue = venueOf(booking.venueId);
    if (booking.status === 'canceled' && broken('cancel-twice-succeeds')) return { id, status: 'canceled' };
    const refusal = cancelRefusal(booking, store.now(), venue.company.minAdvanceBookingCancelling);
    if (refusal) throw refused(refusal, refusal === 'outside_cancellation_window'
      ? `cancelling closes ${venue.company.minAdvanceBookingCancelling} s before the booking`
      : `booking ${id} is ${booking.status}`);
    Object.assign(booking, { status: 'canceled', cancelActor: body.cancelActor ?? null, cancelReason: body.cancelReason ?? null });
    touch(booking);
    events.changed(booking, 'cancel');
    return { id, status: 'canceled' };
  }

  function bound(text: string, field: string, timeZone: string, end: boolean): number {
    if (parseLocalDate(text)) return startOfLocalDay(timeZone, end ? addDays(text, 1) : text);
    if (/T/.test(text)) return parseInstant(text, field) + (end ? 1 : 0);
    throw badRequest(`${field} is neither YYYY-MM-DD nor ISO 8601`, { [field]: ['expected YYYY-MM-DD or an ISO 8601 date-time'] });
  }

  function search(q: SearchQuery): { total: number; data: Array<Record<string, unknown>> } {
    const venue = venueOf(q.venueId);
    const from = bound(q.startDate, 'startDate', venue.timezone, false);
    const until = bound(q.endDate, 'endDate', venue.timezone, true);
    if (until <= from) throw badRequest('endDate is before startDate', { endDate: ['before startDate'] });
    const window = broken('search-ignores-dates') ? { from: Number.NEGATIVE_INFINITY, until: Number.POSITIVE_INFINITY } : { from, until };
    const data = store.bookings(venue.id)
      .filter((b) => matchesSearch(b, { ...window, email: q.email, phoneNumber: q.phoneNumber }))
      .sort((a, b) => a.start - b.start || a.createdAt - b.createdAt)
      .map((b) => bookingView(b, venue.timezone));
    return { total: data.length, data };
  }

  // ---- the back office (control API) ----

  function staff(id: string, action: StaffAction, seat: SeatInput = {}): Record<string, unknown> {
    const booking = bookingOf(id);
    const next = staffTransition(action, booking.status);
    if (!next) throw conflict('invalid_transition', `cannot ${action} a booking that is ${booking.status}`);
    booking.status = next;
    touch(booking);
    const venue = venueOf(booking.venueId);
    events.changed(booking, 'update');
    if (action === 'seat') events.seated(booking, venue, seat);
    return bookingView(booking, venue.timezone);
  }

  function markDepositPaid(id: string): Record<string, unknown> {
    const booking = bookingOf(id);
    if (!booking.deposit || booking.deposit.paid) throw conflict('no_unpaid_deposit', `booking ${id} has no unpaid deposit`);
    const venue = venueOf(booking.venueId);
    booking.deposit = { ...booking.deposit, paid: true };
    booking.status = afterDepositPaid(booking.status, venue.autoConfirm);
    touch(booking);
    events.changed(booking, 'update');
    return bookingView(booking, venue.timezone);
  }

  function list(venueId: string): Array<Record<string, unknown>> {
    const venue = venueOf(venueId);
    return store.bookings(venueId).slice().sort((a, b) => a.start - b.start).map((b) => bookingView(b, venue.timezone));
  }

  return { availabilityOf, create, view, update, cancel, search, staff, markDepositPaid, list, bookingOf, venueOf };
}

export type BookingsService = ReturnType<typeof createBookingsService>;
