// Money is held as an integer count of the currency's minor unit (cents for EUR, yen for JPY, fils for
// KWD) and only becomes a decimal at the edge. Conversions go through decimal strings, never through
// floating-point multiplication or division, so 0.1 EUR is exactly 10 cents and sums never drift.
import { currencyExponent } from './iso/currencies.ts';

/** An integer number of minor units (1050 EUR = 10.50 EUR). */
export type Minor = number;

/**
 * The largest magnitude of money, in minor units: 15 digits. On the wire money is a JSON number, a
 * double, which carries any decimal of up to 15 significant digits exactly; beyond that (even within
 * safe integers) 90071992547409.91 would come back as 90071992547409.9. Keeping every amount inside
 * this bound keeps every amount exact end to end; it is 10 trillion in a 2-decimal currency.
 */
export const MAX_MINOR: Minor = 999_999_999_999_999;

export type ParsedAmount = { ok: true; minor: Minor } | { ok: false; problem: string };

// A plain decimal as written in a request body string: "12", "12.5", "-0.75". No exponent, no "+",
// no ".5": a string amount is a convenience, and anything odd is safer refused than guessed at.
const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

// What String(n) produces for a finite number: "12.5", "1e-7", "1.5e+21".
const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * Reads an amount in `currency` (an ISO 4217 code from the table; an unknown one throws, as it is a
 * programming error: callers pass the venue's stored currency). Accepts a JSON number or a decimal
 * string. A number is read through its shortest round-trip decimal (String(n)), which is what the
 * client wrote: 0.1 is "0.1", so exactly 10 cents. More decimals than the currency has is refused,
 * never rounded; trailing zeros do not count (10.500 EUR is 10.50).
 */
export function parseAmount(value: unknown, currency: string): ParsedAmount {
  const exponent = currencyExponent(currency);
  let parts: DecimalParts;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, problem: 'must be a finite number' };
    parts = numberParts(value);
  } else if (typeof value === 'string') {
    const match = PLAIN_DECIMAL.exec(value);
    if (!match) return { ok: false, problem: 'must be a decimal number such as 12.50' };
    parts = { negative: match[1] === '-', whole: match[2], fraction: match[3] ?? '' };
  } else {
    return { ok: false, problem: 'must be a number' };
  }

  const fraction = parts.fraction.replace(/0+$/, '');
  if (fraction.length > exponent) {
    const problem =
      exponent === 0
        ? `must be a whole number for ${currency}, which has no decimal places`
        : `must have at most ${exponent} decimal places for ${currency}`;
    return { ok: false, problem };
  }
  const digits = (parts.whole + fraction.padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
  // MAX_MINOR is all nines, so comparing digit counts is the bound check, with no rounding involved.
  if (digits.length > String(MAX_MINOR).length) return { ok: false, problem: 'is too large' };
  const magnitude = Number(digits);
  // No negative zero: "-0.00" is plain 0.
  return { ok: true, minor: parts.negative && magnitude !== 0 ? -magnitude : magnitude };
}

type DecimalParts = { negative: boolean; whole: string; fraction: string };

/** Splits a finite number's shortest decimal form into digits, expanding forms like 1e-7 and 1e21. */
function numberParts(value: number): DecimalParts {
  const match = NUMBER_TEXT.exec(String(value));
  if (!match) throw new Error(`unexpected number text: ${String(value)}`);
  const significand = match[2] + (match[3] ?? '');
  // Where the decimal point falls within the significand's digits.
  const point = match[2].length + Number(match[4] ?? '0');
  const padded = point <= 0 ? '0'.repeat(1 - point) + significand : significand.padEnd(point, '0');
  const split = Math.max(point, 1);
  return { negative: match[1] === '-', whole: padded.slice(0, split), fraction: padded.slice(split) };
}

/** `minor` as a decimal string with exactly the currency's decimals: 1050 EUR -> "10.50", 100 JPY -> "100". */
export function toDecimalString(minor: Minor, currency: string): string {
  assertMinor(minor);
  const exponent = currencyExponent(currency);
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const sign = minor < 0 ? '-' : '';
  if (exponent === 0) return sign + digits;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/**
 * `minor` as the JSON number sent on the wire: 1050 EUR -> 10.5, 1234 KWD -> 1.234, 100 JPY -> 100.
 * Built by Number() of the exact decimal string, so the double is the one nearest the decimal and
 * JSON.stringify prints the decimal back (a division by 100 could land on a neighbouring double).
 */
export function toWire(minor: Minor, currency: string): number {
  return Number(toDecimalString(minor, currency));
}

/** Adds amounts exactly; throws RangeError past MAX_MINOR rather than lose a unit. */
export function sumMinor(values: readonly Minor[]): Minor {
  let total = 0;
  for (const value of values) {
    assertMinor(value);
    total += value;
    // Each partial sum stays within 2 x MAX_MINOR < 2^53, so this check itself is exact.
    if (Math.abs(total) > MAX_MINOR) throw new RangeError('money sum exceeds the largest amount');
  }
  return total;
}

/** A unit price times an integer quantity, exactly; throws RangeError past MAX_MINOR. */
export function mulQuantity(unitMinor: Minor, quantity: number): Minor {
  assertMinor(unitMinor);
  if (!Number.isSafeInteger(quantity)) throw new RangeError(`quantity must be an integer: ${quantity}`);
  // If the true product is within MAX_MINOR (< 2^53) the double product is exact; if it is beyond,
  // rounding cannot bring it back under, so the check on the computed value is sound.
  const product = unitMinor * quantity;
  if (Math.abs(product) > MAX_MINOR) throw new RangeError('money product exceeds the largest amount');
  return product === 0 ? 0 : product;
}

function assertMinor(minor: Minor): void {
  if (!Number.isInteger(minor) || Math.abs(minor) > MAX_MINOR) {
    throw new RangeError(`not an amount in minor units: ${minor}`);
  }
}
