// Money inside the simulator is integer minor units of the venue's currency (ISO 4217 exponent),
// so a check total is an exact integer sum; JSON numbers appear only at the edge.
// The simulator is a fake of an outside system and does not import the service's src/lib/money.ts.

// Currencies whose exponent is not 2. Everything else (EUR, USD, GBP, …) uses 2.
const EXPONENTS: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0,
  UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
};

export function currencyExponent(currency: string): number {
  return EXPONENTS[currency.toUpperCase()] ?? 2;
}

/**
 * JSON number -> minor units, or null when the number has more decimals than the currency allows
 * (or is not finite). Dividing back and comparing is exact: both sides are the double nearest to the
 * same decimal, so 19.99 passes and 19.999 does not.
 */
export function toMinor(amount: number, currency: string): number | null {
  if (!Number.isFinite(amount)) return null;
  const scale = 10 ** currencyExponent(currency);
  const minor = Math.round(amount * scale);
  if (!Number.isSafeInteger(minor) || minor / scale !== amount) return null;
  return minor;
}

/** Minor units -> the JSON number a client sees (shortest decimal representation). */
export function fromMinor(minor: number, currency: string): number {
  return minor / 10 ** currencyExponent(currency);
}
