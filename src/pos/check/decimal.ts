// Exact decimal arithmetic on JSON numbers, so "totalAmount equals Σ price × quantity" is checked to
// the last digit the POS sent, never through floating-point sums. A value is units × 10^-scale.

export interface Dec { units: bigint; scale: number }

/** The number as the decimal its shortest representation spells (19.99 -> 1999 × 10^-2). */
export function toDec(n: number): Dec {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(n));
  if (!m) throw new Error(`unexpected number form: ${n}`);
  const [, sign, int, frac = '', exp = '0'] = m;
  let units = BigInt(`${sign}${int}${frac}`);
  let scale = frac.length - Number(exp);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units, scale };
}

function rescale(d: Dec, scale: number): bigint {
  return d.units * 10n ** BigInt(scale - d.scale);
}

export function add(a: Dec, b: Dec): Dec {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function sub(a: Dec, b: Dec): Dec {
  return add(a, { units: -b.units, scale: b.scale });
}

export function times(a: Dec, k: number): Dec {
  return { units: a.units * BigInt(k), scale: a.scale };
}

export function equal(a: Dec, b: Dec): boolean {
  const scale = Math.max(a.scale, b.scale);
  return rescale(a, scale) === rescale(b, scale);
}

export const ZERO: Dec = { units: 0n, scale: 0 };

export function sum(values: Dec[]): Dec {
  return values.reduce(add, ZERO);
}

/** Plain decimal text, e.g. "42.80" stays "42.8" (trailing zeros dropped). */
export function format(d: Dec): string {
  const neg = d.units < 0n;
  const digits = (neg ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const int = digits.slice(0, digits.length - d.scale);
  const frac = digits.slice(digits.length - d.scale).replace(/0+$/, '');
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

export function toNumber(d: Dec): number {
  return Number(format(d));
}

/** Half of d rounded up at d's own scale (so twice it is at least d). */
export function halfUp(d: Dec): Dec {
  return { units: (d.units + 1n) / 2n, scale: d.scale };
}
