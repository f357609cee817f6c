import type { ProblemList } from '../lib/errors.ts';
import { parseAmount, toDecimalString, type Minor } from '../lib/money.ts';

// Pure rules of a venue write, tested without a database.

/** bookableAreas on a write: a boolean or the string "true"/"false" (DESIGN 9). */
export function bookableAreasOf(value: boolean | 'true' | 'false'): boolean {
  return value === true || value === 'true';
}

/**
 * A deposit or no-show fee amount in the venue currency, as minor units. A given amount is read in
 * `currency` (more decimals than it has are refused). An amount not given is kept; if the currency
 * changes, the stored amount must be expressible in the new one, else the caller has to send it.
 */
export function feeAmount(opts: {
  field: string;
  given: number | undefined;
  stored: Minor | undefined;
  storedCurrency: string | undefined;
  currency: string;
  problems: ProblemList;
}): Minor {
  const { field, given, stored, storedCurrency, currency, problems } = opts;
  if (given !== undefined) {
    const parsed = parseAmount(given, currency);
    if (!parsed.ok) problems.add(field, parsed.problem);
    else if (parsed.minor < 0) problems.add(field, 'must be at least 0');
    else return parsed.minor;
    return 0;
  }
  if (stored === undefined || storedCurrency === undefined) return 0;
  if (storedCurrency === currency || stored === 0) return stored;
  const text = toDecimalString(stored, storedCurrency);
  const parsed = parseAmount(text, currency);
  if (!parsed.ok) {
    problems.add(field, `the current amount ${text} ${storedCurrency} cannot be expressed in ${currency} (${parsed.problem}); send it with the new currency`);
    return 0;
  }
  return parsed.minor;
}

/** minCovers <= maxCovers (when a maximum is set), naming both fields. */
export function checkCovers(minCovers: number, maxCovers: number | null, problems: ProblemList): void {
  if (maxCovers !== null && minCovers > maxCovers) {
    problems.add('minCovers', `must not be greater than maxCovers (${maxCovers})`);
    problems.add('maxCovers', `must not be less than minCovers (${minCovers})`);
  }
}

/** Coordinates come as a pair: both set or both null. */
export function checkCoordinates(latitude: number | null, longitude: number | null, problems: ProblemList): void {
  if ((latitude === null) !== (longitude === null)) {
    const missing = latitude === null ? 'latitude' : 'longitude';
    const other = latitude === null ? 'longitude' : 'latitude';
    problems.add(missing, `is required when ${other} is set (coordinates are a pair)`);
  }
}

/**
 * What a list query computed (its total, its page's ids), by (partner, filters[, page]), valid for
 * one list version of the partner. A value computed after reading version V reflects V or later,
 * and any change to the partner's venues or their channel links moves the version on, so an entry
 * is used only while the data it was computed from is current. Least recently used entries are dropped.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, { version: number; value: T }>();

  constructor(private readonly capacity = 5000) {}

  static key(partnerId: string, filters: object): string {
    return `${partnerId} ${JSON.stringify(filters, Object.keys(filters).sort())}`;
  }

  get(key: string, version: number): T | undefined {
    const hit = this.entries.get(key);
    if (!hit || hit.version !== version) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  /** The entry whatever its version (the caller checks the version in its own statement). */
  peek(key: string): { version: number; value: T } | undefined {
    return this.entries.get(key);
  }

  set(key: string, version: number, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { version, value });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
