import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { describeEachStore } from '../helpers/db.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// Google's Booking Server API v3 under /v3/ (DESIGN 8.4b) over HTTPS with Basic auth, against the
// reference RMS over HTTPS.

const NOW = '2025-06-10T09:00:00Z';
const sec = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);
const at = (hhmm: string, day = '2025-06-11') => `${day}T${hhmm}:00+01:00`;
const user = { user_id: 'google-user-1', given_name: 'Ada', family_name: 'Lovelace', telephone: '+44 20 7946 0001', email: 'ada@example.com' };

describeEachStore('Booking Server API v3', (store) => {
  let w: ChannelWorld;
  let g: TestChannel;
  let n = 0;
  const post = (path: string, body: unknown, c: TestChannel = g) => w.app.http.post(`/v3/${path}`, { body, headers: { authorization: c.auth } });
  const create = (start: string, over: Record<string, unknown> = {}) => post('CreateBooking', {
    slot: { merchant_id: w.venueId, service_id: 'dining', start_sec: String(sec(start)), duration_sec: '5400', resources: { party_size: 2 } },
    user_information: user, idempotency_token: `token-${++n}`, ...over,
  });

  beforeAll(async () => {
    w = await startChannelWorld({ app: { store, clock: new ManualClock(NOW) } });
    g = await w.channel('google-v3', { name: 'Reserve with Google' });
  });
  afterAll(async () => w?.close());
  beforeEach(async () => {
    await w.sim.control.setClock({ set: NOW, frozen: true });
    await w.sim.control.setFailures({ mode: 'none', force402: null, slowMs: 0, operations: null });
    await w.sim.control.clearRequests();
    await w.setCompany({ minAdvanceBooking: 0, minAdvanceBookingCancelling: 0 });
  });

  it('[ERR-03] [CHN-13] CreateBooking without the guest\'s names, without a party size, or for another service → 400 naming each field, before any call to the RMS (not a 503 promising a retry)', async () => {
    const slot = { merchant_id: w.venueId, service_id: 'dining', start_sec: String(sec(at('19:00'))), duration_sec: '5400', resources: { party_size: 2 } };
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['no names', { slot, user_information: { user_id: 'u-names' } }, ['user_information.given_name', 'user_information.family_name']],
      ['empty names', { slot, user_information: { user_id: 'u-names', given_name: '', family_name: '' } }, ['user_information.given_name', 'user_information.family_name']],
      ['no party size', { slot: { ...slot, resources: {} }, user_information: user }, ['slot.resources.party_size']],
      ['no resources', { slot: { ...slot, resources: undefined }, user_information: user }, ['slot.resources']],
      ['lunch', { slot: { ...slot, service_id: 'lunch' }, user_information: user }, ['slot.service_id']],
    ];
    for (const [what, body, fields] of cases) {
      const res = await post('CreateBooking', { ...body, idempotency_token: `bad-${what}` });
      expect(res.status, what).toBe(400);
      expect(res.headers['retry-after'], what).toBeUndefined();
      for (const field of fields) expect(Object.keys(res.body.error.details), what).toContain(field);
    }
    expect(await w.sim.control.requests({ operation: 'create' })).toEqual([]);
  });

  it('[CHN-11] [DES-108] HealthCheck answers 200 with the Basic credentials; a wrong password → 401 with WWW-Authenticate: Basic', async () => {
    expect((await w.app.http.get('/v3/HealthCheck', { headers: { authorization: g.auth } })).status).toBe(200);
    const wrong = await w.app.http.get('/v3/HealthCheck', {
      headers: { authorization: `Basic ${Buffer.from(`${g.credentials.username}:not-the-password`).toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic /);
    const none = await w.app.http.get('/v3/HealthCheck');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Basic /);
    const bc = await w.channel('tableside');
    expect((await w.app.http.get('/v3/HealthCheck', { headers: { authorization: bc.auth } })).status).toBe(401);
    expect((await w.app.http.get('/v1/bc/venues', { headers: { authorization: g.auth } })).status).toBe(401);
  });

  it('[CHN-12] [CHN-15] [CHN-21] BatchAvailabilityLookup: one answer per slot_time, in order, echoed with int64 strings; the merchant_id is the content venue id', async () => {
    const rms = await (await w.app.service.app.services.bookingServices.client(w.partnerId))!.availability({ venueId: 'rms-venue-1', date: '2025-06-11', partySize: 2 });
    const open = rms.slots.filter((s) => s.openSpots > 0).map((s) => s.start.getTime() / 1000);
    expect(open.length).toBeGreaterThan(2);
    // A snapshot of the same state, so the answer is the same when a loaded machine makes the live call miss its 1 s.
    const pushed = await w.sim.control.pushFeed({ days: 1, startDate: '2025-06-11', venueIds: ['rms-venue-1'], partySizes: [2] });
    expect(pushed.shards.every((x) => x.status === 202)).toBe(true);
    const slotTimes = [
      { service_id: 'dining', start_sec: open[1], duration_sec: 5400, resource_ids: { party_size: 2 } },
      { service_id: 'dining', start_sec: String(sec(at('03:00'))), duration_sec: '5400', resource_ids: { party_size: 2 } },
      { service_id: 'dining', start_sec: String(open[0]), duration_sec: '5400', resource_ids: { party_size: 2 }, availability_tag: 'tag-1' },
    ];
    const res = await post('BatchAvailabilityLookup', { merchant_id: w.venueId, slot_time: slotTimes });
    expect(res.status).toBe(200);
    expect(res.body.slot_time_availability).toEqual([
      { slot_time: { ...slotTimes[0], start_sec: String(open[1]), duration_sec: '5400' }, available: true },
      { slot_time: slotTimes[1], available: false },
      { slot_time: slotTimes[2], available: true },
    ]);
    expect((await post('BatchAvailabilityLookup', { merchant_id: 'rms-venue-1', slot_time: slotTimes })).status).toBe(403);
    expect((await post('BatchAvailabilityLookup', { merchant_id: w.otherVenueId, slot_time: slotTimes })).status).toBe(403);
  });

  it('[CHN-13] [DES-109] [CHN-15] CreateBooking with a used idempotency_token answers the same response and creates nothing at the RMS', async () => {
    const body = {
      slot: { merchant_id: w.venueId, service_id: 'dining', start_sec: sec(at('19:00')), duration_sec: 5400, resources: { party_size: 2 } },
      user_information: user, idempotency_token: 'the-token',
    };
    const first = await post('CreateBooking', body);
    expect(first.status).toBe(200);
    expect(first.body.booking).toMatchObject({
      slot: { merchant_id: w.venueId, service_id: 'dining', start_sec: String(sec(at('19:00'))), duration_sec: '5400', resources: { party_size: 2 } },
      user_information: user, status: 'CONFIRMED',
    });
    const again = await post('CreateBooking', { ...body, slot: { ...body.slot, start_sec: String(body.slot.start_sec) } });
    expect(again.body).toEqual(first.body);
    expect(await w.sim.control.requests({ operation: 'create' })).toHaveLength(1);
    // After a cancel, a replay names the same booking in its current state (docs/channels.md): never a second
    // booking, never a cancelled booking shown as CONFIRMED.
    const cancelled = await post('UpdateBooking', { booking: { booking_id: first.body.booking.booking_id, status: 'CANCELED' }, update_mask: 'status' });
    expect(cancelled.body.booking.status).toBe('CANCELED');
    const afterCancel = await post('CreateBooking', body);
    expect(afterCancel.status).toBe(200);
    expect(afterCancel.body.booking).toEqual({ ...first.body.booking, status: 'CANCELED' });
    expect(await w.sim.control.requests({ operation: 'create' })).toHaveLength(1);
  });

  it('[CHN-14] [DES-110] a business failure is HTTP 200 with booking_failure.cause mapped from the RMS code, never CAUSE_UNSPECIFIED', async () => {
    for (const [code, cause] of [['slot_unavailable', 'SLOT_UNAVAILABLE'], ['payment_failed', 'PAYMENT_ERROR'], ['party_size_out_of_range', 'SLOT_UNAVAILABLE']]) {
      await w.sim.control.setFailures({ force402: code as any, operations: ['create'], count: 1 });
      const res = await create(at('19:15'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ booking_failure: { cause, description: expect.stringContaining(code!) } });
    }
    const b = (await create(at('19:30'))).body.booking;
    await w.sim.control.setFailures({ force402: 'booking_not_modifiable', operations: ['update'], count: 1 });
    const upd = await post('UpdateBooking', { booking: { booking_id: b.booking_id, slot: { resources: { party_size: 3 } } }, update_mask: 'slot.resources.party_size' });
    expect(upd.status).toBe(200);
    expect(upd.body.booking_failure.cause).toBe('BOOKING_NOT_CANCELLABLE');
  });

  it('[CHN-16] [CHN-24] [CHN-23] UpdateBooking CANCELED cancels at the RMS; GetBookingStatus and ListBookings reflect it; again → BOOKING_ALREADY_CANCELLED; inside the window → OUTSIDE_CANCELLATION_WINDOW', async () => {
    const b = (await create(at('20:00'))).body.booking;
    const moved = await post('UpdateBooking', { booking: { booking_id: b.booking_id, slot: { start_sec: String(sec(at('20:30'))), resources: { party_size: 4 } } } });
    expect(moved.body.booking).toMatchObject({ slot: { start_sec: String(sec(at('20:30'))), resources: { party_size: 4 } }, status: 'CONFIRMED' });
    const canceled = await post('UpdateBooking', { booking: { booking_id: b.booking_id, status: 'CANCELED' }, update_mask: 'status' });
    expect(canceled.status).toBe(200);
    expect(canceled.body.booking).toMatchObject({ booking_id: b.booking_id, status: 'CANCELED' });
    expect(await w.sim.control.requests({ operation: 'cancel' })).toHaveLength(1);
    expect((await post('GetBookingStatus', { booking_id: b.booking_id })).body).toEqual({ booking_id: b.booking_id, booking_status: 'CANCELED', prepayment_status: 'PREPAYMENT_NOT_PROVIDED' });
    const list = await post('ListBookings', { user_id: user.user_id });
    expect(list.body.bookings.find((x: any) => x.booking_id === b.booking_id)).toMatchObject({ status: 'CANCELED', user_information: { user_id: user.user_id } });
    expect((await post('ListBookings', { user_id: 'someone-else' })).body).toEqual({ bookings: [] });
    const twice = await post('UpdateBooking', { booking: { booking_id: b.booking_id, status: 'CANCELED' } });
    expect(twice.body).toEqual({ booking_failure: { cause: 'BOOKING_ALREADY_CANCELLED', description: expect.any(String) } });

    const late = (await create(at('21:00'))).body.booking;
    await w.sim.control.clearRequests();
    await w.setCompany({ minAdvanceBookingCancelling: 3 * 86_400 });
    const refused = await post('UpdateBooking', { booking: { booking_id: late.booking_id, status: 'CANCELED' } });
    expect(refused.body.booking_failure.cause).toBe('OUTSIDE_CANCELLATION_WINDOW');
    expect(await w.sim.control.requests()).toEqual([]);
    expect((await post('GetBookingStatus', { booking_id: late.booking_id })).body.booking_status).toBe('CONFIRMED');
  });

  it('[CHN-15] malformed JSON or wrong types are HTTP 400, never a booking_failure or a 5xx', async () => {
    const raw = await w.app.http.post('/v3/CreateBooking', { body: '{"slot":', headers: { authorization: g.auth, 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
    for (const body of [
      { slot: { merchant_id: w.venueId, start_sec: 'soon', resources: { party_size: 2 } }, user_information: user },
      { slot: { merchant_id: w.venueId, start_sec: 1, resources: { party_size: 'two' } }, user_information: user },
      { slot: { merchant_id: w.venueId, start_sec: sec(at('19:00')) }, user_information: user },
      { slot: [], user_information: user },
    ]) {
      const res = await post('CreateBooking', body);
      expect(res.status).toBe(400);
      expect(res.body.booking_failure).toBeUndefined();
    }
    expect((await post('BatchAvailabilityLookup', { merchant_id: w.venueId, slot_time: [{ start_sec: 1.5 }] })).status).toBe(400);
    expect((await post('GetBookingStatus', { booking_id: 'nope' })).status).toBe(400);
    expect((await post('GetBookingStatus', { booking_id: '0190f0f0-0000-7000-8000-000000000000' })).status).toBe(404);
    expect(await w.sim.control.requests({ operation: 'create' })).toEqual([]);
  });

  it('[CHN-12] BatchAvailabilityLookup with the RMS hanging still answers every slot_time (from the snapshot, or unavailable)', async () => {
    await w.sim.control.setFailures({ mode: 'hang', operations: ['availability'] });
    const slotTimes = [{ start_sec: String(sec(at('19:00'))), resource_ids: { party_size: 2 } }, { start_sec: String(sec(at('12:00'))), resource_ids: { party_size: 4 } }];
    const res = await post('BatchAvailabilityLookup', { merchant_id: w.venueId, slot_time: slotTimes });
    expect(res.status).toBe(200);
    expect(res.body.slot_time_availability.map((s: any) => s.slot_time)).toEqual(slotTimes);
  });
});
