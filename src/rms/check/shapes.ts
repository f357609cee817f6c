// Shape checks of what an RMS answers under the booking-services contract (DESIGN 8.2). Each
// returns the problems found (empty = conforms), phrased so a vendor can find the field. Reads
// are as tolerant as Tableside's client (BKG-06): totalSpot/openSpot/requireCc, ISO or Unix dates.

import { isIsoTimestamp, isObject, type Json } from '../../pos/check/shapes.ts';

export const BOOKING_STATUSES = [
  'pending_confirmation', 'requires_payment', 'confirmed', 'rejected', 'canceled', 'no-show', 'seated', 'completed',
] as const;

export const ERROR_CODES = [
  'slot_unavailable', 'party_size_out_of_range', 'outside_booking_window', 'outside_cancellation_window',
  'booking_already_cancelled', 'booking_not_modifiable', 'payment_required', 'payment_failed',
] as const;

export const isStatus = (v: unknown) => typeof v === 'string' && (BOOKING_STATUSES as readonly string[]).includes(v);
const isInt = (v: unknown): v is number => Number.isInteger(v);
const show = (v: unknown) => JSON.stringify(v) ?? 'undefined';

/** A slot as the kit uses it: fields read leniently (numeric strings too), so one malformed field does not hide the rest of the contract. */
export interface SlotRead { startSec: number; totalSpots: number; openSpots: number; deposit: boolean; depositAmount: number; requiresCc: boolean }

const loose = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : undefined);
const looseBool = (v: unknown): boolean => v === true || v === 'true';

/** Seconds since the epoch of an ISO 8601 string with offset or of Unix seconds; undefined otherwise. */
export function instantSec(v: unknown): number | undefined {
  if (isInt(v)) return v;
  if (isIsoTimestamp(v)) return Date.parse(v) / 1000;
  return undefined;
}

export function readSlot(s: Json): SlotRead | undefined {
  const startSec = instantSec(s.startSec) ?? loose(s.startSec);
  if (startSec === undefined) return undefined;
  return {
    startSec,
    totalSpots: loose(s.totalSpots ?? s.totalSpot) ?? 0,
    openSpots: loose(s.openSpots ?? s.openSpot) ?? 0,
    deposit: looseBool(s.deposit),
    depositAmount: loose(s.depositAmount) ?? 0,
    requiresCc: looseBool(s.requiresCc ?? s.requireCc),
  };
}

/** One slot of slotData, strictly: integer counts 0 <= open <= total, booleans, minor-unit deposit. */
export function slotProblems(s: unknown, where: string): string[] {
  if (!isObject(s)) return [`${where}: not an object`];
  const problems: string[] = [];
  if (instantSec(s.startSec) === undefined) problems.push(`${where}: startSec should be Unix seconds (integer), is ${show(s.startSec)}`);
  const total = s.totalSpots ?? s.totalSpot;
  const open = s.openSpots ?? s.openSpot;
  if (!isInt(total) || total < 0) problems.push(`${where}: totalSpots should be an integer >= 0, is ${show(total)}`);
  if (!isInt(open) || open < 0) problems.push(`${where}: openSpots should be an integer >= 0, is ${show(open)}`);
  if (isInt(total) && isInt(open) && open > total) problems.push(`${where}: openSpots ${open} > totalSpots ${total}`);
  if (typeof s.deposit !== 'boolean') problems.push(`${where}: deposit should be a boolean, is ${show(s.deposit)}`);
  if (!isInt(s.depositAmount) || s.depositAmount < 0) problems.push(`${where}: depositAmount should be an integer of minor units >= 0, is ${show(s.depositAmount)}`);
  if (s.deposit === true && isInt(s.depositAmount) && s.depositAmount === 0) problems.push(`${where}: deposit is true but depositAmount is 0`);
  if (typeof (s.requiresCc ?? s.requireCc) !== 'boolean') problems.push(`${where}: requiresCc should be a boolean, is ${show(s.requiresCc ?? s.requireCc)}`);
  return problems;
}

/** GET /availability's answer for the query sent. */
export function availabilityProblems(body: unknown, q: { venueId: string; date: string; partySize: number }): string[] {
  if (!isObject(body)) return [`expected an object, got ${show(body)}`.slice(0, 200)];
  const problems: string[] = [];
  if (body.venueId !== q.venueId) problems.push(`venueId should echo ${show(q.venueId)}, is ${show(body.venueId)}`);
  if (body.date !== q.date) problems.push(`date should echo ${show(q.date)}, is ${show(body.date)}`);
  if (body.partySize !== q.partySize) problems.push(`partySize should echo ${q.partySize}, is ${show(body.partySize)}`);
  if (!isInt(body.duration) || body.duration <= 0) problems.push(`duration should be seconds (integer > 0), is ${show(body.duration)}`);
  if (!Array.isArray(body.slotData)) problems.push(`slotData should be an array, is ${show(body.slotData)}`);
  else body.slotData.forEach((s, i) => problems.push(...slotProblems(s, `${q.date} slot ${i}`)));
  return problems;
}

/** A booking (GET /booking/{id}, search items): every field of DESIGN 8.2 with its type. */
export function bookingProblems(b: unknown, where: string): string[] {
  if (!isObject(b)) return [`${where}: not an object`];
  const problems: string[] = [];
  const need = (key: string, ok: (v: unknown) => boolean, want: string) => {
    if (!(key in b)) problems.push(`${where}: ${key} is missing`);
    else if (!ok(b[key])) problems.push(`${where}: ${key} should be ${want}, is ${show(b[key])}`);
  };
  need('id', (v) => typeof v === 'string' && v !== '', 'a non-empty string');
  need('venueId', (v) => typeof v === 'string', 'a string');
  need('status', isStatus, `one of ${BOOKING_STATUSES.join(', ')}`);
  need('partySize', (v) => isInt(v) && v > 0, 'an integer > 0');
  need('date', (v) => instantSec(v) !== undefined, 'ISO 8601 with offset (or Unix seconds)');
  need('areaId', (v) => v === null || typeof v === 'string', 'null or a string');
  if ('tables' in b && b.tables !== null && !(Array.isArray(b.tables) && b.tables.every((t) => typeof t === 'string'))) {
    problems.push(`${where}: tables should be an array of strings, is ${show(b.tables)}`);
  }
  need('contact', isObject, 'an object');
  if (isObject(b.contact)) {
    for (const k of ['firstname', 'lastname', 'email', 'telephone']) {
      if (typeof b.contact[k] !== 'string') problems.push(`${where}: contact.${k} should be a string, is ${show(b.contact[k])}`);
    }
  }
  need('notes', (v) => v === null || typeof v === 'string', 'null or a string');
  need('deposit', (v) => v === null || (isObject(v) && isInt(v.amount) && v.amount >= 0 && typeof v.paid === 'boolean'), 'null or {amount: integer minor units, paid: boolean}');
  need('createdAt', isIsoTimestamp, 'ISO 8601 with offset');
  need('updatedAt', isIsoTimestamp, 'ISO 8601 with offset');
  return problems;
}

/** The business-failure code of a 402, read leniently ({error:{code}}, {error:"code"}, {code}). */
export function refusalCode(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  if (isObject(body.error) && typeof body.error.code === 'string') return body.error.code;
  if (typeof body.error === 'string') return body.error;
  return typeof body.code === 'string' ? body.code : undefined;
}

/** DESIGN 8.2's 402 envelope, strictly: {"error": {"code": <one of the eight>, "message": string}}. */
export function envelopeProblems(body: unknown): string[] {
  if (!isObject(body) || !isObject(body.error)) return [`body should be {"error": {"code", "message"}}, is ${show(body)}`.slice(0, 240)];
  const problems: string[] = [];
  if (!(ERROR_CODES as readonly unknown[]).includes(body.error.code)) problems.push(`error.code should be one of ${ERROR_CODES.join(', ')}, is ${show(body.error.code)}`);
  if (typeof body.error.message !== 'string') problems.push(`error.message should be a string, is ${show(body.error.message)}`);
  return problems;
}
