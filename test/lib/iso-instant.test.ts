import fc from 'fast-check';
import { expect, test } from 'vitest';
import { isoInstant } from '../../src/lib/iso/datetimes.ts';

// isoInstant replaces Date#toISOString on the answers that list many stored times (closed orders):
// it must write exactly what toISOString writes, for every instant a Date can hold.

test('isoInstant writes what toISOString writes, for any instant (20,000 dates across the whole Date range)', () => {
  fc.assert(
    fc.property(fc.date({ noInvalidDate: true }), (at) => {
      expect(isoInstant(at)).toBe(at.toISOString());
    }),
    { numRuns: 20_000 },
  );
});

test('isoInstant writes the edges: years 0 to 999 padded to four digits, 9999, and signed years beyond', () => {
  for (const text of ['0000-01-01T00:00:00.000Z', '0999-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z', '-000001-06-15T12:00:00.000Z']) {
    expect(isoInstant(new Date(text))).toBe(text);
  }
  expect(() => isoInstant(new Date(Number.NaN))).toThrow(RangeError);
});
