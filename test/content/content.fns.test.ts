import { describe, expect, it, test } from 'vitest';
import { ProblemList } from '../../src/lib/errors.ts';
import { splitVenueIds } from '../../src/content/content.fns.ts';
import { checkTranslations, localize, mergeTranslations } from '../../src/content/translations.fns.ts';
import { bookableAreasOf, checkCoordinates, checkCovers, feeAmount } from '../../src/content/venues.fns.ts';

describe('translations (pure)', () => {
  test.each([
    [{}, [{ locale: 'fr', data: [{ field: 'a', content: 'A' }] }], { fr: { a: 'A' } }],
    [{ fr: { a: 'A', b: 'B' } }, [{ locale: 'fr', data: [{ field: 'a', content: 'AA' }] }], { fr: { a: 'AA', b: 'B' } }],
    [{ fr: { a: 'A', b: 'B' } }, [{ locale: 'fr', data: [{ field: 'a', content: null }] }], { fr: { b: 'B' } }],
    [{ fr: { a: 'A' }, es: { a: 'E' } }, [{ locale: 'fr', data: [{ field: 'a', content: '' }] }], { es: { a: 'E' } }],
    [{ fr: { a: 'A' } }, [{ locale: 'fr', data: [] }], { fr: { a: 'A' } }],
    [{ fr: { a: 'A' } }, undefined, { fr: { a: 'A' } }],
  ])('[RMS-54] merge %j with %j → %j', (current, input, expected) => {
    expect(mergeTranslations(current as any, input as any)).toEqual(expected);
  });

  it('[VER-02] [VER-03] localize: base without a locale, translation where there is one, base for the other fields', () => {
    const base = { a: 'A', b: 'B', c: 'C' };
    const t = { fr: { a: 'fa', c: 'fc' } };
    expect(localize(base, t, undefined, ['a', 'b'])).toEqual(base);
    expect(localize(base, t, 'fr', ['a', 'b'])).toEqual({ a: 'fa', b: 'B', c: 'C' });
    expect(localize(base, t, 'de', ['a', 'b'])).toEqual(base);
    expect(localize(base, {}, 'fr', ['a'])).toEqual(base);
  });

  it('[RMS-55] duplicate locales and duplicate fields within a locale are reported by position', () => {
    const problems = new ProblemList();
    checkTranslations(
      [
        { locale: 'fr', data: [{ field: 'a', content: '1' }, { field: 'a', content: '2' }] },
        { locale: 'fr', data: [] },
      ],
      problems,
    );
    expect(Object.keys(problems.toJSON())).toEqual(['translations[0].data[1].field', 'translations[1].locale']);
  });
});

describe('venue write rules (pure)', () => {
  it('[DES-130] bookableAreas accepts a boolean or either string', () => {
    expect([true, 'true', false, 'false'].map((v) => bookableAreasOf(v as any))).toEqual([true, true, false, false]);
  });

  it('minCovers <= maxCovers names both fields; no maximum is fine', () => {
    const p = new ProblemList();
    checkCovers(3, 2, p);
    expect(Object.keys(p.toJSON())).toEqual(['minCovers', 'maxCovers']);
    const ok = new ProblemList();
    checkCovers(3, null, ok);
    checkCovers(3, 3, ok);
    expect(ok.empty).toBe(true);
  });

  it('coordinates come in pairs', () => {
    const p = new ProblemList();
    checkCoordinates(1, null, p);
    expect(Object.keys(p.toJSON())).toEqual(['longitude']);
    const ok = new ProblemList();
    checkCoordinates(null, null, ok);
    checkCoordinates(0, 0, ok);
    expect(ok.empty).toBe(true);
  });

  test.each([
    [{ given: 10.5, currency: 'EUR' }, 1050, null],
    [{ given: 0.1, currency: 'EUR' }, 10, null],
    [{ given: 1000, currency: 'JPY' }, 1000, null],
    [{ given: 10.5, currency: 'JPY' }, 0, /whole number/],
    [{ given: 1.2345, currency: 'KWD' }, 0, /3 decimal/],
    [{ given: undefined, stored: 1050, storedCurrency: 'EUR', currency: 'USD' }, 1050, null],
    [{ given: undefined, stored: 1000, storedCurrency: 'EUR', currency: 'JPY' }, 10, null],
    [{ given: undefined, stored: 1050, storedCurrency: 'EUR', currency: 'JPY' }, 0, /cannot be expressed in JPY/],
    [{ given: undefined, stored: 500, storedCurrency: 'JPY', currency: 'KWD' }, 500_000, null],
    [{ given: undefined, stored: undefined, storedCurrency: undefined, currency: 'EUR' }, 0, null],
  ])('[RMS-44] fee amount %j → %d minor units', (opts, minor, problem) => {
    const problems = new ProblemList();
    const result = feeAmount({ field: 'f', stored: undefined, storedCurrency: undefined, ...opts, problems } as any);
    if (problem) expect(problems.toJSON().f[0]).toMatch(problem);
    else {
      expect(problems.empty).toBe(true);
      expect(result).toBe(minor);
    }
  });
});

describe('link bodies (pure)', () => {
  const A = '0198a5c4-1111-7222-8333-444455556666';
  const B = '0198a5c4-1111-7222-8333-444455556667';
  it('[DES-034] ids not owned are refused by position; owned ones answered once, in order, lower-cased', () => {
    expect(splitVenueIds([A, B.toUpperCase(), A], new Set([A, B]))).toEqual({ distinct: [A, B], refused: {} });
    expect(splitVenueIds([A, 'x', B], new Set([A]))).toEqual({
      distinct: [A],
      refused: { 'venues[1]': ['is not one of your venues'], 'venues[2]': ['is not one of your venues'] },
    });
  });
});

describe('list totals cache (pure)', () => {
  it('[RMS-02] a total is used only under the version it was counted at; least recently used entries go first', async () => {
    const { VersionedCache } = await import('../../src/content/venues.fns.ts');
    const cache = new VersionedCache<number>(2);
    const a = VersionedCache.key('p', { city: 'x', criteria: undefined });
    expect(a).toBe(VersionedCache.key('p', { criteria: undefined, city: 'x' }));
    expect(a).not.toBe(VersionedCache.key('q', { city: 'x' }));
    cache.set(a, 3, 10);
    expect(cache.get(a, 3)).toBe(10);
    expect(cache.get(a, 4)).toBeUndefined();
    cache.set('b', 1, 1);
    cache.get(a, 3); // a is now the most recently used
    cache.set('c', 1, 1);
    expect(cache.size).toBe(2);
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get(a, 3)).toBe(10);
  });
});
