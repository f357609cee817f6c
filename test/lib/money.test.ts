import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { currencyExponent, CURRENCY_CODES } from '../../src/lib/iso/currencies.ts';
import { MAX_MINOR, mulQuantity, parseAmount, sumMinor, toDecimalString, toWire } from '../../src/lib/money.ts';

const anyCurrency = fc.constantFrom(...CURRENCY_CODES);
const anyMinor = fc.integer({ min: -MAX_MINOR, max: MAX_MINOR });

// An oracle independent of money.ts: decimal strings added as scaled BigInts, formatted back by hand.
function addDecimalStrings(values: string[], exponent: number): string {
  const scaled = values.map((value) => {
    const [whole, fraction = ''] = value.replace('-', '').split('.');
    const units = BigInt(whole + fraction.padEnd(exponent, '0'));
    return value.startsWith('-') ? -units : units;
  });
  const total = scaled.reduce((a, b) => a + b, 0n);
  const digits = (total < 0n ? -total : total).toString().padStart(exponent + 1, '0');
  const sign = total < 0n ? '-' : '';
  return exponent === 0 ? sign + digits : `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

describe('parseAmount', () => {
  test.each([
    ['a JSON number with fewer decimals than allowed', 10.5, 'EUR', 1050],
    ['a JSON number with exactly the allowed decimals', 12.34, 'EUR', 1234],
    ['0.1 as exactly 10 cents', 0.1, 'EUR', 10],
    ['a decimal string', '12.50', 'EUR', 1250],
    ['a string with trailing zeros beyond the exponent', '10.500', 'EUR', 1050],
    ['a whole yen amount', 100, 'JPY', 100],
    ['a negative amount', -5.25, 'EUR', -525],
    ['negative zero as plain zero', '-0.00', 'EUR', 0],
    ['a 4-decimal CLF amount', 0.0001, 'CLF', 1],
    ['the largest amount', 9999999999999.99, 'EUR', MAX_MINOR],
  ])('accepts %s', (_name, value, currency, minor) => {
    expect(parseAmount(value, currency)).toEqual({ ok: true, minor });
  });

  test('[DES-040] parseAmount keeps 1.234 KWD exact as 1234 fils', () => {
    expect(parseAmount(1.234, 'KWD')).toEqual({ ok: true, minor: 1234 });
    expect(parseAmount('1.234', 'KWD')).toEqual({ ok: true, minor: 1234 });
    expect(toWire(1234, 'KWD')).toBe(1.234);
  });

  test.each([
    [10.005, 'EUR', 'must have at most 2 decimal places for EUR'],
    ['10.005', 'EUR', 'must have at most 2 decimal places for EUR'],
    [100.5, 'JPY', 'must be a whole number for JPY, which has no decimal places'],
    [1.2345, 'KWD', 'must have at most 3 decimal places for KWD'],
    [1e-7, 'CLF', 'must have at most 4 decimal places for CLF'],
  ])('[DES-039] parseAmount rejects %s %s, never rounding it', (value, currency, problem) => {
    expect(parseAmount(value, currency)).toEqual({ ok: false, problem });
  });

  test.each([
    ['NaN', Number.NaN, 'must be a finite number'],
    ['Infinity', Number.POSITIVE_INFINITY, 'must be a finite number'],
    ['a number past the largest amount', 10000000000000, 'is too large'],
    ['1e21 (exponent form)', 1e21, 'is too large'],
    ['a string past the largest amount', '99999999999999999999.5', 'is too large'],
    ['null', null, 'must be a number'],
    ['a boolean', true, 'must be a number'],
    ['an object', { amount: 1 }, 'must be a number'],
    ['an empty string', '', 'must be a decimal number such as 12.50'],
    ['a string with spaces', ' 1.00', 'must be a decimal number such as 12.50'],
    ['a string in exponent form', '1e3', 'must be a decimal number such as 12.50'],
    ['a string without a whole part', '.5', 'must be a decimal number such as 12.50'],
    ['a string with a plus sign', '+1', 'must be a decimal number such as 12.50'],
    ['a comma decimal', '1,50', 'must be a decimal number such as 12.50'],
  ])('rejects %s', (_name, value, problem) => {
    expect(parseAmount(value, 'EUR')).toEqual({ ok: false, problem });
  });

  test('expands the exponent forms String() gives very small and very large numbers', () => {
    expect(parseAmount(1e-7, 'EUR').ok).toBe(false);
    expect(parseAmount(1e14, 'JPY')).toEqual({ ok: true, minor: 100000000000000 });
    expect(parseAmount(1.5e-3, 'KWD')).toEqual({ ok: false, problem: 'must have at most 3 decimal places for KWD' });
  });

  test('throws on a currency outside the table (a programming error, not bad input)', () => {
    expect(() => parseAmount(1, 'XAU')).toThrow(RangeError);
  });

  test('[DES-039] parseAmount rejects any value with one more decimal than the currency allows', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
        anyCurrency,
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        (minor, currency, digit, asNumber) => {
          const base = toDecimalString(minor, currency);
          const text = `${base}${currencyExponent(currency) === 0 ? '.' : ''}${digit}`;
          const result = parseAmount(asNumber ? Number(text) : text, currency);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.problem).toContain(currency);
        },
      ),
    );
  });
});

describe('toWire and toDecimalString', () => {
  test.each([
    [1050, 'EUR', 10.5, '10.50'],
    [1, 'EUR', 0.01, '0.01'],
    [-1, 'BHD', -0.001, '-0.001'],
    [1234, 'KWD', 1.234, '1.234'],
    [100, 'JPY', 100, '100'],
    [12345, 'CLF', 1.2345, '1.2345'],
    [0, 'EUR', 0, '0.00'],
    [MAX_MINOR, 'EUR', 9999999999999.99, '9999999999999.99'],
  ])('[DES-038] toWire(%s, %s) is the JSON number %s ("%s")', (minor, currency, wire, text) => {
    expect(toWire(minor, currency)).toBe(wire);
    expect(toDecimalString(minor, currency)).toBe(text);
    expect(JSON.stringify({ amount: toWire(minor, currency) })).toBe(`{"amount":${Number(text)}}`);
  });

  test('refuses a non-integer or an amount past the largest', () => {
    expect(() => toWire(10.5, 'EUR')).toThrow(RangeError);
    expect(() => toDecimalString(MAX_MINOR + 1, 'EUR')).toThrow(RangeError);
  });

  test('[DES-038] toWire round-trips through JSON and parseAmount for every currency', () => {
    fc.assert(
      fc.property(anyMinor, anyCurrency, (minor, currency) => {
        const wire = JSON.parse(JSON.stringify(toWire(minor, currency))) as number;
        expect(parseAmount(wire, currency)).toEqual({ ok: true, minor });
        expect(parseAmount(toDecimalString(minor, currency), currency)).toEqual({ ok: true, minor });
      }),
      { numRuns: 2000 },
    );
  });

  test('[DES-038] toDecimalString always has exactly the currency exponent of decimals', () => {
    fc.assert(
      fc.property(anyMinor, anyCurrency, (minor, currency) => {
        const exponent = currencyExponent(currency);
        const fraction = toDecimalString(minor, currency).split('.')[1];
        expect(fraction?.length ?? 0).toBe(exponent);
      }),
    );
  });
});

describe('sums and products', () => {
  test('[DES-041] sumMinor of 0.10, 0.20 and 0.30 EUR is exactly 0.60', () => {
    const parts = [0.1, 0.2, 0.3].map((value) => parseAmount(value, 'EUR'));
    const minors = parts.map((part) => (part.ok ? part.minor : Number.NaN));
    expect(sumMinor(minors)).toBe(60);
    expect(toWire(sumMinor(minors), 'EUR')).toBe(0.6);
    expect(0.1 + 0.2 + 0.3).not.toBe(0.6); // the float sum the module avoids
  });

  test('[DES-041] sumMinor of parsed amounts equals the parse of the decimal sum', () => {
    fc.assert(
      fc.property(
        anyCurrency,
        fc.array(fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }), { maxLength: 20 }),
        (currency, seeds) => {
          const exponent = currencyExponent(currency);
          const texts = seeds.map((seed) => toDecimalString(seed, currency));
          const parsed = texts.map((text) => {
            const result = parseAmount(Number(text), currency);
            if (!result.ok) throw new Error(result.problem);
            return result.minor;
          });
          expect(parseAmount(addDecimalStrings(texts, exponent), currency)).toEqual({ ok: true, minor: sumMinor(parsed) });
        },
      ),
    );
  });

  test('sumMinor refuses to pass the largest amount or add a fraction', () => {
    expect(sumMinor([])).toBe(0);
    expect(() => sumMinor([MAX_MINOR, 1])).toThrow(RangeError);
    expect(() => sumMinor([1, 0.5])).toThrow(RangeError);
  });

  test.each([
    [250, 3, 750],
    [250, 0, 0],
    [-250, 2, -500],
    [333_333_333_333_333, 3, 999_999_999_999_999],
  ])('mulQuantity(%s, %s) = %s', (unit, quantity, product) => {
    expect(mulQuantity(unit, quantity)).toBe(product);
  });

  test('mulQuantity refuses a fractional quantity or a product past the largest amount', () => {
    expect(() => mulQuantity(250, 1.5)).toThrow(RangeError);
    expect(() => mulQuantity(333_333_333_333_334, 3)).toThrow(RangeError);
    expect(() => mulQuantity(MAX_MINOR, Number.MAX_SAFE_INTEGER)).toThrow(RangeError);
  });
});
