// Pure parts of the Maps Booking API client (DESIGN 8.7b): batching availability into calls of at
// most 1,000 records without splitting an entry, Google's JSON encodings, the update mask, and
// reading Google's answers.
import { describe, expect, it } from 'vitest';
import {
  batchAvailability, bookingNotificationBody, readGoogleError, readOAuthError, readTokenAnswer, retryAfterMs, reuseUntil,
  serviceAvailabilityOf, toGoogleDuration, toGoogleTimestamp, updateMaskOf,
} from '../../src/channels/maps-booking-client.fns.ts';

const entries = (...sizes: number[]) => sizes.map((n, i) => ({ id: i, slots: Array.from({ length: n }) }));
const shape = (batches: Array<Array<{ id: number; slots: unknown[] }>>) => batches.map((b) => b.map((e) => `${e.id}:${e.slots.length}`));

describe('batching availability into calls', () => {
  it.each([
    ['nothing', [], []],
    ['one small entry', [10], [['0:10']]],
    ['entries that fit together', [400, 300, 300], [['0:400', '1:300', '2:300']]],
    ['one record too many starts a new call', [400, 300, 301], [['0:400', '1:300'], ['2:301']]],
    ['exactly 1,000 in one entry', [1000], [['0:1000']]],
    ['an entry over 1,000 goes alone, never split', [10, 1500, 20], [['0:10'], ['1:1500'], ['2:20']]],
    ['two large entries each alone', [1001, 1001], [['0:1001'], ['1:1001']]],
    ['empty entries (a day with no slots left) travel with the others', [0, 1000, 0], [['0:0', '1:1000', '2:0']]],
    ['order is kept', [600, 600, 300, 100], [['0:600'], ['1:600', '2:300', '3:100']]],
  ])('[CHN-35] %s', (_what, sizes, expected) => {
    const batches = batchAvailability(entries(...sizes));
    expect(shape(batches)).toEqual(expected);
    for (const batch of batches) {
      const records = batch.reduce((n, e) => n + e.slots.length, 0);
      expect(batch.length === 1 || records <= 1000).toBe(true);
    }
  });

  it('[CHN-35] honours another maximum', () => {
    expect(shape(batchAvailability(entries(2, 2, 2), 4))).toEqual([['0:2', '1:2'], ['2:2']]);
  });
});

describe('Google’s JSON', () => {
  it('instants are RFC 3339 in UTC, a fraction only when there is one; durations whole seconds with "s"', () => {
    expect(toGoogleTimestamp('2025-06-11T19:00:00+01:00')).toBe('2025-06-11T18:00:00Z');
    expect(toGoogleTimestamp(new Date(Date.UTC(2025, 5, 11, 18, 0, 0, 250)))).toBe('2025-06-11T18:00:00.250Z');
    expect(() => toGoogleTimestamp('not a date')).toThrow(RangeError);
    expect(toGoogleDuration(7200)).toBe('7200s');
    expect(() => toGoogleDuration(0)).toThrow(RangeError);
    expect(() => toGoogleDuration(1.5)).toThrow(RangeError);
  });

  it('[CHN-34] a booking notification names the booking of the URL and carries what changed', () => {
    expect(bookingNotificationBody('20001234', 'bk-1', { merchantId: 'venue-1', status: 'CANCELED', startTime: '2025-06-11T19:00:00+01:00', durationSec: 5400, partySize: 3 })).toEqual({
      name: 'partners/20001234/bookings/bk-1', merchantId: 'venue-1', serviceId: 'dining',
      status: 'CANCELED', startTime: '2025-06-11T18:00:00Z', duration: '5400s', partySize: 3,
    });
    expect(bookingNotificationBody('1', 'b', { merchantId: 'm', status: 'NO_SHOW' })).toEqual({ name: 'partners/1/bookings/b', merchantId: 'm', serviceId: 'dining', status: 'NO_SHOW' });
  });

  it('[CHN-34] the update mask names each field once in a fixed order, and only fields the update carries', () => {
    const update = { merchantId: 'm', status: 'CONFIRMED' as const, partySize: 2, startTime: '2025-06-11T18:00:00Z' };
    expect(updateMaskOf(['partySize', 'status', 'partySize', 'startTime'], update)).toBe('status,startTime,partySize');
    expect(() => updateMaskOf(['duration'], update)).toThrow(/duration/);
    expect(() => updateMaskOf([], update)).toThrow(RangeError);
  });

  it('[CHN-35] an availability entry: the whole local day as its window, the party size as its restriction and on every record', () => {
    expect(serviceAvailabilityOf({
      merchantId: 'venue-1', partySize: 4,
      startTimeRestrict: '2025-06-11T00:00:00+01:00', endTimeRestrict: '2025-06-12T00:00:00+01:00',
      slots: [{ startTime: '2025-06-11T18:00:00Z', durationSec: 7200, spotsTotal: 3, spotsOpen: 1 }],
    })).toEqual({
      merchantId: 'venue-1', serviceId: 'dining',
      startTimeRestrict: '2025-06-10T23:00:00Z', endTimeRestrict: '2025-06-11T23:00:00Z',
      resourcesRestrict: { partySize: 4 },
      availability: [{ startTime: '2025-06-11T18:00:00Z', duration: '7200s', spotsTotal: 3, spotsOpen: 1, resources: { partySize: 4 } }],
    });
  });
});

describe('reading Google’s answers', () => {
  it('Retry-After in seconds or as an HTTP date', () => {
    const now = Date.UTC(2025, 5, 11, 12, 0, 0);
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs(['5', '9'], now)).toBe(5_000);
    expect(retryAfterMs('Wed, 11 Jun 2025 12:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Wed, 11 Jun 2025 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
  });

  it('the error JSON of the API and of the token endpoint', () => {
    expect(readGoogleError({ error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } })).toEqual({ status: 'INVALID_ARGUMENT', message: 'bad' });
    expect(readGoogleError('<html>')).toEqual({ status: null, message: null });
    expect(readOAuthError({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' })).toBe('invalid_grant: Invalid JWT Signature.');
    expect(readOAuthError({ error: 'invalid_scope' })).toBe('invalid_scope');
    expect(readOAuthError(undefined)).toBeNull();
  });

  it('the token answer, and only a well-formed one', () => {
    expect(readTokenAnswer({ access_token: 'ya29.x', expires_in: 3599, token_type: 'Bearer' })).toEqual({ accessToken: 'ya29.x', expiresInS: 3599 });
    for (const bad of [null, {}, { access_token: 'a b', expires_in: 1, token_type: 'Bearer' }, { access_token: 'a', expires_in: 0, token_type: 'Bearer' }, { access_token: 'a', expires_in: 60, token_type: 'mac' }]) {
      expect(readTokenAnswer(bad)).toBeNull();
    }
  });

  it('[CHN-33] a token is reused until 5 minutes before it expires, or half its life when it is short', () => {
    expect(reuseUntil(0, 3599)).toBe(3599_000 - 300_000);
    expect(reuseUntil(1000, 60)).toBe(1000 + 30_000);
  });
});
