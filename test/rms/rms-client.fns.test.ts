import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAck, readAvailability, readBooking, readRefusal, readSlot, readSlots, readTime, ShapeError } from '../../src/rms/rms-client.fns.ts';

describe('the tolerant reader of booking-services answers (DESIGN 8.2)', () => {
  it('[BKG-06] reads both spellings of the slot fields', () => {
    const start = 1_749_657_600;
    const canonical = readSlot({ startSec: start, totalSpots: 4, openSpots: 2, deposit: true, depositAmount: 1000, requiresCc: true }, 's');
    const other = readSlot({ startSec: start, totalSpot: 4, openSpot: 2, deposit: true, depositAmount: 1000, requireCc: true }, 's');
    expect(other).toEqual(canonical);
    expect(canonical).toEqual({ start: new Date(start * 1000), totalSpots: 4, openSpots: 2, deposit: true, depositAmount: 1000, requiresCc: true });
  });

  it('[BKG-06] reads dates as ISO 8601 with an offset or as Unix seconds (number or digits)', () => {
    const at = new Date('2025-06-11T17:00:00Z');
    expect(readTime('2025-06-11T18:00:00+01:00', 'd')).toEqual(at);
    expect(readTime('2025-06-11T17:00:00Z', 'd')).toEqual(at);
    expect(readTime(at.getTime() / 1000, 'd')).toEqual(at);
    expect(readTime(String(at.getTime() / 1000), 'd')).toEqual(at);
    for (const bad of ['2025-06-11T18:00:00', '2025-06-11', 'tomorrow', -1, null, {}]) {
      expect(() => readTime(bad, 'd'), String(bad)).toThrow(ShapeError);
    }
    const booking = readBooking({
      id: 'b1', venueId: 'v1', status: 'confirmed', partySize: 2, date: at.getTime() / 1000, areaId: null,
      contact: { firstname: 'A', lastname: 'B', email: '', telephone: '' }, notes: null, deposit: null,
      createdAt: '2025-06-10T09:00:00+00:00', updatedAt: 1_749_546_000,
    });
    expect(booking.date).toEqual(at);
    expect(booking.updatedAt).toEqual(new Date(1_749_546_000_000));
  });

  it('answers that break the contract are ShapeErrors naming the field', () => {
    const slot = { startSec: 1_749_657_600, totalSpots: 4, openSpots: 2, deposit: false, depositAmount: 0, requiresCc: false };
    const problems: Array<[unknown, RegExp]> = [
      [{ ...slot, openSpots: '2' }, /openSpots must be an integer/],
      [{ ...slot, openSpots: 5 }, /openSpots must not exceed totalSpots/],
      [{ ...slot, deposit: 'false' }, /deposit must be a boolean/],
      [{ ...slot, startSec: '2025-06-11T18:00:00' }, /startSec must be ISO 8601/],
    ];
    for (const [raw, problem] of problems) expect(() => readSlot(raw, 'slotData[0]')).toThrow(problem);
    expect(() => readAvailability({ venueId: 'v', date: '2025-06-11', partySize: 2, slotData: [slot, { ...slot, totalSpots: -1 }] })).toThrow(/slotData\[1\]\.totalSpots/);
    expect(() => readAck({ id: 'b1', status: 'cancelled' })).toThrow(/status must be one of/);
    expect(() => readAck('<html>')).toThrow(/body must be an object/);
    expect(readAck({ id: 42, status: 'confirmed' })).toEqual({ id: '42', status: 'confirmed' });
  });

  it('a 402 keeps its code as sent; a flat or empty 402 body is not a refusal', () => {
    expect(readRefusal({ error: { code: 'slot_unavailable', message: 'taken' } })).toEqual({ code: 'slot_unavailable', message: 'taken' });
    expect(readRefusal({ error: { code: 'some_vendor_code' } })).toEqual({ code: 'some_vendor_code', message: 'some_vendor_code' });
    expect(readRefusal({ error: 'slot_unavailable' })).toBeNull();
    expect(readRefusal(undefined)).toBeNull();
  });

  it('a list of slots reads each slot as readSlot does, or fails with its words (the list reads well-formed slots on a shorter path)', () => {
    const value = fc.oneof(
      fc.integer({ min: -5, max: 2_147_483_650 }), fc.double(), fc.constantFrom(0, -0, 1e11, 1e11 - 1, 1_749_657_600.4, 2 ** 53, Number.NaN, Infinity),
      fc.boolean(), fc.constant(null), fc.constantFrom('1749657600', '2025-06-11T18:00:00+01:00', '', 'true', '3'), fc.constant({}),
    );
    const optional = { requiredKeys: [] as never[] };
    const slot = fc.record({
      startSec: value, start_sec: value, totalSpots: value, totalSpot: value, openSpots: value, openSpot: value,
      deposit: value, depositAmount: value, requiresCc: value, requireCc: value,
    }, optional);
    // A well-formed slot (either spelling), then as often one field of it set to anything.
    const spots = fc.integer({ min: 0, max: 2_147_483_647 }).chain((total) => fc.tuple(fc.constant(total), fc.integer({ min: 0, max: total })));
    const wellFormed = fc.record({
      start: fc.oneof(fc.integer({ min: 0, max: 99_999_999_999 }), fc.double({ min: 0, max: 1e11, noNaN: true }), fc.constantFrom(-0, 1e11 - 1, 99_999_999_999.6)),
      spots, deposit: fc.option(fc.boolean(), { nil: undefined }), depositAmount: fc.option(fc.oneof(fc.nat(), fc.constant(null)), { nil: undefined }),
      cc: fc.option(fc.boolean(), { nil: undefined }), other: fc.boolean(),
    }).map(({ start, spots: [total, open], deposit, depositAmount, cc, other }) => ({
      [other ? 'start_sec' : 'startSec']: start, [other ? 'totalSpot' : 'totalSpots']: total, [other ? 'openSpot' : 'openSpots']: open,
      deposit, depositAmount, [other ? 'requireCc' : 'requiresCc']: cc,
    }));
    const fields = ['startSec', 'start_sec', 'totalSpots', 'totalSpot', 'openSpots', 'openSpot', 'deposit', 'depositAmount', 'requiresCc', 'requireCc'];
    const changed = fc.tuple(wellFormed, fc.constantFrom(...fields), value).map(([ok, field, v]) => ({ ...ok, [field]: v }));
    const outcome = (read: () => unknown) => {
      try {
        return { ok: read() };
      } catch (err) {
        return { fault: err instanceof ShapeError ? err.message : err };
      }
    };
    fc.assert(fc.property(fc.oneof(slot, wellFormed, changed, value), (raw) => {
      const one = outcome(() => readSlot(raw, 'slotData[0]'));
      const listed = outcome(() => (readSlots([raw], 'slotData') as unknown[])[0]);
      expect(listed).toEqual(one);
      if ('ok' in one) expect(Object.is((listed.ok as { depositAmount: number }).depositAmount, (one.ok as { depositAmount: number }).depositAmount)).toBe(true);
    }), { numRuns: 3000 });
  });
});
