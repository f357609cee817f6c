import { describe, expect, it } from 'vitest';
import { coalesced } from '../../src/lib/coalesced.ts';

describe('coalesced', () => {
  it('calls made in one turn of the event loop are one call of run, each caller getting its own result; the next turn is another call', async () => {
    const calls: number[][] = [];
    const double = coalesced(async (xs: number[]) => {
      calls.push(xs);
      return xs.map((x) => x * 2);
    });
    expect(await Promise.all([double(1), double(2), double(3)])).toEqual([2, 4, 6]);
    expect(await double(4)).toBe(8);
    expect(calls).toEqual([[1, 2, 3], [4]]);
  });

  it('a failed call fails every caller of its batch, and only them; a full batch goes at once', async () => {
    const calls: number[][] = [];
    const f = coalesced(async (xs: number[]) => {
      calls.push(xs);
      if (xs.includes(0)) throw new Error('zero');
      return xs;
    }, 2);
    const results = await Promise.allSettled([f(0), f(1), f(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(calls).toEqual([[0, 1], [2]]);
  });
});
