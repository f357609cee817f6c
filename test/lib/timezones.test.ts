import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { TIME_ZONE_NAMES } from '../../src/lib/iso/timezone-names.ts';
import { isTimeZone, localDatesText, localDateText, OFFSETS_KEPT, zonedDayBounds } from '../../src/lib/iso/timezones.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// Local wall-clock text of an instant, read back with a separate formatter so the tests do not lean on
// the module's own conversion.
function localText(instant: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    fractionalSecondDigits: 3,
  }).formatToParts(instant);
  const f = Object.fromEntries(parts.map((part) => [part.type, part.value]));
  return `${f.year}-${f.month}-${f.day} ${f.hour}:${f.minute}:${f.second}.${f.fractionalSecond}`;
}

const localDate = (instant: number, timeZone: string): string => localText(instant, timeZone).slice(0, 10);
const nextDate = (date: string): string => new Date(Date.parse(date) + DAY).toISOString().slice(0, 10);

const anyDate = fc
  .integer({ min: Date.parse('1990-01-01') / DAY, max: Date.parse('2060-12-31') / DAY })
  .map((day) => new Date(day * DAY).toISOString().slice(0, 10));

// Zones venues are likely in, plus awkward ones: half-hour DST (Lord Howe), 45-minute offsets
// (Kathmandu, Chatham), DST at 00:01 (St John's, until 2011), offset changes (Moscow 2011 and 2014).
// Every transition in them from 1990 to 2060 leaves local midnight in place (checked day by day), so
// each day starts at 00:00. Zones that skip midnight (Santiago, Havana, Casablanca 2008-2011) are
// covered by the next property.
const SAMPLE_ZONES = [
  'UTC', 'Europe/Madrid', 'Europe/London', 'Europe/Lisbon', 'Europe/Moscow', 'America/Los_Angeles',
  'America/New_York', 'America/St_Johns', 'America/Mexico_City', 'Australia/Sydney',
  'Australia/Lord_Howe', 'Pacific/Auckland', 'Pacific/Chatham', 'Asia/Kolkata', 'Asia/Kathmandu',
  'Asia/Tokyo', 'Asia/Dubai',
];

describe('isTimeZone', () => {
  test.each(['Europe/Madrid', 'America/Los_Angeles', 'UTC', 'Etc/UTC', 'GMT', 'Etc/GMT+5', 'Asia/Calcutta',
    'US/Pacific', 'America/Argentina/Buenos_Aires', 'America/Port-au-Prince'])('accepts %s', (name) => {
    expect(isTimeZone(name)).toBe(true);
    expect(isTimeZone(name)).toBe(true); // and again, from the cache
  });

  test.each(['+02:00', '-0500', 'Z', 'Mars/Olympus', 'utc', 'europe/madrid', 'Europe/', '', 'Europe/Madrid '])(
    'rejects %j',
    (name) => {
      expect(isTimeZone(name)).toBe(false);
    },
  );

  test('every accepted name is one Intl resolves (the zone arithmetic needs it)', () => {
    expect(TIME_ZONE_NAMES.length).toBeGreaterThan(400);
    for (const zone of TIME_ZONE_NAMES) expect(() => new Intl.DateTimeFormat('en-US', { timeZone: zone })).not.toThrow();
  });
});

describe('zonedDayBounds', () => {
  test.each([
    ['2026-06-15', 'UTC', '2026-06-15T00:00:00.000Z', '2026-06-15T23:59:59.999Z'],
    ['2026-06-15', 'Europe/Madrid', '2026-06-14T22:00:00.000Z', '2026-06-15T21:59:59.999Z'],
    // A 23-hour day: clocks go from 02:00 to 03:00.
    ['2026-03-29', 'Europe/Madrid', '2026-03-28T23:00:00.000Z', '2026-03-29T21:59:59.999Z'],
    // A 25-hour day: clocks go back from 02:00 to 01:00.
    ['2026-11-01', 'America/Los_Angeles', '2026-11-01T07:00:00.000Z', '2026-11-02T07:59:59.999Z'],
    ['2026-06-01', 'Asia/Kolkata', '2026-05-31T18:30:00.000Z', '2026-06-01T18:29:59.999Z'],
    // Midnight is skipped (00:00 -> 01:00): the day starts at 01:00 local.
    ['2026-09-06', 'America/Santiago', '2026-09-06T04:00:00.000Z', '2026-09-07T02:59:59.999Z'],
  ])('%s in %s runs from %s to %s', (date, zone, start, end) => {
    const bounds = zonedDayBounds(date, zone);
    expect(bounds.start.toISOString()).toBe(start);
    expect(bounds.end.toISOString()).toBe(end);
  });

  test('a day the zone skipped entirely holds no instant (Samoa, 2011-12-30)', () => {
    const { start, end } = zonedDayBounds('2011-12-30', 'Pacific/Apia');
    expect(end.getTime()).toBe(start.getTime() - 1);
    expect(localText(start.getTime(), 'Pacific/Apia')).toBe('2011-12-31 00:00:00.000');
  });

  test.each([
    ['2026-02-30', 'UTC'],
    ['2026-2-1', 'UTC'],
    ['2026-13-01', 'UTC'],
    ['0000-01-01', 'UTC'],
    ['2026-06-15', 'Mars/Olympus'],
    ['2026-06-15', '+02:00'],
  ])('throws on %s in %s', (date, zone) => {
    expect(() => zonedDayBounds(date, zone)).toThrow(RangeError);
  });

  test('[DES-043] zonedDayBounds: in common zones a day runs from local 00:00:00.000 to 23:59:59.999, 24 h ± 1 h', () => {
    fc.assert(
      fc.property(anyDate, fc.constantFrom(...SAMPLE_ZONES), (date, zone) => {
        const { start, end } = zonedDayBounds(date, zone);
        expect(start.getTime()).toBeLessThan(end.getTime());
        expect(Math.abs(end.getTime() + 1 - start.getTime() - DAY)).toBeLessThanOrEqual(HOUR);
        expect(localText(start.getTime(), zone)).toBe(`${date} 00:00:00.000`);
        expect(localText(end.getTime(), zone)).toBe(`${date} 23:59:59.999`);
        expect(zonedDayBounds(nextDate(date), zone).start.getTime()).toBe(end.getTime() + 1);
      }),
      { numRuns: 2000 },
    );
  });

  test('in every zone Intl knows, the bounds are the first and last instants of the local day', () => {
    fc.assert(
      fc.property(anyDate, fc.constantFrom(...Intl.supportedValuesOf('timeZone')), (date, zone) => {
        const { start, end } = zonedDayBounds(date, zone);
        expect(localDate(start.getTime() - 1, zone) < date).toBe(true);
        expect(localDate(end.getTime() + 1, zone) > date).toBe(true);
        if (end >= start) {
          expect(localDate(start.getTime(), zone)).toBe(date);
          expect(localDate(end.getTime(), zone)).toBe(date);
        }
        expect(zonedDayBounds(nextDate(date), zone).start.getTime()).toBe(end.getTime() + 1);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('localDateText', () => {
  test.each([
    ['2026-03-28T22:59:59Z', 'Europe/Madrid', '2026-03-28'],
    ['2026-03-28T23:00:00Z', 'Europe/Madrid', '2026-03-29'],
    ['2026-01-01T10:00:00Z', 'Pacific/Kiritimati', '2026-01-02'],
    ['2026-01-01T10:00:00Z', 'Pacific/Pago_Pago', '2025-12-31'],
    ['2026-06-15T23:59:59.999Z', 'UTC', '2026-06-15'],
  ])('%s is %s in %s', (instant, zone, date) => {
    expect(localDateText(new Date(instant), zone)).toBe(date);
  });

  test('is the local date of the instant in every zone Intl knows', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('1990-01-01'), max: Date.parse('2060-12-31') }), fc.constantFrom(...Intl.supportedValuesOf('timeZone')), (instant, zone) => {
        expect(localDateText(new Date(instant), zone)).toBe(localDate(instant, zone));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('localDatesText', () => {
  test('[CHN-12] is localDateText of each instant, in order, also around DST changes and across days, in every zone Intl knows', () => {
    // A batch like a BatchAvailabilityLookup's: slot times at whole seconds, some close together and
    // some days apart, in no particular order, often straddling a transition (March and October).
    const around = fc.constantFrom(Date.parse('2026-03-29T01:00:00Z'), Date.parse('2026-10-25T01:00:00Z'), Date.parse('2026-11-01T06:00:00Z'), Date.parse('2026-04-05T16:00:00Z'));
    const instants = fc.tuple(around, fc.array(fc.integer({ min: -3 * DAY / 1000, max: 3 * DAY / 1000 }), { minLength: 1, maxLength: 60 }))
      .map(([at, secs]) => secs.map((s) => at + s * 1000));
    fc.assert(
      fc.property(instants, fc.constantFrom(...Intl.supportedValuesOf('timeZone')), (xs, zone) => {
        expect(localDatesText(xs, zone)).toEqual(xs.map((x) => localDate(x, zone)));
      }),
      { numRuns: 1000 },
    );
  });

  test('[CHN-12] the same instants asked again, from the offsets kept, and past the bound of what is kept, give the same dates', () => {
    // A lookup's quarter-hours over two days around a DST change, asked again and again (as Google
    // does), then more distinct instants than the process keeps offsets of, then the first again.
    const start = Date.parse('2026-10-24T22:00:00Z');
    const quarterHours = Array.from({ length: 200 }, (_, i) => start + i * 900_000);
    for (const zone of ['Europe/London', 'Australia/Lord_Howe', 'America/St_Johns', 'Asia/Kathmandu']) {
      const expected = quarterHours.map((x) => localDate(x, zone));
      for (let round = 0; round < 3; round++) expect(localDatesText(quarterHours, zone)).toEqual(expected);
    }
    // A day and a second apart: each instant a span of its own, an offset read (and kept) for each.
    const many = Array.from({ length: OFFSETS_KEPT + 500 }, (_, i) => start + i * (DAY + 1000));
    const sample = many.filter((_, i) => i % 97 === 0);
    expect(localDatesText(many, 'Europe/Madrid').filter((_, i) => i % 97 === 0)).toEqual(sample.map((x) => localDate(x, 'Europe/Madrid')));
    expect(localDatesText(quarterHours, 'Europe/London')).toEqual(quarterHours.map((x) => localDate(x, 'Europe/London')));
  });
});
