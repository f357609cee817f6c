// ISO 4217 active currency codes and their minor-unit exponent (how many decimals the currency has).
//
// The table follows ISO 4217 List One as amended up to 2026. Left out on purpose:
// - codes with no minor unit defined ("N.A."): precious metals XAU XAG XPT XPD, the bond-market units
//   XBA..XBD, XDR, XSU, XUA, the testing code XTS and XXX ("no currency"). Money in them cannot be held
//   as integer minor units, and no venue bills in them;
// - withdrawn codes: HRK (2023, euro), ZWL (2024, replaced by ZWG), CUC (2025), ANG (2025, replaced by
//   XCG) and BGN (2026, euro). A venue in those countries bills in the successor currency.
//
// Most currencies have 2 decimals, so the table lists the exceptions by exponent and derives the rest:
// the unusual ones are then easy to review against the standard.

const EXPONENT_0 = [
  'BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV',
  'XAF', 'XOF', 'XPF',
] as const;

const EXPONENT_3 = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'] as const;

const EXPONENT_4 = ['CLF', 'UYW'] as const;

const EXPONENT_2 = [
  'AED', 'AFN', 'ALL', 'AMD', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BMD', 'BND',
  'BOB', 'BOV', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHE', 'CHF', 'CHW', 'CNY',
  'COP', 'COU', 'CRC', 'CUP', 'CVE', 'CZK', 'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD',
  'FKP', 'GBP', 'GEL', 'GHS', 'GIP', 'GMD', 'GTQ', 'GYD', 'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS',
  'INR', 'IRR', 'JMD', 'KES', 'KGS', 'KHR', 'KPW', 'KYD', 'KZT', 'LAK', 'LBP', 'LKR', 'LRD', 'LSL',
  'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN', 'MXV', 'MYR',
  'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'QAR',
  'RON', 'RSD', 'RUB', 'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLE', 'SLL', 'SOS', 'SRD',
  'SSP', 'STN', 'SVC', 'SYP', 'SZL', 'THB', 'TJS', 'TMT', 'TOP', 'TRY', 'TTD', 'TWD', 'TZS', 'UAH',
  'USD', 'USN', 'UYU', 'UZS', 'VED', 'VES', 'WST', 'XAD', 'XCD', 'XCG', 'YER', 'ZAR', 'ZMW', 'ZWG',
] as const;

const EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...EXPONENT_0.map((code) => [code, 0] as const),
  ...EXPONENT_2.map((code) => [code, 2] as const),
  ...EXPONENT_3.map((code) => [code, 3] as const),
  ...EXPONENT_4.map((code) => [code, 4] as const),
]);

/** Every active code, sorted. */
export const CURRENCY_CODES: readonly string[] = [...EXPONENTS.keys()].sort();

/** True for an active ISO 4217 code written exactly as the standard does (three uppercase letters). */
export function isCurrencyCode(code: string): boolean {
  return EXPONENTS.has(code);
}

/** Decimals of the currency's minor unit (EUR 2, JPY 0, KWD 3). Throws on a code not in the table. */
export function currencyExponent(code: string): number {
  const exponent = EXPONENTS.get(code);
  if (exponent === undefined) throw new RangeError(`unknown ISO 4217 currency code: ${JSON.stringify(code)}`);
  return exponent;
}
