import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasNul, nulFields } from '../../src/server/input-guards.ts';

// The NUL guard's quick check (issue 28): it walks what nulFields walks, only without writing paths.

describe('the NUL guard', () => {
  it('hasNul says whether nulFields names anything, for any parsed value (strings, keys, nesting past the depth limit)', () => {
    const text = fc.oneof(fc.string(), fc.constantFrom('\u0000', 'a\u0000b', ''), fc.string().map((s) => `${s}\u0000`));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(text, tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(fc.property(value, (v) => {
      expect(hasNul(v)).toBe(nulFields(v).length > 0);
    }), { numRuns: 3000 });
    // Past 64 levels neither looks.
    for (let levels = 60; levels <= 70; levels++) {
      let deep: unknown = '\u0000';
      for (let i = 0; i < levels; i++) deep = i % 2 ? { k: deep } : [deep];
      expect(hasNul(deep), `${levels} levels`).toBe(nulFields(deep).length > 0);
      expect(hasNul(deep), `${levels} levels`).toBe(levels <= 64);
    }
    expect(hasNul({ ['a\u0000']: 1 })).toBe(true);
    expect(hasNul(['x', ['y', 'z\u0000']])).toBe(true);
  });
});
