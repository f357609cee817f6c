// Pure parts of the Maps Booking API client (DESIGN 8.7b), tested without a network: Google's
// JSON for a booking notification and for availability replace (`startTime` RFC 3339 UTC,
// `duration` like "7200s", counts as integers), the update mask, batching of availability into
// calls of at most 1,000 records, and reading what Google answers (its error JSON, Retry-After,
// the token endpoint's answer, how long a token may be reused).

export const MAPS_BOOKING_SCOPE = 'https://www.googleapis.com/auth/mapsbooking';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** DESIGN 8.8e: an answer from Google is read up to this many bytes; a longer one fails the call. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Google's limit of availability records in one availability:replace call. */
export const MAX_RECORDS_PER_CALL = 1000;
/** Google's limit on a jwt-bearer assertion's lifetime (exp - iat). */
export const ASSERTION_LIFETIME_S = 3600;
/** A token is not reused in its last minutes (or its last half, when it lives less than 10 minutes). */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;
/** DESIGN 8.7b: every RTU service is Google's "dining" service. */
export const DINING_SERVICE_ID = 'dining';

export type GoogleBookingStatus =
  | 'CONFIRMED' | 'PENDING_MERCHANT_CONFIRMATION' | 'CANCELED' | 'NO_SHOW' | 'DECLINED_BY_MERCHANT' | 'FAILED';

/** The fields a booking notification may update (its `updateMask`), in Google's JSON names. */
export type BookingField = 'status' | 'startTime' | 'duration' | 'partySize';
const FIELD_ORDER: readonly BookingField[] = ['status', 'startTime', 'duration', 'partySize'];

/** What changed in a booking, in Tableside's terms. */
export interface BookingUpdate {
  /** Google's merchant_id: the content venue id (DESIGN 8.4). */
  merchantId: string;
  status?: GoogleBookingStatus;
  startTime?: Date | string;
  durationSec?: number;
  partySize?: number;
}

export interface GoogleBooking {
  name: string;
  merchantId: string;
  serviceId: string;
  status?: GoogleBookingStatus;
  startTime?: string;
  duration?: string;
  partySize?: number;
}

/** An RFC 3339 instant in UTC, without a fraction when it has none ("2025-06-11T18:00:00Z"). */
export function toGoogleTimestamp(at: Date | string | number): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) throw new RangeError(`not an instant: ${String(at)}`);
  return date.toISOString().replace('.000Z', 'Z');
}

/** A protobuf Duration in JSON: whole seconds with an `s` ("7200s"). */
export function toGoogleDuration(seconds: number): string {
  if (!Number.isInteger(seconds) || seconds <= 0) throw new RangeError(`a duration is a positive whole number of seconds, got ${seconds}`);
  return `${seconds}s`;
}

const resourceName = (partnerId: string, bookingId: string) => `partners/${partnerId}/bookings/${bookingId}`;

/** The body of PATCH …/notification/partners/{partnerId}/bookings/{bookingId}. */
export function bookingNotificationBody(partnerId: string, bookingId: string, update: BookingUpdate): GoogleBooking {
  return {
    name: resourceName(partnerId, bookingId),
    merchantId: update.merchantId,
    serviceId: DINING_SERVICE_ID,
    ...(update.status !== undefined ? { status: update.status } : {}),
    ...(update.startTime !== undefined ? { startTime: toGoogleTimestamp(update.startTime) } : {}),
    ...(update.durationSec !== undefined ? { duration: toGoogleDuration(update.durationSec) } : {}),
    ...(update.partySize !== undefined ? { partySize: update.partySize } : {}),
  };
}

const carries = (update: BookingUpdate, field: BookingField): boolean =>
  (field === 'duration' ? update.durationSec : update[field]) !== undefined;

/** `updateMask` for the fields named: each once, in a fixed order; every one must be in the update. */
export function updateMaskOf(fields: readonly BookingField[], update: BookingUpdate): string {
  if (fields.length === 0) throw new RangeError('a booking notification names at least one field in its updateMask');
  const missing = fields.find((f) => !carries(update, f));
  if (missing !== undefined) throw new RangeError(`updateMask names ${missing}, which the update does not carry`);
  return FIELD_ORDER.filter((f) => fields.includes(f)).join(',');
}

export interface AvailabilitySlot { startTime: Date | string; durationSec: number; spotsTotal: number; spotsOpen: number }

/** One venue, local day and party size: every slot of that day, so slots that vanished are removed. */
export interface AvailabilityEntry {
  merchantId: string;
  /** The local day's first instant, and the next day's (the window replaced). */
  startTimeRestrict: Date | string;
  endTimeRestrict: Date | string;
  partySize: number;
  slots: readonly AvailabilitySlot[];
}

export interface GoogleServiceAvailability {
  merchantId: string;
  serviceId: string;
  startTimeRestrict: string;
  endTimeRestrict: string;
  resourcesRestrict: { partySize: number };
  availability: Array<{ startTime: string; duration: string; spotsTotal: number; spotsOpen: number; resources: { partySize: number } }>;
}

export function serviceAvailabilityOf(entry: AvailabilityEntry): GoogleServiceAvailability {
  return {
    merchantId: entry.merchantId,
    serviceId: DINING_SERVICE_ID,
    startTimeRestrict: toGoogleTimestamp(entry.startTimeRestrict),
    endTimeRestrict: toGoogleTimestamp(entry.endTimeRestrict),
    resourcesRestrict: { partySize: entry.partySize },
    availability: entry.slots.map((s) => ({
      startTime: toGoogleTimestamp(s.startTime),
      duration: toGoogleDuration(s.durationSec),
      spotsTotal: s.spotsTotal,
      spotsOpen: s.spotsOpen,
      resources: { partySize: entry.partySize },
    })),
  };
}

/**
 * Entries grouped into calls of at most `max` records, in order; an entry is never split, so one
 * larger than `max` goes alone (Google refuses it, and that refusal is recorded for its day).
 */
export function batchAvailability<E extends { slots: readonly unknown[] }>(entries: readonly E[], max = MAX_RECORDS_PER_CALL): E[][] {
  const batches: E[][] = [];
  let current: E[] = [];
  let records = 0;
  for (const entry of entries) {
    if (current.length > 0 && records + entry.slots.length > max) {
      batches.push(current);
      current = [];
      records = 0;
    }
    current.push(entry);
    records += entry.slots.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Google's `{error:{code,message,status}}`; nulls for what an answer does not carry. */
export function readGoogleError(body: unknown): { status: string | null; message: string | null } {
  const error = body !== null && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  if (error === null || typeof error !== 'object') return { status: null, message: null };
  const { status, message } = error as { status?: unknown; message?: unknown };
  return { status: typeof status === 'string' ? status : null, message: typeof message === 'string' ? message.slice(0, 1000) : null };
}

/** The token endpoint's `{error, error_description}` as one line. */
export function readOAuthError(body: unknown): string | null {
  if (body === null || typeof body !== 'object') return null;
  const { error, error_description: description } = body as { error?: unknown; error_description?: unknown };
  if (typeof error !== 'string') return null;
  return typeof description === 'string' ? `${error}: ${description.slice(0, 500)}` : error;
}

/** A Retry-After header (delta-seconds or an HTTP date) as a wait in ms; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, nowMs: number): number | null {
  const text = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** The token endpoint's answer, or null when it is not `{access_token, expires_in, token_type: Bearer}`. */
export function readTokenAnswer(body: unknown): { accessToken: string; expiresInS: number } | null {
  if (body === null || typeof body !== 'object') return null;
  const { access_token: accessToken, expires_in: expiresIn, token_type: tokenType } = body as Record<string, unknown>;
  if (typeof accessToken !== 'string' || accessToken === '' || /\s/.test(accessToken)) return null;
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) return null;
  if (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer') return null;
  return { accessToken, expiresInS: expiresIn };
}

/** Until when a token obtained at `obtainedAtMs` is reused: shortly before it expires. */
export function reuseUntil(obtainedAtMs: number, expiresInS: number): number {
  const lifetimeMs = expiresInS * 1000;
  return obtainedAtMs + lifetimeMs - Math.min(TOKEN_REFRESH_MARGIN_MS, lifetimeMs / 2);
}
