import { describe, expect, it } from 'vitest';
import { createIsPastDeadline, isLostCreate, lookingIsOver, nextCreateAttempt, nextLookFor } from '../../src/rms/bookings.fns.ts';
import type { RmsBooking } from '../../src/rms/rms-client.fns.ts';
import { RmsError } from '../../src/rms/rms-client.ts';

// The pure rules of creates under RMS faults (DESIGN 8.8b): when a create is sent again, when it is
// given up, what Tableside takes for a booking of a given-up create at the RMS, and which RMS
// answers are final.

const created = new Date('2025-06-10T09:00:00Z');
const plus = (ms: number) => new Date(created.getTime() + ms);
const MIN = 60_000;

describe('creates whose outcome is unknown', () => {
  it('[BKG-40] are sent again with backoff (5 s doubling to 2 min), never past 15 minutes from the record, then given up', () => {
    expect(nextCreateAttempt(created, plus(10_000), 1)).toEqual(plus(15_000));
    expect(nextCreateAttempt(created, plus(20_000), 3)).toEqual(plus(40_000));
    expect(nextCreateAttempt(created, plus(5 * MIN), 12)).toEqual(plus(7 * MIN));
    expect(nextCreateAttempt(created, plus(14 * MIN), 20)).toEqual(plus(15 * MIN));
    expect(createIsPastDeadline(created, plus(15 * MIN - 1))).toBe(false);
    expect(createIsPastDeadline(created, plus(15 * MIN))).toBe(true);
  });

  it('[BKG-40] a given-up create is looked for every 5 minutes for an hour, then no more', () => {
    const gaveUp = plus(15 * MIN);
    expect(nextLookFor(gaveUp, gaveUp)).toEqual(plus(20 * MIN));
    expect(nextLookFor(gaveUp, plus(73 * MIN))).toEqual(plus(75 * MIN));
    expect(nextLookFor(gaveUp, plus(75 * MIN))).toBeNull();
    expect(lookingIsOver(gaveUp, plus(75 * MIN))).toBe(false);
    expect(lookingIsOver(gaveUp, plus(75 * MIN + 1))).toBe(true);
  });

  it('[BKG-40] a booking at the RMS is taken for the given-up create only when venue, start, party, guest and time agree and Tableside holds it under no other record', () => {
    const create = {
      rmsVenueId: 'rv', start: new Date('2025-06-11T18:00:00Z'), partySize: 2, createdAt: created,
      contact: { firstname: 'Ada', lastname: 'L', email: 'Ada@Example.com', telephone: '+44 20 7946 0001' },
    };
    const rms: RmsBooking = {
      id: 'r1', venueId: 'rv', status: 'confirmed', partySize: 2, date: create.start, areaId: null, tables: null, notes: null, deposit: null,
      contact: { firstname: 'Ada', lastname: 'L', email: 'ada@example.com ', telephone: '+442079460001' }, createdAt: plus(1000), updatedAt: null,
    };
    expect(isLostCreate(rms, create, new Set())).toBe(true);
    expect(isLostCreate({ ...rms, createdAt: null, contact: { ...rms.contact!, telephone: '' } }, create, new Set())).toBe(true);
    expect(isLostCreate(rms, create, new Set(['r1']))).toBe(false);
    expect(isLostCreate({ ...rms, status: 'canceled' }, create, new Set())).toBe(false);
    expect(isLostCreate({ ...rms, partySize: 3 }, create, new Set())).toBe(false);
    expect(isLostCreate({ ...rms, date: plus(1) }, create, new Set())).toBe(false);
    expect(isLostCreate({ ...rms, venueId: 'other' }, create, new Set())).toBe(false);
    expect(isLostCreate({ ...rms, contact: { ...rms.contact!, email: 'someone@else.com' } }, create, new Set())).toBe(false);
    expect(isLostCreate({ ...rms, contact: { ...rms.contact!, telephone: '+44 20 0000 0000' } }, create, new Set())).toBe(false);
    expect(isLostCreate({ ...rms, createdAt: plus(-6 * MIN) }, create, new Set())).toBe(false);
    expect(isLostCreate({ ...rms, contact: null }, create, new Set())).toBe(false);
  });

  it('[BKG-41] only the RMS final word is definite: 402, 409, 404; 408, 429, 401, 403 and 5xx are transient', () => {
    expect(new RmsError('refused', 'x', 402, 'slot_unavailable').definite).toBe(true);
    expect(new RmsError('conflict', 'x', 409).definite).toBe(true);
    expect(new RmsError('not_found', 'x', 404).definite).toBe(true);
    expect(new RmsError('not_connected', 'x').definite).toBe(true);
    for (const status of [400, 401, 403, 408, 422, 429, 500, 503]) expect(new RmsError('status', 'x', status).definite, String(status)).toBe(false);
    expect(new RmsError('timeout', 'x').definite).toBe(false);
    expect(new RmsError('bad_answer', 'x', 200).definite).toBe(false);
  });
});
