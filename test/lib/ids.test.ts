import { expect, it } from 'vitest';
import { isUuid, uuidv7 } from '../../src/lib/ids.ts';

// uuidv7 draws its random bits from a pool refilled every 256 ids: across several refills every id
// is distinct, well formed (version 7, RFC 9562 variant) and carries its millisecond in the first 48 bits.

it('uuidv7 gives distinct version-7 ids across pool refills, each ordered by its time', () => {
  const at = Date.UTC(2026, 10, 26, 12, 0, 0, 123);
  const ids = Array.from({ length: 2000 }, (_, i) => uuidv7(at + i));
  expect(new Set(ids).size).toBe(ids.length);
  for (const [i, id] of ids.entries()) {
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at + i);
  }
  expect([...ids].sort()).toEqual(ids);
  // Two ids of one millisecond still differ in their random bits.
  expect(uuidv7(at)).not.toBe(uuidv7(at));
});
