// What the two Maps Booking API methods accept (DESIGN 8.7b), checked as Google checks a request
// before acting: unknown fields refused, the resource name matching the URL, the update mask naming
// known fields, at most 1,000 availability records in a call, each inside its entry's window. Where
// Tableside's own contract is stricter than Google (instants in UTC, counts as JSON integers), the
// simulator holds the stricter line, so a test fails on what Google might merely tolerate.

import { invalidArgument } from './errors.ts';

export const BOOKING_STATUSES = [
  'CONFIRMED', 'PENDING_MERCHANT_CONFIRMATION', 'PENDING_CLIENT_CONFIRMATION', 'CANCELED',
  'NO_SHOW', 'NO_SHOW_PENALIZED', 'FAILED', 'DECLINED_BY_MERCHANT',
] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/** Records one availability:replace call may carry (Google's limit). */
export const MAX_AVAILABILITY_RECORDS = 1000;

export interface NotifiedBooking {
  name: string;
  merchantId: string;
  serviceId: string;
  status?: BookingStatus;
  startTime?: string;
  duration?: string;
  partySize?: number;
}

/** The fields an update mask may name, in either of the spellings Google's field masks accept. */
const MASKABLE: Record<string, keyof NotifiedBooking> = {
  status: 'status', startTime: 'startTime', start_time: 'startTime', duration: 'duration', partySize: 'partySize', party_size: 'partySize',
};
const BOOKING_FIELDS = ['name', 'merchantId', 'serviceId', 'status', 'startTime', 'duration', 'partySize'];
const ENTRY_FIELDS = ['merchantId', 'serviceId', 'startTimeRestrict', 'endTimeRestrict', 'durationRestrict', 'resourcesRestrict', 'availability'];
const RECORD_FIELDS = [
  'startTime', 'duration', 'spotsTotal', 'spotsOpen', 'availabilityTag', 'resources', 'recurrence', 'scheduleException',
  'deposit', 'noShowFee', 'requireCreditCard', 'durationRequirement', 'confirmationMode',
];
const RESOURCE_FIELDS = ['staffId', 'staffName', 'roomId', 'roomName', 'partySize'];

const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const DURATION = /^\d{1,12}(\.\d{1,9})?s$/;
const INT32_MAX = 2 ** 31 - 1;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function objectAt(value: unknown, at: string, allowed: string[]): Obj {
  if (!isObject(value)) throw invalidArgument(`Invalid JSON payload received. '${at}' must be an object.`);
  const unknown = Object.keys(value).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw invalidArgument(`Invalid JSON payload received. Unknown name "${unknown}" at '${at}': Cannot find field.`);
  return value;
}

function text(value: unknown, at: string): string {
  if (typeof value !== 'string' || value === '') throw invalidArgument(`Invalid value at '${at}': a non-empty string is required`);
  return value;
}

/** Epoch ms of an RFC 3339 UTC instant. */
function instant(value: unknown, at: string): number {
  const ms = typeof value === 'string' && UTC_INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidArgument(`Invalid value at '${at}' (type.googleapis.com/google.protobuf.Timestamp), ${JSON.stringify(value)}: an RFC 3339 instant in UTC is required`);
  return ms;
}

function duration(value: unknown, at: string): number {
  const seconds = typeof value === 'string' && DURATION.test(value) ? Number(value.slice(0, -1)) : Number.NaN;
  if (!(seconds > 0)) throw invalidArgument(`Invalid value at '${at}' (type.googleapis.com/google.protobuf.Duration), ${JSON.stringify(value)}: a positive duration like "7200s" is required`);
  return seconds;
}

function count(value: unknown, at: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > INT32_MAX) {
    throw invalidArgument(`Invalid value at '${at}' (TYPE_INT32), ${JSON.stringify(value)}: an integer of at least ${min} is required`);
  }
  return value;
}

/** PATCH …/notification/partners/{partnerId}/bookings/{bookingId}?updateMask=…: the booking as accepted. */
export function checkBookingNotification(partnerId: string, bookingId: string, updateMask: unknown, body: unknown): { booking: NotifiedBooking; mask: string[] } {
  const b = objectAt(body, 'booking', BOOKING_FIELDS);
  const expected = `partners/${partnerId}/bookings/${bookingId}`;
  if (b.name !== expected) throw invalidArgument(`booking.name must be the resource of the URL, "${expected}"; got ${JSON.stringify(b.name)}`);
  const booking: NotifiedBooking = { name: expected, merchantId: text(b.merchantId, 'booking.merchant_id'), serviceId: text(b.serviceId, 'booking.service_id') };
  if (b.status !== undefined) {
    if (!BOOKING_STATUSES.includes(b.status as BookingStatus)) throw invalidArgument(`Invalid value at 'booking.status' (type.googleapis.com/maps.booking.v1alpha.BookingStatus), ${JSON.stringify(b.status)}`);
    booking.status = b.status as BookingStatus;
  }
  if (b.startTime !== undefined) {
    instant(b.startTime, 'booking.start_time');
    booking.startTime = b.startTime as string;
  }
  if (b.duration !== undefined) {
    duration(b.duration, 'booking.duration');
    booking.duration = b.duration as string;
  }
  if (b.partySize !== undefined) booking.partySize = count(b.partySize, 'booking.party_size', 1);
  return { booking, mask: maskOf(updateMask, booking) };
}

function maskOf(updateMask: unknown, booking: NotifiedBooking): string[] {
  if (typeof updateMask !== 'string' || updateMask.trim() === '') throw invalidArgument('update_mask is required: name the fields of the booking that changed');
  const fields = updateMask.split(',').map((p) => p.trim());
  const mask: string[] = [];
  for (const path of fields) {
    const field = MASKABLE[path];
    if (!field) throw invalidArgument(`Invalid field mask path "${path}": a booking notification may update status, startTime, duration and partySize`);
    if (booking[field] === undefined) throw invalidArgument(`update_mask names "${path}" but the booking carries no ${field}`);
    if (!mask.includes(field)) mask.push(field);
  }
  return mask;
}

export interface AvailabilityRecord { startTime: string; duration: string; spotsTotal?: number; spotsOpen?: number; resources?: { partySize?: number } }
export interface ServiceAvailabilityEntry {
  merchantId: string;
  serviceId: string;
  startTimeRestrict?: string;
  endTimeRestrict?: string;
  resourcesRestrict?: { partySize?: number };
  availability: AvailabilityRecord[];
}

/** POST …/inventory/partners/{partnerId}/availability:replace: the entries as accepted. */
export function checkAvailabilityReplace(body: unknown): ServiceAvailabilityEntry[] {
  const b = objectAt(body, 'request', ['extendedServiceAvailability']);
  const entries = b.extendedServiceAvailability;
  if (!Array.isArray(entries) || entries.length === 0) throw invalidArgument("'extended_service_availability' is required: at least one entry");
  const records = entries.reduce((n: number, e) => n + (isObject(e) && Array.isArray(e.availability) ? e.availability.length : 0), 0);
  if (records > MAX_AVAILABILITY_RECORDS) {
    throw invalidArgument(`Too many availability slots in one request: ${records}; at most ${MAX_AVAILABILITY_RECORDS} may be replaced per call`);
  }
  return entries.map((e, i) => checkEntry(e, `extended_service_availability[${i}]`));
}

function checkEntry(value: unknown, at: string): ServiceAvailabilityEntry {
  const e = objectAt(value, at, ENTRY_FIELDS);
  const start = e.startTimeRestrict === undefined ? null : instant(e.startTimeRestrict, `${at}.start_time_restrict`);
  const end = e.endTimeRestrict === undefined ? null : instant(e.endTimeRestrict, `${at}.end_time_restrict`);
  if (start !== null && end !== null && start >= end) throw invalidArgument(`${at}: start_time_restrict must be before end_time_restrict`);
  const restrict = e.resourcesRestrict === undefined ? undefined : objectAt(e.resourcesRestrict, `${at}.resources_restrict`, RESOURCE_FIELDS);
  const partySize = restrict?.partySize === undefined ? undefined : count(restrict.partySize, `${at}.resources_restrict.party_size`, 1);
  if (!Array.isArray(e.availability)) throw invalidArgument(`'${at}.availability' must be a list (empty to clear the window)`);
  const availability = e.availability.map((r, j) => checkRecord(r, `${at}.availability[${j}]`, { start, end, partySize }));
  return {
    merchantId: text(e.merchantId, `${at}.merchant_id`),
    serviceId: text(e.serviceId, `${at}.service_id`),
    ...(e.startTimeRestrict !== undefined ? { startTimeRestrict: e.startTimeRestrict as string } : {}),
    ...(e.endTimeRestrict !== undefined ? { endTimeRestrict: e.endTimeRestrict as string } : {}),
    ...(partySize !== undefined ? { resourcesRestrict: { partySize } } : {}),
    availability,
  };
}

function checkRecord(value: unknown, at: string, window: { start: number | null; end: number | null; partySize?: number }): AvailabilityRecord {
  const r = objectAt(value, at, RECORD_FIELDS);
  const startMs = instant(r.startTime, `${at}.start_time`);
  duration(r.duration, `${at}.duration`);
  if ((window.start !== null && startMs < window.start) || (window.end !== null && startMs >= window.end)) {
    throw invalidArgument(`${at}.start_time ${String(r.startTime)} is outside the entry's window [start_time_restrict, end_time_restrict)`);
  }
  const spotsTotal = r.spotsTotal === undefined ? undefined : count(r.spotsTotal, `${at}.spots_total`, 0);
  const spotsOpen = r.spotsOpen === undefined ? undefined : count(r.spotsOpen, `${at}.spots_open`, 0);
  if (spotsTotal !== undefined && spotsOpen !== undefined && spotsOpen > spotsTotal) throw invalidArgument(`${at}: spots_open (${spotsOpen}) exceeds spots_total (${spotsTotal})`);
  const resources = r.resources === undefined ? undefined : objectAt(r.resources, `${at}.resources`, RESOURCE_FIELDS);
  const partySize = resources?.partySize === undefined ? undefined : count(resources.partySize, `${at}.resources.party_size`, 1);
  if (window.partySize !== undefined && partySize !== window.partySize) {
    throw invalidArgument(`${at}.resources.party_size must be ${window.partySize}, the entry's resources_restrict`);
  }
  return {
    startTime: r.startTime as string,
    duration: r.duration as string,
    ...(spotsTotal !== undefined ? { spotsTotal } : {}),
    ...(spotsOpen !== undefined ? { spotsOpen } : {}),
    ...(partySize !== undefined ? { resources: { partySize } } : {}),
  };
}
