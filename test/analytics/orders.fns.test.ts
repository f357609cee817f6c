import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import { MAX_WINDOW_MS, resolveWindow } from '../../src/analytics/orders.fns.ts';
import { instantOf, parseIsoDateOrDateTime } from '../../src/lib/iso/datetimes.ts';
import { zonedWallTime } from '../../src/lib/iso/timezones.ts';

// Pure rules of the closed-order window (spec 4.8, DESIGN 9): parsing ISO 8601 bounds, reading them in
// the venue's zone, and the 31 × 24 h limit.

const ms = (text: string) => Date.parse(text);

describe('parseIsoDateOrDateTime', () => {
  test.each([
    '2026-01-15', '2024-02-29', '2026-01-15T10:00Z', '2026-01-15T10:00:00Z', '2026-01-15T10:00:00.5Z',
    '2026-01-15T10:00:00.123456789+05:30', '2026-01-15T10:00:00-0800', '2026-01-15T10:00:00+09', '2026-01-15t10:00:00z',
    '2026-01-15T10:00:00', '2026-01-15T10:00:00 01:00', '2026-01-15T23:59:59,999Z',
  ])('[ANA-16] accepts %s', (text) => {
    expect(parseIsoDateOrDateTime(text)).not.toBeNull();
  });

  test.each([
    '', 'now', '2026-02-29', '2026-04-31', '2026-00-10', '0000-01-01', '2026-01-15T', '2026-01-15T24:00:00Z',
    '2026-01-15T10:60:00Z', '2026-01-15T10:00:60Z', '2026-01-15T10:00:00.Z', '2026-01-15T10:00:00.1234567890Z',
    '2026-01-15T10:00:00+24:00', '2026-01-15T10:00:00+01:60', '2026-01-15 10:00:00', '20260115', '+002026-01-15',
    '2026-01-15T10:00:00Z ', ' 2026-01-15', '2026-01-15Z',
  ])('[ANA-15] refuses %j', (text) => {
    expect(parseIsoDateOrDateTime(text)).toBeNull();
  });
});

describe('instantOf', () => {
  it('[DES-125] a date is 00:00:00.000 as a start and 23:59:59.999 as an end, in the zone', () => {
    const date = parseIsoDateOrDateTime('2026-01-15')!;
    expect(instantOf(date, 'start', 'Asia/Tokyo').toISOString()).toBe('2026-01-14T15:00:00.000Z');
    expect(instantOf(date, 'end', 'Asia/Tokyo').toISOString()).toBe('2026-01-15T14:59:59.999Z');
    expect(instantOf(date, 'start', 'America/Los_Angeles').toISOString()).toBe('2026-01-15T08:00:00.000Z');
    expect(instantOf(date, 'end', 'America/Los_Angeles').toISOString()).toBe('2026-01-16T07:59:59.999Z');
    expect(instantOf(date, 'start', 'UTC').toISOString()).toBe('2026-01-15T00:00:00.000Z');
  });

  it('an instant with an offset ignores the zone; one without reads the zone\'s wall clock', () => {
    const withOffset = parseIsoDateOrDateTime('2026-07-01T12:00:00+02:00')!;
    expect(instantOf(withOffset, 'start', 'Asia/Tokyo').toISOString()).toBe('2026-07-01T10:00:00.000Z');
    const wall = parseIsoDateOrDateTime('2026-07-01T12:00:00')!;
    expect(instantOf(wall, 'start', 'Europe/Madrid').toISOString()).toBe('2026-07-01T10:00:00.000Z');
    expect(instantOf(wall, 'start', 'America/Los_Angeles').toISOString()).toBe('2026-07-01T19:00:00.000Z');
  });

  it('digits below the millisecond round inward: up for a start, down for an end', () => {
    const t = parseIsoDateOrDateTime('2026-01-15T10:00:00.1234Z')!;
    expect(instantOf(t, 'start', 'UTC').toISOString()).toBe('2026-01-15T10:00:00.124Z');
    expect(instantOf(t, 'end', 'UTC').toISOString()).toBe('2026-01-15T10:00:00.123Z');
    const edge = parseIsoDateOrDateTime('2026-01-15T10:00:59.9995Z')!;
    expect(instantOf(edge, 'start', 'UTC').toISOString()).toBe('2026-01-15T10:01:00.000Z');
    const exact = parseIsoDateOrDateTime('2026-01-15T10:00:00.123000Z')!;
    expect(instantOf(exact, 'start', 'UTC').toISOString()).toBe('2026-01-15T10:00:00.123Z');
  });

  it('matches Date.parse on every instant with an offset', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        (date, offsetMin) => {
          const local = new Date(date.getTime() + offsetMin * 60_000).toISOString().slice(0, 23);
          const sign = offsetMin < 0 ? '-' : '+';
          const abs = Math.abs(offsetMin);
          const text = `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          const parsed = parseIsoDateOrDateTime(text);
          expect(parsed, text).not.toBeNull();
          expect(instantOf(parsed!, 'start', 'UTC').getTime()).toBe(date.getTime());
          expect(instantOf(parsed!, 'end', 'Asia/Tokyo').getTime()).toBe(date.getTime());
        },
      ),
    );
  });
});

describe('zonedWallTime', () => {
  const wall = (text: string) => {
    const [d, t] = text.split('T');
    const [year, month, day] = d.split('-').map(Number);
    const [hour, minute, second] = t.split(':').map(Number);
    return { year, month, day, hour, minute, second, millisecond: 0 };
  };

  it('reads a wall-clock time in the zone, across the year', () => {
    expect(zonedWallTime(wall('2026-01-15T12:00:00'), 'Europe/Madrid').toISOString()).toBe('2026-01-15T11:00:00.000Z');
    expect(zonedWallTime(wall('2026-07-15T12:00:00'), 'Europe/Madrid').toISOString()).toBe('2026-07-15T10:00:00.000Z');
    expect(zonedWallTime(wall('2026-07-15T12:00:00'), 'Asia/Kolkata').toISOString()).toBe('2026-07-15T06:30:00.000Z');
  });

  it('a time that happens twice is the earlier instant; a skipped one lands after the jump', () => {
    // Madrid 2026-10-25: 03:00 CEST goes back to 02:00 CET, so 02:30 happens twice.
    expect(zonedWallTime(wall('2026-10-25T02:30:00'), 'Europe/Madrid').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    // Madrid 2026-03-29: 02:00 CET jumps to 03:00 CEST, so 02:30 never happens; it reads as 03:30 CEST.
    expect(zonedWallTime(wall('2026-03-29T02:30:00'), 'Europe/Madrid').toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  it('refuses an impossible date or time and an unknown zone', () => {
    expect(() => zonedWallTime(wall('2026-02-30T12:00:00'), 'UTC')).toThrow(RangeError);
    expect(() => zonedWallTime(wall('2026-01-15T24:00:00'), 'UTC')).toThrow(RangeError);
    expect(() => zonedWallTime(wall('2026-01-15T12:00:00'), 'Mars/Olympus')).toThrow(RangeError);
  });

  it('round-trips: the wall clock of the result is the wall time asked for (when it exists)', () => {
    const zones = ['Europe/Madrid', 'America/Los_Angeles', 'Asia/Tokyo', 'Australia/Lord_Howe', 'America/St_Johns', 'UTC'];
    fc.assert(
      fc.property(fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2060-01-01T00:00:00Z'), noInvalidDate: true }), fc.constantFrom(...zones), (instant, zone) => {
        const whole = new Date(Math.floor(instant.getTime() / 1000) * 1000);
        const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
        const p = Object.fromEntries(f.formatToParts(whole).map((x) => [x.type, Number(x.value)]));
        const back = zonedWallTime({ year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second, millisecond: 0 }, zone);
        // Either the same instant or, for a repeated wall time, the earlier of the two.
        expect(back.getTime()).toBeLessThanOrEqual(whole.getTime());
        expect(whole.getTime() - back.getTime()).toBeLessThanOrEqual(3600_000);
        expect(f.format(back)).toBe(f.format(whole));
      }),
    );
  });
});

describe('resolveWindow', () => {
  it('[LIM-16] [LIM-17] exactly 31 × 24 h is accepted, one millisecond more refused, naming from and until', () => {
    const ok = resolveWindow('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', null);
    expect(ok).toEqual({ ok: true, from: new Date(ms('2026-01-01T00:00:00Z')), until: new Date(ms('2026-02-01T00:00:00Z')) });
    const over = resolveWindow('2026-01-01T00:00:00Z', '2026-02-01T00:00:00.001Z', null);
    expect(over.ok).toBe(false);
    if (!over.ok) expect(Object.keys(over.problems).sort()).toEqual(['from', 'until']);
    expect(MAX_WINDOW_MS).toBe(31 * 86_400_000);
  });

  it('[DES-126] until before from is refused; equal bounds are a window of one instant', () => {
    expect(resolveWindow('2026-01-02T00:00:00Z', '2026-01-01T23:59:59.999Z', null).ok).toBe(false);
    expect(resolveWindow('2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', null).ok).toBe(true);
    // A date until is the end of its day: the same date for both is a whole day.
    expect(resolveWindow('2026-01-02', '2026-01-02', 'Asia/Tokyo')).toEqual({
      ok: true, from: new Date(ms('2026-01-01T15:00:00Z')), until: new Date(ms('2026-01-02T14:59:59.999Z')),
    });
  });

  it('[DES-043] a venue time zone the store holds but Intl does not know falls back to UTC rather than failing', () => {
    expect(resolveWindow('2026-01-02', '2026-01-02', 'Not/AZone')).toEqual({
      ok: true, from: new Date(ms('2026-01-02T00:00:00Z')), until: new Date(ms('2026-01-02T23:59:59.999Z')),
    });
  });
});
