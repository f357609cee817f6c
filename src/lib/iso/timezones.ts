// IANA time zones, with Intl as the only source of zone data (no date library: Node's ICU is kept up to
// date with Node, and one source of truth avoids two tz databases disagreeing).

import { TIME_ZONE_NAMES } from './timezone-names.ts';

const NAMES: ReadonlySet<string> = new Set(TIME_ZONE_NAMES);

/**
 * True for a zone name of the frozen list (timezone-names.ts): the canonical names and the aliases
 * tzdata links ("UTC", "Etc/UTC", "Asia/Calcutta", "US/Pacific"). Offsets ("+02:00"), other
 * spellings ("utc") and unknown names are false. A fixed list rather than whatever this machine's
 * Intl accepts, so the OpenAPI document's enum and validation agree on every machine.
 */
export function isTimeZone(name: string): boolean {
  return NAMES.has(name);
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

// Formatting is the slow part of Intl, so one formatter per zone is kept (there are a few hundred zones).
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      // h23, not hour12: false, which some ICU versions render as "24" at midnight.
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Builds an instant from UTC fields; unlike Date.UTC, years 0..99 are not taken as 1900..1999. */
function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** The wall-clock time in `timeZone` at `instant`, read as if it were UTC (whole seconds). */
function wallClockMs(instant: number, timeZone: string): number {
  const fields: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) fields[part.type] = part.value;
  const year = fields.era === 'BC' ? 1 - Number(fields.year) : Number(fields.year);
  return utcMs(year, +fields.month, +fields.day, +fields.hour, +fields.minute, +fields.second);
}

/**
 * Offsets already read, by zone and whole second: a zone's offset at an instant cannot change within
 * a process (Intl's zone data is loaded once), and availability lookups ask the same quarter-hours
 * of the same days again and again, each answer costing an Intl formatToParts (issue 28: with the
 * date texts below, ~6% of the serve's CPU at /v3's healthy load, profiled). Bounded: emptied when full.
 */
const offsets = new Map<string, number>();
export const OFFSETS_KEPT = 10_000;

/** The zone's offset from UTC at `instant`, in ms (Madrid in summer: +7 200 000). */
function offsetMs(instant: number, timeZone: string): number {
  const wholeSecond = instant - (((instant % 1000) + 1000) % 1000);
  const key = `${timeZone} ${wholeSecond}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = wallClockMs(wholeSecond, timeZone) - wholeSecond;
    if (offsets.size >= OFFSETS_KEPT) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

/**
 * The first instant of the local calendar day whose midnight, read as UTC, is `wallMidnight`.
 * Usually local 00:00; where a transition skips midnight (clocks jump 00:00 -> 01:00) the day starts
 * at the transition; where midnight happens twice, the earlier one.
 * Zones change offset at most once within a day either side (true of every zone in the tz database
 * for centuries), so the offsets a day before and a day after are the only candidates.
 */
function startOfLocalDay(wallMidnight: number, timeZone: string): number {
  const before = offsetMs(wallMidnight - DAY_MS, timeZone);
  const after = offsetMs(wallMidnight + DAY_MS, timeZone);
  const candidates = [wallMidnight - before, wallMidnight - after].filter(
    (instant) => wallClockMs(instant, timeZone) === wallMidnight,
  );
  if (candidates.length > 0) return Math.min(...candidates);
  // Midnight does not exist: with the offset from before the jump, it lands on the jump itself.
  return wallMidnight - before;
}

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The instants of local 00:00:00.000 and 23:59:59.999 of `date` (YYYY-MM-DD) in `timeZone`, as used for
 * date-only filters. A day is 23 or 25 hours long across a DST change, so both ends are found in the
 * zone itself; `end` is one millisecond before the next day starts. Where midnight is skipped, `start`
 * is the first instant of the day (e.g. 01:00). A day the zone skipped entirely (Pacific/Apia
 * 2011-12-30) gives end < start: no instant falls in it. Throws RangeError on an invalid date or zone.
 */
export function zonedDayBounds(date: string, timeZone: string): { start: Date; end: Date } {
  const match = DATE_SHAPE.exec(date);
  if (!match) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const wallMidnight = utcMs(year, month, day);
  const check = new Date(wallMidnight);
  if (year < 1 || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new RangeError(`not a calendar date: ${JSON.stringify(date)}`);
  }
  if (!isTimeZone(timeZone)) throw new RangeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
  const start = startOfLocalDay(wallMidnight, timeZone);
  const nextStart = startOfLocalDay(wallMidnight + DAY_MS, timeZone);
  return { start: new Date(start), end: new Date(nextStart - 1) };
}

/** A wall-clock date and time to the second (fields as written: month 1-12). */
export interface WallSecond {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** A wall-clock date and time (millisecond 0-999). */
export interface WallTime extends WallSecond {
  millisecond: number;
}

/**
 * The instant at which the clock in `timeZone` reads `wall`. A wall time that happens twice (clocks
 * go back) is the earlier instant; one that never happens (clocks jump forward) is read with the
 * offset from before the jump, so it lands after the jump by the same distance (Temporal's
 * "compatible" disambiguation). Throws RangeError on an invalid date, time or zone.
 */
export function zonedWallTime(wall: WallTime, timeZone: string): Date {
  const { year, month, day, hour, minute, second, millisecond } = wall;
  const wholeSecond = utcMs(year, month, day, hour, minute, second);
  const check = new Date(wholeSecond);
  const valid =
    year >= 1 && check.getUTCMonth() === month - 1 && check.getUTCDate() === day &&
    hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 &&
    Number.isInteger(millisecond) && millisecond >= 0 && millisecond <= 999;
  if (!valid) throw new RangeError(`not a calendar date and time: ${JSON.stringify(wall)}`);
  if (!isTimeZone(timeZone)) throw new RangeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
  // Same reasoning as startOfLocalDay: the offsets a day either side are the only candidates.
  const before = offsetMs(wholeSecond - DAY_MS, timeZone);
  const after = offsetMs(wholeSecond + DAY_MS, timeZone);
  const candidates = [wholeSecond - before, wholeSecond - after].filter(
    (instant) => wallClockMs(instant, timeZone) === wholeSecond,
  );
  const instant = candidates.length > 0 ? Math.min(...candidates) : wholeSecond - before;
  return new Date(instant + millisecond);
}

/** `instant` as the wall-clock 'YYYY-MM-DD HH:MM:SS' of `timeZone` (spec 4.6's 'Y-m-d H:i:s'; whole seconds). */
export function localDateTimeText(instant: Date, timeZone: string): string {
  const iso = new Date(wallClockMs(instant.getTime(), timeZone)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** `instant` as the wall-clock date 'YYYY-MM-DD' of `timeZone` (a venue's local day). */
export function localDateText(instant: Date, timeZone: string): string {
  return localDateTimeText(instant, timeZone).slice(0, 10);
}

/**
 * `localDateText` of each instant (ms since the epoch, whole seconds), in the same order, with far
 * fewer Intl calls: a zone changes offset at most once within a day (see startOfLocalDay), so when
 * the offsets at both ends of a span of at most a day agree, every instant between has that offset.
 * Instants outside such a span are converted one by one, as localDateText does.
 */
export function localDatesText(instants: readonly number[], timeZone: string): string[] {
  const order = instants.map((_, i) => i).sort((a, b) => instants[a]! - instants[b]!);
  const out = new Array<string>(instants.length);
  // One text per local day, not one Date and ISO string per instant (a lookup's 50 slot times fall
  // on a few days).
  const days = new Map<number, string>();
  const dateAt = (instant: number, offset: number) => {
    const day = Math.floor((instant + offset) / DAY_MS);
    let text = days.get(day);
    if (text === undefined) {
      text = new Date(day * DAY_MS).toISOString().slice(0, 10);
      days.set(day, text);
    }
    return text;
  };
  for (let i = 0; i < order.length; ) {
    const first = instants[order[i]!]!;
    // The last instant within a day of the first.
    let j = i;
    while (j + 1 < order.length && instants[order[j + 1]!]! - first <= DAY_MS) j++;
    const offset = offsetMs(first, timeZone);
    if (j > i && offsetMs(instants[order[j]!]!, timeZone) === offset) {
      for (let k = i; k <= j; k++) out[order[k]!] = dateAt(instants[order[k]!]!, offset);
    } else {
      for (let k = i; k <= j; k++) out[order[k]!] = localDateText(new Date(instants[order[k]!]!), timeZone);
    }
    i = j + 1;
  }
  return out;
}
