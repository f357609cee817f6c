import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ISO_DATE_OR_DATE_TIME_PATTERN, isIsoDateOrDateTime } from '../../src/lib/iso/datetimes.ts';

// The OpenAPI document states `format: iso-date-or-date-time` as this pattern too (issue 17): a
// generic tool that trusts the pattern must agree with the service on every text.
const pattern = new RegExp(ISO_DATE_OR_DATE_TIME_PATTERN, 'u');

const digits = (n: number, max = 10 ** n - 1) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
const shaped = fc
  .tuple(
    fc.oneof(digits(4), fc.constantFrom('0000', '1900', '2000', '2024', '2100', '0400')),
    digits(2, 13),
    digits(2, 32),
    fc.option(
      fc.tuple(
        fc.constantFrom('T', 't', ' ', 'X'),
        digits(2, 25),
        digits(2, 61),
        fc.option(fc.tuple(digits(2, 61), fc.option(fc.stringMatching(/^[.,]\d{1,10}$/)))),
        fc.option(fc.oneof(fc.constantFrom('Z', 'z'), fc.tuple(fc.constantFrom('+', '-', ' ', '*'), digits(2, 25), fc.option(fc.tuple(fc.constantFrom(':', ''), digits(2, 61)))).map(([s, h, m]) => `${s}${h}${m ? m[0] + m[1] : ''}`))),
      ),
    ),
  )
  .map(([y, m, d, t]) => {
    let text = `${y}-${m}-${d}`;
    if (t) {
      const [sep, hh, mm, sec, offset] = t;
      text += `${sep}${hh}:${mm}`;
      if (sec) text += `:${sec[0]}${sec[1] ?? ''}`;
      if (offset) text += offset;
    }
    return text;
  });

describe('the iso-date-or-date-time pattern', () => {
  test('agrees with the parser on generated dates and date-times', () => {
    fc.assert(fc.property(fc.oneof(shaped, fc.string({ maxLength: 40 })), (text) => {
      expect(pattern.test(text)).toBe(isIsoDateOrDateTime(text));
    }), { numRuns: 20_000 });
  });

  test.each([
    ['2024-02-29', true], ['2023-02-29', false], ['1900-02-29', false], ['2000-02-29', true], ['0000-01-01', false],
    ['2026-04-31', false], ['2026-01-15T18:30', true], ['2026-01-15T24:00', false], ['2026-01-15T18:30:00.123456789+02', true],
    ['2026-01-15T18:30:00 02:00', true], ['2026-01-15T18:30:00+24:00', false], ['2026-01-15T18:30:60Z', false],
  ])('%s -> %s', (text, accepted) => {
    expect(pattern.test(text)).toBe(accepted);
    expect(isIsoDateOrDateTime(text)).toBe(accepted);
  });
});
