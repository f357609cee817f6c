import { MAX_MINOR } from '../lib/money.ts';
import { INT32_MAX } from '../server/schemas.ts';

// The tolerant reader of booking-services answers (DESIGN 8.2): pure functions that turn what an
// RMS sent into Tableside's shapes, or say exactly what was wrong. They accept both spellings of
// the slot fields (`totalSpots`/`totalSpot`, `openSpots`/`openSpot`, `requiresCc`/`requireCc`),
// ids as strings or numbers, and times as ISO 8601 with an offset or Unix seconds; anything else
// is a contract violation, so a garbled answer can never be taken for a booking state.

export const BOOKING_STATUSES = [
  'pending_confirmation', 'requires_payment', 'confirmed', 'rejected', 'canceled', 'no-show', 'seated', 'completed',
] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const REFUSAL_CODES = [
  'slot_unavailable', 'party_size_out_of_range', 'outside_booking_window', 'outside_cancellation_window',
  'booking_already_cancelled', 'booking_not_modifiable', 'payment_required', 'payment_failed',
] as const;

// Limits on what an RMS may answer (besides its shape): whatever Tableside records and answers its
// channels and webhook receivers stays within what its API document declares, so a value past them
// is a contract violation here, where it enters, rather than a broken answer later.
/** The most slots one availability answer (or one feed record) may carry: one a minute over a 25-hour day. */
export const MAX_SLOTS = 1500;
/** The largest party an RMS booking may have (the feed's own bound, DESIGN 8.3b). */
export const MAX_PARTY_SIZE = 9999;
/** The most tables an RMS booking may name. */
export const MAX_BOOKING_TABLES = 100;
/** The longest booking notes an RMS may answer (a channel's own are at most 2000 characters). */
export const MAX_NOTES = 5000;
/** The longest contact field an RMS may answer. */
export const MAX_CONTACT_TEXT = 320;
/** Times are after 1970 and before 1e11 Unix seconds (year 5138): what the int64 fields of Google v3 carry. */
export const MAX_UNIX_SECONDS = 99_999_999_999;

export interface Slot {
  /** Seating start. */
  start: Date;
  totalSpots: number;
  openSpots: number;
  deposit: boolean;
  /** Minor units of the venue's currency (the 8.2 contract's unit). */
  depositAmount: number;
  requiresCc: boolean;
}

export interface Availability {
  venueId: string;
  date: string;
  partySize: number;
  /** Seconds a table is held, when the RMS says. */
  duration: number | null;
  slots: Slot[];
}

export interface RmsContact { firstname: string; lastname: string; email: string; telephone: string; locale?: string }

export interface RmsBooking {
  id: string;
  venueId: string;
  status: BookingStatus;
  partySize: number;
  date: Date;
  areaId: string | null;
  tables: string[] | null;
  contact: RmsContact | null;
  notes: string | null;
  deposit: { amount: number; paid: boolean } | null;
  createdAt: Date | null;
  updatedAt: Date | null;
}

export interface BookingAck { id: string; status: BookingStatus }

/** A contract violation in an answer: `field` is a path such as `slotData[3].openSpots`. */
export class ShapeError extends Error {
  constructor(readonly field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = 'ShapeError';
  }
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function obj(v: unknown, field: string): Obj {
  if (!isObj(v)) throw new ShapeError(field, 'must be an object');
  return v;
}

/** The first of `names` present in `o` (tolerant spellings), and the name it was found under. */
function pick(o: Obj, names: string[]): [unknown, string] {
  for (const n of names) if (o[n] !== undefined) return [o[n], n];
  return [undefined, names[0]!];
}

function int(v: unknown, field: string, min = 0, max = INT32_MAX): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) throw new ShapeError(field, `must be an integer from ${min} to ${max}`);
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw new ShapeError(field, 'must be a boolean');
  return v;
}

/** An id: a non-empty string, or an integer (some RMSs number their bookings), read as text. */
export function readId(v: unknown, field: string): string {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v !== 'string' || v.length === 0 || v.length > 200 || v.includes('\u0000')) throw new ShapeError(field, 'must be a non-empty string id (at most 200 characters, no NUL)');
  return v;
}

function optText(v: unknown, field: string, max: number): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ShapeError(field, 'must be a string or null');
  if (v.length > max || v.includes('\u0000')) throw new ShapeError(field, `must be at most ${max} characters, with no NUL`);
  return v;
}

export const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A time as ISO 8601 with an offset, or Unix seconds (a number or a string of digits). */
export function readTime(v: unknown, field: string): Date {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 1e11) return new Date(Math.round(v * 1000));
  if (typeof v === 'string' && /^\d{1,11}$/.test(v)) return new Date(Number(v) * 1000);
  if (typeof v === 'string' && ISO_WITH_OFFSET.test(v)) {
    const d = new Date(v);
    // 1970 to the year 5138, as Unix seconds are read above: Google's int64 start_sec carries them.
    if (!Number.isNaN(d.getTime()) && d.getTime() >= 0 && d.getTime() <= MAX_UNIX_SECONDS * 1000) return d;
  }
  throw new ShapeError(field, 'must be ISO 8601 with an offset or Unix seconds (1970 to 5138)');
}

export function readStatus(v: unknown, field: string): BookingStatus {
  if (typeof v !== 'string' || !(BOOKING_STATUSES as readonly string[]).includes(v)) {
    throw new ShapeError(field, `must be one of ${BOOKING_STATUSES.join(', ')}`);
  }
  return v as BookingStatus;
}

export function readSlot(raw: unknown, field: string): Slot {
  const o = obj(raw, field);
  const [start, startName] = pick(o, ['startSec', 'start_sec']);
  const [total, totalName] = pick(o, ['totalSpots', 'totalSpot']);
  const [open, openName] = pick(o, ['openSpots', 'openSpot']);
  const [cc, ccName] = pick(o, ['requiresCc', 'requireCc']);
  const openSpots = int(open, `${field}.${openName}`);
  const totalSpots = int(total, `${field}.${totalName}`);
  if (openSpots > totalSpots) throw new ShapeError(`${field}.${openName}`, `must not exceed ${totalName}`);
  return {
    start: readTime(start, `${field}.${startName}`),
    totalSpots,
    openSpots,
    deposit: o.deposit === undefined ? false : bool(o.deposit, `${field}.deposit`),
    depositAmount: o.depositAmount === undefined || o.depositAmount === null ? 0 : int(o.depositAmount, `${field}.depositAmount`, 0, MAX_MINOR),
    requiresCc: cc === undefined ? false : bool(cc, `${field}.${ccName}`),
  };
}

const isInt = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;

/**
 * A slot as `readSlot` reads it when every field is well formed and its time is Unix seconds as a
 * number (what RMSs send); null for anything else, which `readSlot` then reads or words the fault
 * of. No field path is written unless there is a fault: they were most of what reading an answer
 * allocated (issue 28: ~24 KB of a live lookup's ~114 KB, sampled with collected objects).
 */
function plainSlot(o: Obj): Slot | null {
  const start = o.startSec !== undefined ? o.startSec : o.start_sec;
  const totalSpots = o.totalSpots !== undefined ? o.totalSpots : o.totalSpot;
  const openSpots = o.openSpots !== undefined ? o.openSpots : o.openSpot;
  const cc = o.requiresCc !== undefined ? o.requiresCc : o.requireCc;
  const { deposit, depositAmount } = o;
  if (typeof start !== 'number' || !Number.isFinite(start) || start < 0 || start >= 1e11) return null;
  if (!isInt(totalSpots, INT32_MAX) || !isInt(openSpots, totalSpots)) return null;
  if ((deposit !== undefined && typeof deposit !== 'boolean') || (cc !== undefined && typeof cc !== 'boolean')) return null;
  if (depositAmount !== undefined && depositAmount !== null && !isInt(depositAmount, MAX_MINOR)) return null;
  return {
    start: new Date(Math.round(start * 1000)),
    totalSpots,
    openSpots,
    deposit: deposit ?? false,
    depositAmount: depositAmount ?? 0,
    requiresCc: cc ?? false,
  };
}

export function readSlots(raw: unknown, field: string): Slot[] {
  if (!Array.isArray(raw)) throw new ShapeError(field, 'must be an array');
  if (raw.length > MAX_SLOTS) throw new ShapeError(field, `must have at most ${MAX_SLOTS} slots`);
  return raw.map((s, i) => (isObj(s) && plainSlot(s)) || readSlot(s, `${field}[${i}]`));
}

export function readAvailability(raw: unknown): Availability {
  const o = obj(raw, 'body');
  const [slots, slotsName] = pick(o, ['slotData', 'slot_data']);
  return {
    venueId: readId(pick(o, ['venueId', 'venue_id'])[0], 'venueId'),
    date: typeof o.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(o.date) ? o.date : (() => { throw new ShapeError('date', 'must be YYYY-MM-DD'); })(),
    partySize: int(o.partySize, 'partySize', 1, MAX_PARTY_SIZE),
    duration: o.duration === undefined || o.duration === null ? null : int(o.duration, 'duration'),
    slots: readSlots(slots, slotsName),
  };
}

export function readAck(raw: unknown): BookingAck {
  const o = obj(raw, 'body');
  return { id: readId(pick(o, ['id', 'bookingId', 'entity_id'])[0], 'id'), status: readStatus(o.status, 'status') };
}

function readContact(v: unknown): RmsContact | null {
  if (v === undefined || v === null) return null;
  const o = obj(v, 'contact');
  const text = (k: string) => optText(o[k], `contact.${k}`, MAX_CONTACT_TEXT) ?? '';
  const locale = typeof o.locale === 'string' ? optText(o.locale, 'contact.locale', MAX_CONTACT_TEXT) : null;
  return { firstname: text('firstname'), lastname: text('lastname'), email: text('email'), telephone: text('telephone'), ...(locale !== null ? { locale } : {}) };
}

export function readBooking(raw: unknown, field = 'body'): RmsBooking {
  const o = obj(raw, field);
  const at = (k: string) => `${field === 'body' ? '' : `${field}.`}${k}`;
  let deposit: RmsBooking['deposit'] = null;
  if (o.deposit !== undefined && o.deposit !== null) {
    const d = obj(o.deposit, at('deposit'));
    deposit = { amount: int(d.amount, at('deposit.amount'), 0, MAX_MINOR), paid: bool(d.paid, at('deposit.paid')) };
  }
  let tables: string[] | null = null;
  if (Array.isArray(o.tables)) {
    if (o.tables.length > MAX_BOOKING_TABLES) throw new ShapeError(at('tables'), `must name at most ${MAX_BOOKING_TABLES} tables`);
    tables = o.tables.map((t, i) => readId(t, at(`tables[${i}]`)));
  } else if (o.tables !== undefined && o.tables !== null) throw new ShapeError(at('tables'), 'must be an array');
  const created = pick(o, ['createdAt', 'created_at'])[0];
  const updated = pick(o, ['updatedAt', 'updated_at'])[0];
  return {
    id: readId(pick(o, ['id', 'entity_id'])[0], at('id')),
    venueId: readId(pick(o, ['venueId', 'venue_id'])[0], at('venueId')),
    status: readStatus(o.status, at('status')),
    partySize: int(o.partySize, at('partySize'), 1, MAX_PARTY_SIZE),
    date: readTime(o.date, at('date')),
    areaId: o.areaId === undefined || o.areaId === null ? null : readId(o.areaId, at('areaId')),
    tables,
    contact: readContact(o.contact),
    notes: optText(o.notes, at('notes'), MAX_NOTES),
    deposit,
    createdAt: created === undefined || created === null ? null : readTime(created, at('createdAt')),
    updatedAt: updated === undefined || updated === null ? null : readTime(updated, at('updatedAt')),
  };
}

export function readSearch(raw: unknown): { total: number; data: RmsBooking[] } {
  const o = obj(raw, 'body');
  if (!Array.isArray(o.data)) throw new ShapeError('data', 'must be an array');
  return { total: int(o.total, 'total', 0, Number.MAX_SAFE_INTEGER), data: o.data.map((b, i) => readBooking(b, `data[${i}]`)) };
}

/** A 402 body `{error:{code,message}}`: the code as the RMS sent it (kept as is), or null when malformed. */
export function readRefusal(raw: unknown): { code: string; message: string } | null {
  if (!isObj(raw) || !isObj(raw.error)) return null;
  const { code, message } = raw.error;
  if (typeof code !== 'string' || code.length === 0 || code.length > 100 || code.includes('\u0000')) return null;
  return { code, message: typeof message === 'string' ? message : code };
}

/**
 * What an RMS said was wrong with a request, for the caller: its error message and the fields it
 * named, printable characters only and bounded (the RMS is untrusted; the caller reads it).
 */
export function reasonOf(body: unknown): string {
  const error = (body as { error?: { message?: unknown; details?: unknown } } | undefined)?.error;
  const parts: string[] = [];
  if (typeof error?.message === 'string') parts.push(error.message);
  if (error?.details && typeof error.details === 'object') {
    for (const [field, problems] of Object.entries(error.details as Record<string, unknown>).slice(0, 10)) {
      const said = Array.isArray(problems) ? problems.filter((p) => typeof p === 'string').join('; ') : '';
      parts.push(said ? `${field}: ${said}` : field);
    }
  }
  const text = parts.join('; ').replace(/[^\x20-\x7e\u00a0-\uffff]/g, ' ').slice(0, 500);
  return text ? ` (${text})` : '';
}

/** Whether the RMS refused the call's HTTP/2 stream without processing it (RST_STREAM REFUSED_STREAM). */
export function refusedStream(err: unknown): boolean {
  const e = (err ?? {}) as { code?: string; message?: string };
  return e.code === 'ERR_HTTP2_STREAM_ERROR' && /REFUSED_STREAM/.test(e.message ?? '');
}

/** `?name=value&…` of the fields given (as URLSearchParams writes them), or nothing. */
export function queryOf(query: Record<string, string | undefined> | undefined): string {
  const given = Object.entries(query ?? {}).filter((e): e is [string, string] => e[1] !== undefined);
  return given.length === 0 ? '' : `?${new URLSearchParams(given).toString()}`;
}
