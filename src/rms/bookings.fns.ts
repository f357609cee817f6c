import { toWire } from '../lib/money.ts';
import type { BookingStatus, RmsBooking, RmsContact } from './rms-client.fns.ts';

// Pure rules of Tableside's booking record: what a booking looks like to partners (the view the
// outbox events carry), and which of its fields an RMS state changes. Tested without a database.

export interface BookingRecord {
  id: string;
  partnerId: string;
  venueId: string;
  rmsVenueId: string;
  rmsBookingId: string | null;
  channel: { id: string; name: string } | null;
  sync: 'creating' | 'created' | 'refused';
  refusalCode: string | null;
  status: BookingStatus | null;
  partySize: number;
  start: Date;
  areaId: string | null;
  tables: string[] | null;
  contact: RmsContact;
  notes: string | null;
  /** Minor units, as the RMS gave it. */
  deposit: { amount: number; paid: boolean } | null;
  currency: string;
  rmsUpdatedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

// DESIGN 8.8b: a create whose outcome is unknown is sent again under its key for this long after
// it was first recorded, then given up; a booking of it found at the RMS in the hour after is cancelled.
export const CREATE_RESOLVE_MS = 15 * 60_000;
export const LOOK_FOR_GIVEN_UP_MS = 60 * 60_000;
/** How often Tableside looks for a given-up create at the RMS during that hour. */
export const LOOK_FOR_EVERY_MS = 5 * 60_000;
/** The longest wait between two sends of an unresolved create (the first retry comes within 10 s). */
const CREATE_RETRY_MAX_MS = 2 * 60_000;

/** Whether a create recorded at `createdAt` is past its 15 minutes and must be given up, not sent. */
export const createIsPastDeadline = (createdAt: Date, now: Date) => now.getTime() - createdAt.getTime() >= CREATE_RESOLVE_MS;

/** When to send an unresolved create again: backoff (5 s doubling to 2 min), never past its deadline. */
export function nextCreateAttempt(createdAt: Date, now: Date, attempts: number): Date {
  const backoff = Math.min(CREATE_RETRY_MAX_MS, 5000 * 2 ** Math.min(Math.max(attempts - 1, 0), 10));
  return new Date(Math.min(now.getTime() + backoff, createdAt.getTime() + CREATE_RESOLVE_MS));
}

/** Whether the hour of looking for a given-up create (DESIGN 8.8b) is over. */
export const lookingIsOver = (gaveUpAt: Date, now: Date) => now.getTime() > gaveUpAt.getTime() + LOOK_FOR_GIVEN_UP_MS;

/** The next look for a given-up create at the RMS; null once its hour is over. */
export function nextLookFor(gaveUpAt: Date, now: Date): Date | null {
  const end = gaveUpAt.getTime() + LOOK_FOR_GIVEN_UP_MS;
  if (now.getTime() >= end) return null;
  return new Date(Math.min(now.getTime() + LOOK_FOR_EVERY_MS, end));
}

const LIVE_STATUSES: readonly BookingStatus[] = ['pending_confirmation', 'requires_payment', 'confirmed'];
/** How much earlier than Tableside's record the RMS may date a booking (two clocks). */
const CLOCK_SLACK_MS = 5 * 60_000;

/**
 * Whether an RMS booking is the one a given-up create made: the same venue, start, party size and
 * guest (email; telephone when the RMS gives one), still holding its table, made no earlier than the
 * create, and not a booking Tableside holds under another record (`known`: e.g. the channel's retry
 * under a new key).
 */
export function isLostCreate(
  rms: RmsBooking,
  create: { rmsVenueId: string; start: Date; partySize: number; contact: RmsContact; createdAt: Date },
  known: ReadonlySet<string>,
): boolean {
  const sameText = (a: string | undefined, b: string | undefined) => (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();
  const digits = (t: string) => t.replace(/\D/g, '');
  return rms.venueId === create.rmsVenueId && rms.date.getTime() === create.start.getTime() && rms.partySize === create.partySize
    && LIVE_STATUSES.includes(rms.status) && !known.has(rms.id)
    && rms.contact !== null && sameText(rms.contact.email, create.contact.email)
    && (!rms.contact.telephone || digits(rms.contact.telephone) === digits(create.contact.telephone))
    && (rms.createdAt === null || rms.createdAt.getTime() >= create.createdAt.getTime() - CLOCK_SLACK_MS);
}

/** Who made a change Tableside records (DESIGN 8.7a `changedBy`). */
export type ChangedBy = 'channel' | 'venue' | 'system';

/** A recorded change of a booking, as its listeners hear it (in the transaction that records it). */
export interface RecordedBookingChange {
  /** The record before the change; null when the booking was just created at the RMS. */
  before: BookingRecord | null;
  after: BookingRecord;
  /** The partner event's type (`booking.created`, `booking.canceled`, …). */
  type: string;
  changedBy: ChangedBy;
  at: Date;
  /** The outbox event the change was announced as (its partners' view), written in the same transaction. */
  eventId: string;
}

/** The fields an RMS state sets on the record. */
export interface RmsFields {
  status: BookingStatus;
  partySize: number;
  start: Date;
  areaId: string | null;
  tables: string[] | null;
  notes: string | null;
  deposit: { amount: number; paid: boolean } | null;
}

export function fieldsOf(b: RmsBooking): RmsFields {
  return { status: b.status, partySize: b.partySize, start: b.date, areaId: b.areaId, tables: b.tables, notes: b.notes, deposit: b.deposit };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What differs between the record and the RMS's state: field -> {from, to}; empty when nothing. */
export function diff(record: BookingRecord, next: RmsFields): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  const pairs: Array<[string, unknown, unknown]> = [
    ['status', record.status, next.status],
    ['partySize', record.partySize, next.partySize],
    ['date', record.start.toISOString(), next.start.toISOString()],
    ['areaId', record.areaId, next.areaId],
    ['tables', record.tables, next.tables],
    ['notes', record.notes, next.notes],
    ['deposit', record.deposit, next.deposit],
  ];
  for (const [field, from, to] of pairs) if (!same(from, to)) out[field] = { from, to };
  return out;
}

/**
 * Whether an RMS state read at `readUpdatedAt` may replace what the record holds: never one strictly
 * older than the state already applied (an RMS answering from a lagging copy). Equal or missing
 * times are applied: they cannot order two reads (whole-second `updatedAt`, or none), which is why
 * re-reads of one booking are serialized instead (bookings `refresh`, DESIGN 8.8c): the later read
 * started after the earlier one ended, so what it read is at least as new.
 */
export function isNewer(recordUpdatedAt: Date | null, readUpdatedAt: Date | null): boolean {
  if (!recordUpdatedAt || !readUpdatedAt) return true;
  return readUpdatedAt.getTime() >= recordUpdatedAt.getTime();
}

/** The event of each status a booking may move to that has one of its own (DESIGN 8.7a). */
const STATUS_EVENTS = {
  confirmed: 'booking.confirmed',
  rejected: 'booking.rejected',
  canceled: 'booking.canceled',
  'no-show': 'booking.no_show',
  seated: 'booking.seated',
  completed: 'booking.completed',
} as const satisfies Partial<Record<BookingStatus, string>>;

export type BookingEventType = 'booking.updated' | (typeof STATUS_EVENTS)[keyof typeof STATUS_EVENTS];

/**
 * The outbox event a change means (DESIGN 8.7a): the status's own event when the status became one
 * that has one (confirmed, rejected, canceled, no-show, seated, completed), otherwise updated (time,
 * party size, or a status such as requires_payment that has none).
 */
export function eventTypeOf(changes: Record<string, { from: unknown; to: unknown }>): BookingEventType {
  const to = changes.status?.to as BookingStatus | undefined;
  return (to && to in STATUS_EVENTS ? STATUS_EVENTS[to as keyof typeof STATUS_EVENTS] : 'booking.updated');
}

/** A booking as partners and events see it: Tableside's id, the RMS's ids, money as a decimal. */
export function bookingView(b: BookingRecord) {
  return {
    id: b.id,
    bookingId: b.id,
    rmsBookingId: b.rmsBookingId,
    venueId: b.venueId,
    rmsVenueId: b.rmsVenueId,
    channel: b.channel,
    status: b.status,
    partySize: b.partySize,
    date: b.start.toISOString(),
    areaId: b.areaId,
    tables: b.tables,
    contact: b.contact,
    notes: b.notes,
    deposit: b.deposit ? { amount: toWire(b.deposit.amount, b.currency), currency: b.currency, paid: b.deposit.paid } : null,
    /** Per-booking order of events (DESIGN 8.5). */
    sequence: b.version,
    createdAt: b.createdAt.toISOString(),
    updatedAt: b.updatedAt.toISOString(),
  };
}
export type BookingView = ReturnType<typeof bookingView>;
