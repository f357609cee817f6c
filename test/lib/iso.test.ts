import { describe, expect, test } from 'vitest';
import { CURRENCY_CODES, currencyExponent, isCurrencyCode } from '../../src/lib/iso/currencies.ts';
import { COUNTRY_CODES, isCountryCode } from '../../src/lib/iso/countries.ts';
import { isLanguageCode, LANGUAGE_CODES } from '../../src/lib/iso/languages.ts';

function expectSortedUnique(codes: readonly string[], shape: RegExp): void {
  expect([...codes].sort()).toEqual(codes);
  expect(new Set(codes).size).toBe(codes.length);
  for (const code of codes) expect(code).toMatch(shape);
}

describe('ISO 4217 currencies', () => {
  test.each([
    ['JPY', 0], ['ISK', 0], ['KRW', 0], ['VND', 0], ['XAF', 0], ['XOF', 0], ['XPF', 0], ['CLP', 0],
    ['EUR', 2], ['USD', 2], ['GBP', 2], ['CHF', 2], ['MXN', 2], ['XCG', 2], ['ZWG', 2],
    ['KWD', 3], ['BHD', 3], ['IQD', 3], ['JOD', 3], ['LYD', 3], ['OMR', 3], ['TND', 3],
    ['CLF', 4], ['UYW', 4],
  ])('[DES-038] currencyExponent: %s has %i minor-unit decimals', (code, exponent) => {
    expect(isCurrencyCode(code)).toBe(true);
    expect(currencyExponent(code)).toBe(exponent);
  });

  test.each(['XAU', 'XAG', 'XPT', 'XPD', 'XDR', 'XTS', 'XXX', 'XBA', 'XBD', 'XSU', 'XUA'])(
    'leaves out %s, which has no minor unit',
    (code) => {
      expect(isCurrencyCode(code)).toBe(false);
      expect(() => currencyExponent(code)).toThrow(RangeError);
    },
  );

  test.each(['eur', 'Eur', 'EURO', 'EU', '', ' EUR', 'HRK', 'ZWL', 'ABC'])('rejects %j', (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });

  test('lists 166 active codes, sorted and unique', () => {
    expect(CURRENCY_CODES).toHaveLength(166);
    expectSortedUnique(CURRENCY_CODES, /^[A-Z]{3}$/);
  });
});

describe('ISO 3166-1 countries', () => {
  test.each(['ES', 'US', 'GB', 'DE', 'JP', 'KW', 'AX', 'BQ', 'SS', 'SX'])('accepts %s', (code) => {
    expect(isCountryCode(code)).toBe(true);
  });

  test.each(['es', 'Es', 'UK', 'EU', 'XK', 'ZZ', 'ESP', '', 'AN'])('rejects %j', (code) => {
    expect(isCountryCode(code)).toBe(false);
  });

  test('lists the 249 assigned codes, sorted and unique', () => {
    expect(COUNTRY_CODES).toHaveLength(249);
    expectSortedUnique(COUNTRY_CODES, /^[A-Z]{2}$/);
  });
});

describe('ISO 639-1 languages', () => {
  test.each(['es', 'en', 'ca', 'eu', 'gl', 'pt', 'zh', 'ar', 'nb', 'he'])('accepts %s', (code) => {
    expect(isLanguageCode(code)).toBe(true);
  });

  test.each(['ES', 'En', 'bh', 'sh', 'iw', 'xx', 'eng', '', 'es-ES'])('rejects %j', (code) => {
    expect(isLanguageCode(code)).toBe(false);
  });

  test('lists the 183 codes in force, sorted and unique', () => {
    expect(LANGUAGE_CODES).toHaveLength(183);
    expectSortedUnique(LANGUAGE_CODES, /^[a-z]{2}$/);
  });
});
