// The reference RMS's availability engine as pure functions, property-tested with fast-check:
// offered slots are bookable (BKG-11), parties sit only at tables that hold them and no table is
// double-booked (BKG-12), slots follow the venue's zone across DST (BKG-13), pacing holds (BKG-14),
// the payment definition decides deposits and cards (BKG-15), statuses stay within the eight (DES-105).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partsIn } from '../../pos-simulator/src/time.ts';
import {
  HOLDING, availability, decide, seatingOptions, slotStarts, turnMinutes,
} from '../../rms-simulator/src/availability.fns.ts';
import {
  STAFF_ACTIONS, afterDepositPaid, cancelRefusal, modifyRefusal, paymentOutcome, staffTransition,
} from '../../rms-simulator/src/bookings.fns.ts';
import { BOOKING_STATUSES, WEEKDAYS, type BookingStatus, type Occupancy, type Period, type VenueConfig } from '../../rms-simulator/src/types.ts';
import { defaultVenue } from '../../rms-simulator/src/venues.fns.ts';
import { addDays, localDateOf, localMinutesOf, wallToInstant } from '../../rms-simulator/src/zoned.fns.ts';

const hhmm = (m: number) => (m === 1440 ? '24:00' : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
const everyDay = (periods: Period[]) => Object.fromEntries(WEEKDAYS.map((d) => [d, periods])) as VenueConfig['hours'];

/** Random venues: 1-6 tables, joinable pairs/triples, 1-2 opening periods, interval, turn times, pacing, advance. */
const arbVenue: fc.Arbitrary<VenueConfig> = fc
  .record({
    tables: fc.array(fc.record({ min: fc.integer({ min: 1, max: 4 }), extra: fc.integer({ min: 0, max: 5 }) }), { minLength: 1, maxLength: 6 }),
    combos: fc.array(fc.record({ a: fc.nat(5), b: fc.nat(5), c: fc.option(fc.nat(5), { nil: undefined }), min: fc.integer({ min: 2, max: 6 }), extra: fc.integer({ min: 0, max: 6 }) }), { maxLength: 4 }),
    open: fc.integer({ min: 0, max: 40 }).map((q) => q * 15),
    length: fc.integer({ min: 1, max: 24 }).map((q) => q * 30),
    second: fc.boolean(),
    interval: fc.constantFrom(15, 20, 30, 45, 60),
    turns: fc.array(fc.record({ maxPartySize: fc.integer({ min: 1, max: 10 }), minutes: fc.integer({ min: 1, max: 12 }).map((q) => q * 15) }), { maxLength: 3 }),
    defaultTurn: fc.integer({ min: 2, max: 12 }).map((q) => q * 15),
    maxCoversPerSlot: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
    maxBookingsPerSlot: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
    minCovers: fc.integer({ min: 1, max: 3 }),
    maxCovers: fc.integer({ min: 3, max: 14 }),
    minAdvanceBooking: fc.constantFrom(0, 1800, 3600, 86_400),
    timezone: fc.constantFrom('Europe/London', 'America/New_York', 'Asia/Tokyo', 'UTC'),
  })
  .map((r) => {
    const tables = r.tables.map((t, i) => ({ id: `T${i}`, name: `T${i}`, minCovers: t.min, maxCovers: t.min + t.extra, areaId: null, posTableId: null }));
    const combinations = r.combos
      .map((c) => [...new Set([c.a, c.b, ...(c.c === undefined ? [] : [c.c])].map((i) => i % tables.length))])
      .map((ids, i) => ({ ids, spec: r.combos[i] }))
      .filter((c) => c.ids.length >= 2)
      .map((c) => ({ tables: c.ids.map((i) => `T${i}`), minCovers: c.spec.min, maxCovers: c.spec.min + c.spec.extra }));
    const close = Math.min(1440, r.open + r.length);
    const periods: Period[] = [{ open: hhmm(r.open), close: hhmm(close) }];
    if (r.second && close + 60 < 1440) periods.push({ open: hhmm(close + 60), close: hhmm(Math.min(1440, close + 60 + r.length)) });
    return {
      ...defaultVenue('v'),
      timezone: r.timezone,
      tables,
      combinations,
      hours: everyDay(periods),
      slotIntervalMinutes: r.interval,
      turnTimes: [...r.turns].sort((a, b) => a.maxPartySize - b.maxPartySize),
      defaultTurnMinutes: r.defaultTurn,
      pacing: { maxCoversPerSlot: r.maxCoversPerSlot, maxBookingsPerSlot: r.maxBookingsPerSlot },
      minCovers: r.minCovers,
      maxCovers: r.maxCovers,
      company: { minAdvanceBooking: r.minAdvanceBooking, minAdvanceBookingCancelling: 0 },
    };
  });

const DAY = '2025-06-11';
const NOW = Date.parse('2025-06-10T09:00:00Z');

/** A day of requests against the engine: each is (party size, which slot, maybe cancel an earlier booking). */
const arbRequests = fc.array(fc.record({ partySize: fc.integer({ min: 1, max: 14 }), slot: fc.nat(200), cancel: fc.option(fc.nat(50), { nil: undefined }) }), { maxLength: 40 });

/** Applies requests as the bookings service does (decide, then hold the tables); answers the bookings made. */
function play(venue: VenueConfig, requests: Array<{ partySize: number; slot: number; cancel?: number }>, dates = [DAY]): Occupancy[] {
  const starts = dates.flatMap((d) => slotStarts(venue, d));
  const bookings: Occupancy[] = [];
  for (const [i, r] of requests.entries()) {
    if (r.cancel !== undefined && bookings.length > 0) bookings[r.cancel % bookings.length].status = 'canceled';
    if (starts.length === 0) continue;
    const start = starts[r.slot % starts.length];
    const d = decide(venue, bookings, { partySize: r.partySize, start, areaId: null }, NOW);
    if (d.ok) bookings.push({ id: `b${i}`, status: 'confirmed', partySize: r.partySize, start, end: d.end, tables: d.tables });
  }
  return bookings;
}

describe('seating and pacing', () => {
  it('[BKG-12] every party sits at one table or one joinable combination whose min/max covers hold it, and no table is held twice within the turn time', () => {
    fc.assert(fc.property(arbVenue, arbRequests, (venue, requests) => {
      const bookings = play(venue, requests).filter((b) => HOLDING.has(b.status));
      const options = seatingOptions(venue, null);
      for (const b of bookings) {
        const holding = options.filter((o) => o.tables.join(',') === b.tables.join(',') && o.minCovers <= b.partySize && b.partySize <= o.maxCovers);
        expect(holding.length, `booking ${b.id} of ${b.partySize} at ${b.tables}`).toBeGreaterThan(0);
        expect(b.end - b.start).toBe(turnMinutes(venue, b.partySize) * 60_000);
      }
      for (const a of bookings) {
        for (const b of bookings) {
          if (a === b || !a.tables.some((t) => b.tables.includes(t))) continue;
          expect(a.start < b.end && b.start < a.end, `${a.id} and ${b.id} share ${a.tables}`).toBe(false);
        }
      }
    }), { numRuns: 300 });
  });

  it('[BKG-12] a joinable combination seats a party no single table holds, and its tables are then busy for singles', () => {
    const venue: VenueConfig = {
      ...defaultVenue('v'),
      tables: [{ id: 'A', name: 'A', minCovers: 1, maxCovers: 2, areaId: null, posTableId: null }, { id: 'B', name: 'B', minCovers: 1, maxCovers: 2, areaId: null, posTableId: null }],
      combinations: [{ tables: ['A', 'B'], minCovers: 3, maxCovers: 4 }],
      hours: everyDay([{ open: '18:00', close: '21:00' }]),
    };
    const start = slotStarts(venue, DAY)[0];
    const four = decide(venue, [], { partySize: 4, start, areaId: null }, NOW);
    expect(four).toMatchObject({ ok: true, tables: ['A', 'B'] });
    const held: Occupancy[] = [{ id: 'x', status: 'confirmed', partySize: 4, start, end: (four as { end: number }).end, tables: ['A', 'B'] }];
    expect(decide(venue, held, { partySize: 2, start: start + 30 * 60_000, areaId: null }, NOW)).toMatchObject({ ok: false, code: 'slot_unavailable' });
    expect(decide(venue, [], { partySize: 5, start, areaId: null }, NOW)).toMatchObject({ ok: false, code: 'slot_unavailable' });
  });

  it('[BKG-14] no slot start ever holds more covers or more bookings than its pacing limits', () => {
    fc.assert(fc.property(arbVenue, arbRequests, (venue, requests) => {
      const bookings = play(venue, requests).filter((b) => HOLDING.has(b.status));
      const byStart = new Map<number, Occupancy[]>();
      for (const b of bookings) byStart.set(b.start, [...(byStart.get(b.start) ?? []), b]);
      for (const same of byStart.values()) {
        if (venue.pacing.maxBookingsPerSlot !== null) expect(same.length).toBeLessThanOrEqual(venue.pacing.maxBookingsPerSlot);
        if (venue.pacing.maxCoversPerSlot !== null) expect(same.reduce((s, b) => s + b.partySize, 0)).toBeLessThanOrEqual(venue.pacing.maxCoversPerSlot);
      }
    }), { numRuns: 300 });
  });
});

describe('availability', () => {
  it('[BKG-11] every slot offered with openSpots > 0 is accepted for that party size, and one with openSpots 0 is refused; 0 <= openSpots <= totalSpots', () => {
    fc.assert(fc.property(arbVenue, arbRequests, fc.integer({ min: 1, max: 14 }), (venue, requests, partySize) => {
      const bookings = play(venue, requests);
      const { slots } = availability(venue, bookings, DAY, partySize, null, NOW);
      for (const s of slots) {
        expect(s.openSpots).toBeGreaterThanOrEqual(0);
        expect(s.openSpots).toBeLessThanOrEqual(s.totalSpots);
        const d = decide(venue, bookings, { partySize, start: s.startSec * 1000, areaId: null }, NOW);
        expect(d.ok, `slot ${new Date(s.startSec * 1000).toISOString()} openSpots ${s.openSpots}`).toBe(s.openSpots > 0);
      }
    }), { numRuns: 200 });
  });

  it('[BKG-11] booking a slot openSpots times in a row succeeds every time and then leaves it at 0', () => {
    fc.assert(fc.property(arbVenue, arbRequests, fc.integer({ min: 1, max: 14 }), fc.nat(200), (venue, requests, partySize, pick) => {
      const bookings = play(venue, requests);
      const open = availability(venue, bookings, DAY, partySize, null, NOW).slots.filter((s) => s.openSpots > 0);
      fc.pre(open.length > 0);
      const slot = open[pick % open.length];
      for (let n = 0; n < slot.openSpots; n++) {
        const d = decide(venue, bookings, { partySize, start: slot.startSec * 1000, areaId: null }, NOW);
        expect(d.ok).toBe(true);
        if (d.ok) bookings.push({ id: `n${n}`, status: 'confirmed', partySize, start: slot.startSec * 1000, end: d.end, tables: d.tables });
      }
      const after = availability(venue, bookings, DAY, partySize, null, NOW).slots.find((s) => s.startSec === slot.startSec);
      expect(after?.openSpots).toBe(0);
    }), { numRuns: 200 });
  });

  it('[BKG-11] a party on one table of a joinable combination leaves every counted spot bookable (fast-check seed -443423267: combination [T3,T0,T1] of max 3)', () => {
    const table = (id: string, maxCovers: number) => ({ id, name: id, minCovers: 1, maxCovers, areaId: null, posTableId: null });
    const venue: VenueConfig = {
      ...defaultVenue('v'), timezone: 'Europe/London', minCovers: 1, maxCovers: 3,
      tables: [table('T0', 4), table('T1', 2), table('T2', 1), table('T3', 4)],
      combinations: [{ tables: ['T3', 'T0', 'T1'], minCovers: 2, maxCovers: 3 }],
      hours: everyDay([{ open: '00:00', close: '00:30' }]), slotIntervalMinutes: 15, turnTimes: [], defaultTurnMinutes: 30,
      pacing: { maxCoversPerSlot: null, maxBookingsPerSlot: null }, company: { minAdvanceBooking: 0, minAdvanceBookingCancelling: 0 },
    };
    // Empty, a party of 3 is seated at the combination (tightest fit), so one spot is open, though
    // the tables could hold two parties of 3 (T0 and T3).
    expect(availability(venue, [], DAY, 3, null, NOW).slots[0]).toMatchObject({ totalSpots: 2, openSpots: 1 });
    const bookings = play(venue, [{ partySize: 2, slot: 0 }]);
    expect(bookings.map((b) => b.tables)).toEqual([['T1']]);
    const start = bookings[0].start;
    // With T1 taken the combination is gone and T0 and T3 each seat a party of 3: two spots, both bookable.
    expect(availability(venue, bookings, DAY, 3, null, NOW).slots[0]).toMatchObject({ totalSpots: 2, openSpots: 2 });
    for (const [n, tables] of [['T0'], ['T3']].entries()) {
      const d = decide(venue, bookings, { partySize: 3, start, areaId: null }, NOW);
      expect(d).toMatchObject({ ok: true, tables });
      if (d.ok) bookings.push({ id: `n${n}`, status: 'confirmed', partySize: 3, start, end: d.end, tables: d.tables });
    }
    expect(availability(venue, bookings, DAY, 3, null, NOW).slots[0]).toMatchObject({ totalSpots: 2, openSpots: 0 });
    expect(decide(venue, bookings, { partySize: 3, start, areaId: null }, NOW)).toMatchObject({ ok: false, code: 'slot_unavailable' });
  });

  it('[BKG-11] slots closer than minAdvanceBooking show no open spots; party sizes outside min/max covers get no slots', () => {
    const venue: VenueConfig = { ...defaultVenue('v'), tables: [{ id: 'A', name: 'A', minCovers: 1, maxCovers: 4, areaId: null, posTableId: null }], company: { minAdvanceBooking: 3600, minAdvanceBookingCancelling: 0 }, minCovers: 2, maxCovers: 4 };
    const now = Date.parse(`${DAY}T11:30:00Z`); // 12:30 in London: the 12:00-13:15 lunch slots are within the hour
    const { slots } = availability(venue, [], DAY, 2, null, now);
    for (const s of slots) expect(s.openSpots > 0).toBe(s.startSec * 1000 - now >= 3600_000);
    expect(slots.some((s) => s.openSpots === 0 && s.totalSpots === 1)).toBe(true);
    expect(availability(venue, [], DAY, 1, null, now).slots).toEqual([]);
    expect(availability(venue, [], DAY, 5, null, now).slots).toEqual([]);
    expect(decide(venue, [], { partySize: 5, start: slots[0].startSec * 1000, areaId: null }, now)).toMatchObject({ ok: false, code: 'party_size_out_of_range' });
    expect(decide(venue, [], { partySize: 2, start: slots[0].startSec * 1000, areaId: null }, now)).toMatchObject({ ok: false, code: 'outside_booking_window' });
    expect(decide(venue, [], { partySize: 2, start: slots.at(-1)!.startSec * 1000 + 60_000, areaId: null }, now)).toMatchObject({ ok: false, code: 'slot_unavailable' });
  });
});

describe('slots in the venue zone across daylight-saving changes', () => {
  // Spring-forward and fall-back days of 2025, and ordinary days either side.
  const TRANSITIONS: Record<string, string[]> = {
    'Europe/London': ['2025-03-30', '2025-10-26'],
    'America/New_York': ['2025-03-09', '2025-11-02'],
  };

  /** Brute force, independent of the engine: every instant (5-minute steps) whose local date is `date`, by local minute, first occurrence. */
  function wallClock(timeZone: string, date: string): Map<number, number> {
    const first = new Map<number, number>();
    const from = Date.parse(`${date}T00:00:00Z`) - 16 * 3600_000;
    for (let t = from; t < from + 48 * 3600_000; t += 5 * 60_000) {
      const p = partsIn(timeZone, t);
      const d = `${p.y}-${String(p.mo).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
      const m = p.h * 60 + p.mi;
      if (d === date && !first.has(m)) first.set(m, t);
    }
    return first;
  }

  const arbDay = fc.constantFrom(...Object.entries(TRANSITIONS).flatMap(([tz, days]) => days.flatMap((d) => [-1, 0, 1].map((k) => ({ tz, date: addDays(d, k) })))));
  const arbHours = fc.record({
    open: fc.integer({ min: 0, max: 20 }).map((q) => q * 15),
    length: fc.integer({ min: 1, max: 16 }).map((q) => q * 30),
    interval: fc.constantFrom(5, 15, 20, 30, 45, 60),
  });

  it('[BKG-13] in Europe/London and America/New_York no slot is duplicated, skipped or shifted from the opening hours (wall-clock grid, first occurrence)', () => {
    fc.assert(fc.property(arbDay, arbHours, ({ tz, date }, h) => {
      const close = Math.min(1440, h.open + h.length);
      const venue: VenueConfig = { ...defaultVenue('v'), timezone: tz, hours: everyDay([{ open: hhmm(h.open), close: hhmm(close) }]), slotIntervalMinutes: h.interval };
      const slots = slotStarts(venue, date);
      const clock = wallClock(tz, date);
      const grid: number[] = [];
      for (let m = h.open; m < close; m += h.interval) grid.push(m);
      // Not duplicated: distinct instants and distinct wall times.
      expect(new Set(slots).size).toBe(slots.length);
      expect(new Set(slots.map((t) => localMinutesOf(tz, t))).size).toBe(slots.length);
      // Not shifted: each slot shows a grid wall time on that date, at its first occurrence.
      for (const t of slots) {
        expect(localDateOf(tz, t)).toBe(date);
        const m = localMinutesOf(tz, t);
        expect(grid).toContain(m);
        expect(t).toBe(clock.get(m));
      }
      // Not skipped: every grid wall time the clock shows that day is a slot.
      const expected = grid.filter((m) => clock.has(m)).map((m) => clock.get(m));
      expect(slots).toEqual(expected);
    }), { numRuns: 400 });
  });

  it('[BKG-13] London: 12:00 lunch stays 12:00 local across both changes (11:00Z in summer, 12:00Z in winter); 01:00-03:00 loses its gap in March and is not doubled in October', () => {
    const venue = (open: string, close: string): VenueConfig => ({ ...defaultVenue('v'), timezone: 'Europe/London', hours: everyDay([{ open, close }]), slotIntervalMinutes: 30 });
    const iso = (ts: number[]) => ts.map((t) => new Date(t).toISOString().slice(11, 16));
    expect(iso(slotStarts(venue('12:00', '13:00'), '2025-03-29'))).toEqual(['12:00', '12:30']);
    expect(iso(slotStarts(venue('12:00', '13:00'), '2025-03-30'))).toEqual(['11:00', '11:30']);
    expect(iso(slotStarts(venue('12:00', '13:00'), '2025-10-26'))).toEqual(['12:00', '12:30']);
    // 30 March: 01:00-01:59 does not exist in London.
    expect(slotStarts(venue('00:00', '03:00'), '2025-03-30').map((t) => localMinutesOf('Europe/London', t))).toEqual([0, 30, 120, 150]);
    // 26 October: 01:00-01:59 happens twice; each wall time is one slot, the first (BST) one.
    const october = slotStarts(venue('00:00', '03:00'), '2025-10-26');
    expect(october.map((t) => localMinutesOf('Europe/London', t))).toEqual([0, 30, 60, 90, 120, 150]);
    expect(new Date(october[2]).toISOString()).toBe('2025-10-26T00:00:00.000Z');
    expect(wallToInstant('America/New_York', '2025-03-09', 150)).toBeNull();
    expect(new Date(wallToInstant('America/New_York', '2025-11-02', 90)!).toISOString()).toBe('2025-11-02T05:30:00.000Z');
  });
});

describe('payments and statuses', () => {
  const none = { requireCreditCard: false, deposit: null };
  const card = { requireCreditCard: true, deposit: null };
  const deposit = { requireCreditCard: false, deposit: { type: 'fixed_price' as const, amount: 10 } };

  it('[BKG-15] the payment definition decides: deposit without token -> requires_payment (unpaid); deposit with token -> paid; card without token -> 402 payment_required; declined token -> 402 payment_failed', () => {
    expect(paymentOutcome(none, 0, undefined, true)).toEqual({ kind: 'accept', status: 'confirmed', deposit: null, cardOnFile: false });
    expect(paymentOutcome(none, 0, undefined, false)).toMatchObject({ status: 'pending_confirmation' });
    expect(paymentOutcome(deposit.deposit ? deposit : none, 1000, undefined, true)).toEqual({ kind: 'accept', status: 'requires_payment', deposit: { amount: 1000, paid: false }, cardOnFile: false });
    expect(paymentOutcome(deposit, 1000, 'tok_visa', true)).toEqual({ kind: 'accept', status: 'confirmed', deposit: { amount: 1000, paid: true }, cardOnFile: true });
    expect(paymentOutcome(card, 0, undefined, true)).toMatchObject({ kind: 'refuse', code: 'payment_required' });
    expect(paymentOutcome(card, 0, 'tok_visa', false)).toEqual({ kind: 'accept', status: 'pending_confirmation', deposit: null, cardOnFile: true });
    expect(paymentOutcome(card, 0, 'tok_declined_insufficient', true)).toMatchObject({ kind: 'refuse', code: 'payment_failed' });
    expect(paymentOutcome(deposit, 1000, 'tok_declined', true)).toMatchObject({ kind: 'refuse', code: 'payment_failed' });
    expect(afterDepositPaid('requires_payment', true)).toBe('confirmed');
    expect(afterDepositPaid('requires_payment', false)).toBe('pending_confirmation');
  });

  it('[BKG-15] slots carry the deposit in minor units of the venue currency and the card flag', () => {
    const venue = (currency: string, amount: number, cc: boolean): VenueConfig => ({
      ...defaultVenue('v'), currency, tables: [{ id: 'A', name: 'A', minCovers: 1, maxCovers: 4, areaId: null, posTableId: null }],
      paymentDefinition: { requireCreditCard: cc, deposit: amount > 0 ? { type: 'fixed_price', amount } : null },
    });
    expect(availability(venue('GBP', 12.5, false), [], DAY, 2, null, NOW).slots[0]).toMatchObject({ deposit: true, depositAmount: 1250, requiresCc: false });
    expect(availability(venue('JPY', 3000, true), [], DAY, 2, null, NOW).slots[0]).toMatchObject({ deposit: true, depositAmount: 3000, requiresCc: true });
    expect(availability(venue('KWD', 1.234, false), [], DAY, 2, null, NOW).slots[0]).toMatchObject({ depositAmount: 1234 });
    expect(availability(venue('EUR', 0, true), [], DAY, 2, null, NOW).slots[0]).toMatchObject({ deposit: false, depositAmount: 0, requiresCc: true });
  });

  it('[DES-105] any sequence of staff actions, deposits and cancels keeps a booking within the eight statuses; refused moves leave it unchanged', () => {
    const step = fc.oneof(fc.constantFrom(...STAFF_ACTIONS).map((a) => ({ kind: 'staff' as const, a })), fc.constant({ kind: 'cancel' as const }), fc.constant({ kind: 'deposit' as const }));
    fc.assert(fc.property(fc.constantFrom<BookingStatus>('confirmed', 'pending_confirmation', 'requires_payment'), fc.array(step, { maxLength: 12 }), fc.boolean(), (first, steps, auto) => {
      let status: BookingStatus = first;
      for (const s of steps) {
        const before = status;
        if (s.kind === 'staff') status = staffTransition(s.a, status) ?? status;
        else if (s.kind === 'deposit') status = afterDepositPaid(status, auto);
        else if (cancelRefusal({ status, start: NOW + 86_400_000 }, NOW, 3600) === null) status = 'canceled';
        expect(BOOKING_STATUSES).toContain(status);
        if (before === 'canceled' || before === 'completed' || before === 'rejected' || before === 'no-show') expect(status).toBe(before);
      }
    }), { numRuns: 300 });
    expect(modifyRefusal('canceled')).toBe('booking_already_cancelled');
    expect(modifyRefusal('seated')).toBe('booking_not_modifiable');
    expect(cancelRefusal({ status: 'confirmed', start: NOW + 3000_000 }, NOW, 3600)).toBe('outside_cancellation_window');
  });
});
