// The kit's exact decimal arithmetic (used by check-total and the payment amounts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as D from '../../src/pos/check/decimal.ts';

describe('decimal', () => {
  it('(spec 2.7) Σ price × quantity is exact: 0.1 × 3 equals 0.3 where the float sum does not', () => {
    const total = D.sum([D.times(D.toDec(0.1), 1), D.times(D.toDec(0.1), 1), D.times(D.toDec(0.1), 1)]);
    expect(D.equal(total, D.toDec(0.3))).toBe(true);
    expect(0.1 + 0.1 + 0.1).not.toBe(0.3);
    expect(D.equal(total, D.toDec(0.30000000000000004))).toBe(false);
  });

  it('(spec 2.7) sums of cent amounts agree with integer-cent arithmetic, and format round-trips', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 50 }))), (lines) => {
      const dec = D.sum(lines.map(([cents, q]) => D.times(D.toDec(cents / 100), q)));
      const cents = lines.reduce((s, [c, q]) => s + c * q, 0);
      expect(D.equal(dec, D.toDec(cents / 100))).toBe(true);
      expect(D.toNumber(dec)).toBe(cents / 100);
    }));
  });

  it('(DESIGN 6.2) halfUp is at least half and twice it covers the whole; exponent forms parse', () => {
    fc.assert(fc.property(fc.integer({ min: 2, max: 1_000_000 }), (units) => {
      const d = { units: BigInt(units), scale: 2 };
      const half = D.halfUp(d);
      expect(half.units * 2n >= d.units).toBe(true);
      expect(half.units < d.units).toBe(true);
    }));
    expect(D.format(D.toDec(1e-7))).toBe('0.0000001');
    expect(D.format(D.toDec(1.5e21))).toBe('1500000000000000000000');
    expect(D.format(D.sub(D.toDec(1), D.toDec(2.25)))).toBe('-1.25');
  });
});
