import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDateTimeText } from '../../src/lib/iso/timezones.ts';
import {
  afterAbsentLook, createOrderBody, findSeatingOrder, GIVE_UP_AFTER_MS, LOOK_AGAIN_AFTER_MS, nextAttemptAt, POS_CLOCK_SKEW_MS, RETRY_EVERY_MS, retryDelayMs,
  unknownTables, withoutSkus, type SeatingRequest,
} from '../../src/pos-mirror/reservation-orders.fns.ts';

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

describe('finding the order an earlier create made (DESIGN 8.8a)', () => {
  const seatedAt = new Date('2026-01-15T12:00:00Z');
  const lookup = { orderId: 'ours', knownPosIds: [] as Array<string | null>, tables: ['2', '3'], partySize: 4, seatedAt };
  const order = (id: string, fields: Partial<{ tables: string[]; partySize: number | null; createdAt: Date }> = {}) =>
    ({ id, tables: ['3', '2'], partySize: 4, createdAt: new Date(seatedAt.getTime() + 1_000), ...fields });

  it('[BKG-37] our id kept by the POS, or an id known, wins over any other order that could be it', () => {
    expect(findSeatingOrder(lookup, [order('walk-in'), order('ours')])?.id).toBe('ours');
    expect(findSeatingOrder({ ...lookup, knownPosIds: [null, 'P7'] }, [order('walk-in'), order('P7')])?.id).toBe('P7');
  });

  it('[BKG-37] else the one open order on the same tables (any order) with the same party size, created since the claim (skew allowed)', () => {
    expect(findSeatingOrder(lookup, [order('P1')])?.id).toBe('P1');
    expect(findSeatingOrder(lookup, [order('P1', { createdAt: new Date(seatedAt.getTime() - POS_CLOCK_SKEW_MS + 1) })])?.id).toBe('P1');
    expect(findSeatingOrder(lookup, [order('P1', { createdAt: new Date(seatedAt.getTime() - POS_CLOCK_SKEW_MS - 1) })])).toBeNull();
    expect(findSeatingOrder(lookup, [order('P1', { partySize: 5 })])).toBeNull();
    expect(findSeatingOrder(lookup, [order('P1', { partySize: null })])).toBeNull();
    expect(findSeatingOrder(lookup, [order('P1', { tables: ['2'] })])).toBeNull();
    // Two orders it could be: no answer, rather than a guess.
    expect(findSeatingOrder(lookup, [order('P1'), order('P2')])).toBeNull();
  });

  it('[BKG-37] a create is sent again only once a second look, 30 s after the first found nothing, finds nothing either', () => {
    const t0 = new Date('2026-01-15T12:00:00Z');
    const first = afterAbsentLook(t0, null);
    expect(first).toEqual({ absentSince: t0, createAllowed: false, nextAt: new Date(t0.getTime() + LOOK_AGAIN_AFTER_MS) });
    expect(afterAbsentLook(new Date(t0.getTime() + 15_000), t0).createAllowed).toBe(false);
    expect(afterAbsentLook(new Date(t0.getTime() + LOOK_AGAIN_AFTER_MS), t0)).toMatchObject({ absentSince: t0, createAllowed: true });
  });
});
