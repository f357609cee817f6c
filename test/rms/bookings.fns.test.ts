import { describe, expect, it } from 'vitest';
import { bookingView, diff, eventTypeOf, isNewer, type BookingRecord } from '../../src/rms/bookings.fns.ts';

const record: BookingRecord = {
  id: 'b', partnerId: 'p', venueId: 'v', rmsVenueId: 'rv', rmsBookingId: 'r', channel: null, sync: 'created', refusalCode: null,
  status: 'confirmed', partySize: 2, start: new Date('2025-06-11T18:00:00Z'), areaId: null, tables: ['T1'],
  contact: { firstname: 'A', lastname: 'B', email: '', telephone: '' }, notes: null, deposit: { amount: 1050, paid: false },
  currency: 'GBP', rmsUpdatedAt: new Date('2025-06-10T09:00:00Z'), version: 1, createdAt: new Date(0), updatedAt: new Date(0),
};
const fields = { status: record.status!, partySize: 2, start: record.start, areaId: null, tables: ['T1'], notes: null, deposit: { amount: 1050, paid: false } };

describe('booking record rules', () => {
  it('diff names each changed field with from/to, and nothing when the RMS state is the same', () => {
    expect(diff(record, fields)).toEqual({});
    expect(diff(record, { ...fields, status: 'canceled', partySize: 3 })).toEqual({ status: { from: 'confirmed', to: 'canceled' }, partySize: { from: 2, to: 3 } });
    expect(eventTypeOf(diff(record, { ...fields, status: 'canceled' }))).toBe('booking.canceled');
    expect(eventTypeOf(diff(record, { ...fields, status: 'seated' }))).toBe('booking.seated');
    expect(eventTypeOf(diff(record, { ...fields, partySize: 4 }))).toBe('booking.updated');
  });

  it('[CHN-30] [CHN-31] a status change is its status\'s event (confirmed, rejected, no_show, completed too); a status without one is booking.updated', () => {
    const pending = { ...record, status: 'pending_confirmation' as const };
    expect(eventTypeOf(diff(pending, { ...fields, status: 'confirmed' }))).toBe('booking.confirmed');
    expect(eventTypeOf(diff(pending, { ...fields, status: 'rejected' }))).toBe('booking.rejected');
    expect(eventTypeOf(diff(record, { ...fields, status: 'no-show' }))).toBe('booking.no_show');
    expect(eventTypeOf(diff(record, { ...fields, status: 'completed' }))).toBe('booking.completed');
    expect(eventTypeOf(diff(record, { ...fields, status: 'completed', partySize: 5 }))).toBe('booking.completed');
    expect(eventTypeOf(diff(pending, { ...fields, status: 'requires_payment' }))).toBe('booking.updated');
    expect(eventTypeOf(diff(record, { ...fields, status: 'pending_confirmation' }))).toBe('booking.updated');
  });

  it('[BKG-18] an RMS state older than the one applied never replaces it (out-of-order re-reads converge)', () => {
    expect(isNewer(record.rmsUpdatedAt, new Date('2025-06-10T08:59:59Z'))).toBe(false);
    expect(isNewer(record.rmsUpdatedAt, new Date('2025-06-10T09:00:00Z'))).toBe(true);
    expect(isNewer(null, new Date(0))).toBe(true);
  });

  it('the view shows the deposit as a decimal of the venue currency and the sequence', () => {
    expect(bookingView(record)).toMatchObject({ deposit: { amount: 10.5, currency: 'GBP', paid: false }, sequence: 1, date: '2025-06-11T18:00:00.000Z' });
  });
});
