// The simulator's clock and its venue-local time formatting.
// Every timestamp the simulator writes comes from SimClock, so tests can move time (retention,
// deferred confirmations) without sleeping.

export interface ClockState {
  /** Added to the real time while the clock runs. */
  offsetMs: number;
  /** When set, the clock is stopped at this epoch-ms value. */
  frozenAt: number | null;
}

export class SimClock {
  constructor(private state: ClockState = { offsetMs: 0, frozenAt: null }) {}

  now(): number {
    return this.state.frozenAt ?? Date.now() + this.state.offsetMs;
  }

  /** Jump to an absolute instant; keeps running unless frozen. */
  set(epochMs: number): void {
    if (this.state.frozenAt !== null) this.state.frozenAt = epochMs;
    else this.state.offsetMs = epochMs - Date.now();
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }

  freeze(frozen: boolean): void {
    if (frozen && this.state.frozenAt === null) this.state.frozenAt = this.now();
    if (!frozen && this.state.frozenAt !== null) {
      this.state.offsetMs = this.state.frozenAt - Date.now();
      this.state.frozenAt = null;
    }
  }

  snapshot(): ClockState {
    return { ...this.state };
  }

  restore(state: ClockState): void {
    this.state = { ...state };
  }
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

export interface Parts { y: number; mo: number; d: number; h: number; mi: number; s: number }

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Wall-clock parts of an instant in timeZone (also used by the RMS simulator's slot engine). */
export function partsIn(timeZone: string, epochMs: number): Parts {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  // One formatToParts per call: it is the slow part (the RMS engine calls this per candidate slot).
  const parts = f.formatToParts(epochMs);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { y: get('year'), mo: get('month'), d: get('day'), h: get('hour'), mi: get('minute'), s: get('second') };
}

/**
 * Date.UTC without its two-digit-year rule (it reads years 0-99 as 1900-1999): the year 0042 is the
 * year 42. `mo` is 1-based; any field may overflow into the next, as with Date.UTC.
 */
export function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, 0);
  return t.getTime();
}

/** Offset of timeZone from UTC at that instant, in minutes (e.g. +60 for Paris in winter). */
export function offsetMinutes(timeZone: string, epochMs: number): number {
  const p = partsIn(timeZone, epochMs);
  const asUtc = utcMs(p.y, p.mo, p.d, p.h, p.mi, p.s);
  return Math.round((asUtc - (epochMs - (epochMs % 1000 + 1000) % 1000)) / 60_000);
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** ISO 8601 in the venue's local time with its numeric offset, e.g. 2025-03-01T19:30:00.000+01:00. */
export function isoInZone(epochMs: number, timeZone: string): string {
  const off = offsetMinutes(timeZone, epochMs);
  const local = new Date(epochMs + off * 60_000);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${local.toISOString().slice(0, 23)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * 'Y-m-d H:i:s' read as wall-clock time in timeZone -> epoch ms; null when malformed or not a real
 * calendar time. A wall time skipped by a DST jump resolves to the instant after the jump.
 */
export function parseLocalDateTime(text: string, timeZone: string): number | null {
  const m = LOCAL_DATE_TIME.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const wall = utcMs(y, mo, d, h, mi, s);
  const check = new Date(wall);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  // Two passes settle the offset around DST changes.
  let guess = wall - offsetMinutes(timeZone, wall) * 60_000;
  guess = wall - offsetMinutes(timeZone, guess) * 60_000;
  return guess;
}

/**
 * An ISO 8601 query bound -> epoch ms, or null. A date alone is midnight UTC; a date-time without an
 * offset is read as UTC (never as the host's local time, which would make results host-dependent).
 */
export function parseIsoInstant(text: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
  if (!m) return null;
  const [, date, time, zone] = m;
  const ms = Date.parse(time === undefined ? `${date}T00:00:00Z` : `${date}T${time}${zone ?? 'Z'}`);
  return Number.isNaN(ms) ? null : ms;
}
