// Venue-local calendar arithmetic without fixed offsets: a wall-clock time in an IANA zone becomes
// an instant by asking Intl what the zone's clock reads at candidate instants, so daylight-saving
// changes are the zone database's business, never ours (BKG-13).

import { offsetMinutes, partsIn, utcMs } from '../../pos-simulator/src/time.ts';
import { WEEKDAYS, type Weekday } from './types.ts';

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface LocalDate { y: number; mo: number; d: number }

/** 'YYYY-MM-DD' -> its parts, or null when it is not a real calendar date. */
export function parseLocalDate(text: string): LocalDate | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const [y, mo, d] = m.slice(1).map(Number);
  const check = new Date(utcMs(y, mo, d));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return { y, mo, d };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function formatLocalDate(date: LocalDate): string {
  return `${pad(date.y, 4)}-${pad(date.mo)}-${pad(date.d)}`;
}

/** The calendar date `days` after `date` (negative: before). */
export function addDays(date: string, days: number): string {
  const p = parseLocalDate(date);
  if (!p) throw new Error(`not a date: ${date}`);
  const t = new Date(utcMs(p.y, p.mo, p.d + days));
  return formatLocalDate({ y: t.getUTCFullYear(), mo: t.getUTCMonth() + 1, d: t.getUTCDate() });
}

export function weekdayOf(date: string): Weekday {
  const p = parseLocalDate(date);
  if (!p) throw new Error(`not a date: ${date}`);
  return WEEKDAYS[new Date(utcMs(p.y, p.mo, p.d)).getUTCDay()];
}

/** The venue-local calendar date of an instant. */
export function localDateOf(timeZone: string, epochMs: number): string {
  const p = partsIn(timeZone, epochMs);
  return formatLocalDate({ y: p.y, mo: p.mo, d: p.d });
}

/** Minutes since local midnight that the zone's clock shows at the instant (seconds ignored). */
export function localMinutesOf(timeZone: string, epochMs: number): number {
  const p = partsIn(timeZone, epochMs);
  return p.h * 60 + p.mi;
}

/**
 * The instant at which the zone's clock reads `minutes` after midnight of `date`, or null when that
 * wall time does not exist that day (the gap of a spring-forward change). A wall time the clock
 * shows twice (fall-back) resolves to its first occurrence, so one wall time is one instant.
 * Candidate offsets are the zone's offsets a day either side and at the wall time itself: a change
 * near the wall time is among them, and each candidate is verified against Intl.
 */
export function wallToInstant(timeZone: string, date: string, minutes: number): number | null {
  const p = parseLocalDate(date);
  if (!p) return null;
  const wall = utcMs(p.y, p.mo, p.d, 0, minutes);
  const candidates = new Set<number>();
  for (const probe of [wall - DAY_MS, wall, wall + DAY_MS]) candidates.add(wall - offsetMinutes(timeZone, probe) * 60_000);
  const matching = [...candidates]
    .filter((t) => {
      const q = partsIn(timeZone, t);
      return utcMs(q.y, q.mo, q.d, q.h, q.mi, q.s) === wall;
    })
    .sort((a, b) => a - b);
  return matching[0] ?? null;
}

/** The instant local midnight of `date` begins (the first instant whose local date is `date`). */
export function startOfLocalDay(timeZone: string, date: string): number {
  // Midnight itself may be skipped (zones that change at 00:00); then the day starts at the jump.
  for (let minutes = 0; minutes < 24 * 60; minutes += 1) {
    const t = wallToInstant(timeZone, date, minutes);
    if (t !== null) return t;
  }
  throw new Error(`no instant of ${date} exists in ${timeZone}`);
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;

/** 'HH:MM' (00:00..24:00) -> minutes after midnight, or null. */
export function parseHhMm(text: string): number | null {
  if (!HHMM.test(text)) return null;
  const [h, m] = text.split(':').map(Number);
  return h * 60 + m;
}
