import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDateTimeText } from '../../src/lib/iso/timezones.ts';
import { createOrderBody, GIVE_UP_AFTER_MS, nextAttemptAt, RETRY_EVERY_MS, retryDelayMs, unknownTables, withoutSkus, type SeatingRequest } from '../../src/pos-mirror/reservation-orders.fns.ts';

// The pure rules of seating (DESIGN 8.3c, spec 4.6), without a database.

const base: SeatingRequest = {
  orderId: '0190a0a0-0000-7000-8000-000000000001',
  tables: ['T1', 'T2'],
  partySize: 4,
  prepaymentMinor: 0,
  currency: 'EUR',
  seatedAt: new Date('2026-07-01T18:05:09.900Z'),
  timeZone: 'Europe/Madrid',
};

describe('the spec 4.6 create-order body of a seated reservation', () => {
  it('[DES-106] [BKG-25] prepayment is always there (0 when none), date is venue-local Y-m-d H:i:s, no items key without items', () => {
    expect(createOrderBody(base)).toEqual({ id: base.orderId, tables: ['T1', 'T2'], partySize: 4, prepayment: 0, date: '2026-07-01 20:05:09' });
  });

  it('[BKG-34] the prepayment is the decimal of the venue currency (EUR 1250 minor -> 12.5, JPY 1500 -> 1500, KWD 1234 -> 1.234)', () => {
    expect(createOrderBody({ ...base, prepaymentMinor: 1250 }).prepayment).toBe(12.5);
    expect(createOrderBody({ ...base, prepaymentMinor: 1500, currency: 'JPY' }).prepayment).toBe(1500);
    expect(createOrderBody({ ...base, prepaymentMinor: 1234, currency: 'KWD' }).prepayment).toBe(1.234);
  });

  it('[DES-106] items and guest fields are passed when given; tables as given (merged tables keep their order)', () => {
    const body = createOrderBody({ ...base, tables: ['B', 'A'], guestName: 'Ada', items: [{ sku: 'ESP', quantity: 2, notes: 'hot' }] });
    expect(body).toMatchObject({ tables: ['B', 'A'], guestName: 'Ada', items: [{ sku: 'ESP', quantity: 2, notes: 'hot' }] });
    expect('items' in createOrderBody({ ...base, items: [] })).toBe(false);
  });

  it('[DES-106] the date is the wall-clock time of the venue across DST and date lines', () => {
    expect(localDateTimeText(new Date('2026-03-29T00:59:59Z'), 'Europe/Madrid')).toBe('2026-03-29 01:59:59');
    expect(localDateTimeText(new Date('2026-03-29T01:00:00Z'), 'Europe/Madrid')).toBe('2026-03-29 03:00:00');
    expect(localDateTimeText(new Date('2026-01-01T10:00:00Z'), 'Pacific/Kiritimati')).toBe('2026-01-02 00:00:00');
    expect(localDateTimeText(new Date('2026-01-01T10:00:00Z'), 'UTC')).toBe('2026-01-01 10:00:00');
  });

  it('[BKG-27] [DES-107] withoutSkus drops exactly the unknown SKUs, and the items key when none is left', () => {
    const body = createOrderBody({ ...base, items: [{ sku: 'A', quantity: 1 }, { sku: 'B', quantity: 2 }, { sku: 'A', quantity: 3 }] });
    expect(withoutSkus(body, ['A']).items).toEqual([{ sku: 'B', quantity: 2 }]);
    const none = withoutSkus(body, ['A', 'B']);
    expect('items' in none).toBe(false);
    expect(none).toMatchObject({ tables: ['T1', 'T2'], prepayment: 0 });
    fc.assert(
      fc.property(fc.array(fc.constantFrom('A', 'B', 'C', 'D')), fc.array(fc.constantFrom('A', 'B', 'C', 'D')), (skus, unknown) => {
        const b = createOrderBody({ ...base, items: skus.map((sku) => ({ sku, quantity: 1 })) });
        const kept = withoutSkus(b, unknown).items ?? [];
        expect(kept.map((i) => i.sku)).toEqual(skus.filter((s) => !unknown.includes(s)));
      }),
    );
  });

  it('[BKG-25] unknownTables names each requested table the POS does not have, once, in the order given', () => {
    expect(unknownTables(['1', 'X', '2', 'X', 'Y'], ['1', '2', '3'])).toEqual(['X', 'Y']);
    expect(unknownTables(['1', '2'], ['1', '2', '3'])).toEqual([]);
  });
});

describe('retrying a POS that cannot be reached', () => {
  it('[BKG-35] attempts are at most 30 s apart and stop at the hour', () => {
    expect(RETRY_EVERY_MS).toBeLessThanOrEqual(30_000);
    expect(GIVE_UP_AFTER_MS).toBe(3_600_000);
    // An attempt lasts at most POS_TIMEOUT_MS; the pause after it keeps starts within 30 s.
    fc.assert(fc.property(fc.integer({ min: 1, max: 29_000 }), (timeoutMs) => {
      expect(timeoutMs + retryDelayMs(timeoutMs)).toBeLessThanOrEqual(30_000);
      expect(retryDelayMs(timeoutMs)).toBeGreaterThan(0);
    }));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: GIVE_UP_AFTER_MS + 60_000 }), (elapsed) => {
        const start = new Date('2026-01-15T12:00:00Z');
        const deadline = new Date(start.getTime() + GIVE_UP_AFTER_MS);
        const now = new Date(start.getTime() + elapsed);
        const next = nextAttemptAt(now, deadline);
        if (elapsed >= GIVE_UP_AFTER_MS) expect(next).toBeNull();
        else {
          expect(next!.getTime() - now.getTime()).toBeGreaterThan(0);
          expect(next!.getTime() - now.getTime()).toBeLessThanOrEqual(30_000);
          expect(next!.getTime()).toBeLessThanOrEqual(deadline.getTime());
        }
      }),
    );
  });
});
