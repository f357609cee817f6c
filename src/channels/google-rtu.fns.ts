import { createHash, createPrivateKey } from 'node:crypto';
import { localDateText, zonedDayBounds } from '../lib/iso/timezones.ts';
import { v3Status } from './google-booking-server.fns.ts';
import { availabilityOf, partySizesOf, type VenueRecords } from './google-feeds.fns.ts';
import type { AvailabilityEntry, BookingField, BookingUpdate } from './maps-booking-client.fns.ts';

// Pure rules of Google's real-time updates (DESIGN 8.7b), tested without a network or a database:
// what a booking notification says and its updateMask, the availability of a venue's local day as
// Google's entries (one per party size, the whole day's window), which days changed since Google
// last accepted them, the retry schedule, and the service-account key file.

export const GOOGLE_API_BASE = 'https://mapsbooking.googleapis.com';
/** 429, 5xx and network failures are retried for this long after an update's first failure. */
export const RETRY_WINDOW_MS = 24 * 3600_000;
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 5 * 60_000;

/** The booking fields Google is told of (DESIGN 8.7b: status, startTime, partySize). */
export interface GoogleBookingFields { status: NonNullable<BookingUpdate['status']>; startTime: string; partySize: number }
const NOTIFIED_FIELDS = ['status', 'startTime', 'partySize'] as const satisfies readonly BookingField[];

/** A booking as Google would hold it: the status mapped as in 8.4b, the start in UTC. */
export function googleFieldsOf(b: { status: string | null; start: Date | string; partySize: number }): GoogleBookingFields {
  return { status: v3Status(b.status), startTime: new Date(b.start).toISOString(), partySize: b.partySize };
}

/** The fields that differ from what Google last accepted (all of them when it accepted nothing). */
export function changedFields(accepted: GoogleBookingFields | null, now: GoogleBookingFields): BookingField[] {
  return NOTIFIED_FIELDS.filter((f) => accepted === null || accepted[f] !== now[f]);
}

/** The notification's body fields for the changed ones only. */
export function notificationOf(merchantId: string, now: GoogleBookingFields, fields: readonly BookingField[]): BookingUpdate {
  return {
    merchantId,
    ...(fields.includes('status') ? { status: now.status } : {}),
    ...(fields.includes('startTime') ? { startTime: now.startTime } : {}),
    ...(fields.includes('partySize') ? { partySize: now.partySize } : {}),
  };
}

/**
 * When to try again after the `failures`-th failure in a row: Retry-After when Google named one,
 * else 5 s doubling to at most 5 min (the first retry within 10 s).
 */
export function retryDelayMs(failures: number, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return Math.max(0, retryAfterMs);
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, Math.min(failures - 1, 16)));
}

/** Whether an update failing since `failingSince` is still retried at `now`. */
export const withinRetryWindow = (failingSince: Date, now: Date) => now.getTime() - failingSince.getTime() < RETRY_WINDOW_MS;

/** The day targets a booking touches: its local day, and the one it left when moved. */
export function daysTouched(tz: string, starts: ReadonlyArray<Date | null | undefined>): string[] {
  return [...new Set(starts.filter((s): s is Date => !!s).map((s) => localDateText(s, tz)))];
}

export const dayTarget = (venueId: string, day: string) => `${venueId}/${day}`;
export function readDayTarget(target: string): { venueId: string; day: string } {
  const at = target.lastIndexOf('/');
  return { venueId: target.slice(0, at), day: target.slice(at + 1) };
}

/**
 * A venue's availability for some local days as Google's entries: for each day, one entry per party
 * size the feed offers (1 .. partySizesOf), its window the whole local day, its records as the feeds
 * of 8.4c build them (a party size with none is an empty entry: its slots vanished).
 */
export function dayEntries(input: VenueRecords, tz: string, days: readonly string[]): Map<string, AvailabilityEntry[]> {
  const out = new Map<string, AvailabilityEntry[]>();
  const sizes = partySizesOf(input.venue);
  for (const day of days) {
    // zonedDayBounds ends on the day's last millisecond; Google's window is half-open, to the next day's start.
    const { start, end: last } = zonedDayBounds(day, tz);
    const end = new Date(last.getTime() + 1);
    const records = availabilityOf(input, Math.floor(start.getTime() / 1000), Math.floor(end.getTime() / 1000));
    const entries: AvailabilityEntry[] = [];
    for (let size = 1; size <= sizes; size++) {
      const slots = records
        .filter((r) => r.resources.party_size === size)
        .sort((a, b) => a.start_sec - b.start_sec)
        .map((r) => ({ startTime: new Date(r.start_sec * 1000), durationSec: r.duration_sec, spotsTotal: r.spots_total, spotsOpen: r.spots_open }));
      entries.push({ merchantId: input.venue.id, startTimeRestrict: start, endTimeRestrict: end, partySize: size, slots });
    }
    out.set(day, entries);
  }
  return out;
}

/** The local days a venue's snapshot records cover, in order. */
export const daysOfRecords = (input: VenueRecords) => [...new Set(input.records.map((r) => r.date))].sort();

/** A day's entries as a short fingerprint: a completed feed sends a day only when it differs from the last one sent. */
export function dayHash(entries: readonly AvailabilityEntry[]): string {
  const canonical = entries.map((e) => [e.partySize, e.slots.map((s) => [new Date(s.startTime).getTime(), s.durationSec, s.spotsTotal, s.spotsOpen])]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

export interface ServiceAccountKey { clientEmail: string; privateKey: string; tokenUri: string }

/**
 * The service-account key file Google issues, as Tableside keeps it; a list of problems when it is
 * not one (never echoing the key).
 */
export function readServiceAccount(text: string): ServiceAccountKey | string[] {
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    return ['the service-account file is not JSON (the key file Google issues)'];
  }
  if (file === null || typeof file !== 'object') return ['the service-account file is not a JSON object'];
  const { client_email: clientEmail, private_key: privateKey, token_uri: tokenUri } = file as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof clientEmail !== 'string' || !clientEmail.includes('@')) problems.push('client_email is missing or not an email address');
  if (typeof tokenUri !== 'string' || !isHttpsUrl(tokenUri)) problems.push('token_uri is missing or not an https URL');
  if (typeof privateKey !== 'string') problems.push('private_key is missing');
  else if (!isRsaPrivateKey(privateKey)) problems.push('private_key is not an RSA private key in PEM (RS256)');
  return problems.length > 0 ? problems : { clientEmail: clientEmail as string, privateKey: privateKey as string, tokenUri: tokenUri as string };
}

function isRsaPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

export function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}

