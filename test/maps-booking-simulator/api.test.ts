// The two simulated Maps Booking API methods (DESIGN 8.7b) over real HTTPS: a live token of the
// partner's service account is required, bodies are checked as Google checks them (400
// INVALID_ARGUMENT naming what is wrong), and every call is in the log with its service account.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NOTIFY_PATH, PARTNER, REPLACE_PATH, booking, dayEntry, googleHarness, type GoogleHarness } from './helpers.ts';

let h: GoogleHarness;
let token: string;
beforeAll(async () => {
  h = await googleHarness();
});
beforeEach(async () => {
  await h.sim.control.clearCalls();
  token = await h.accessToken();
});
afterAll(() => h.close());

const invalid = (message: string | RegExp) => ({ status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) } } });

describe('booking notifications', () => {
  it('PATCH with the fields of the update mask answers 200 with the booking as Google now holds it; the call is logged', async () => {
    const body = booking('b1', { status: 'CANCELED', startTime: '2025-06-11T18:00:00Z', duration: '7200s', partySize: 4 });
    const res = await h.call('PATCH', NOTIFY_PATH('b1', 'status,startTime,duration,partySize'), { token, body });
    expect(res).toMatchObject({ status: 200, body });

    const [call] = await h.sim.control.calls();
    expect(call).toMatchObject({
      operation: 'notifyBooking',
      method: 'PATCH',
      path: `/v1alpha/notification/partners/${PARTNER}/bookings/b1`,
      query: { updateMask: 'status,startTime,duration,partySize' },
      body,
      partnerId: PARTNER,
      bookingId: 'b1',
      serviceAccount: h.key.client_email,
      answer: { status: 200, body },
      status: 200,
    });
    expect(call.headers.authorization).toBe('Bearer …');
  });

  it('only the masked fields change what Google holds; snake_case mask paths are accepted as Google’s are', async () => {
    await h.call('PATCH', NOTIFY_PATH('b2', 'status,partySize'), { token, body: booking('b2', { status: 'CONFIRMED', partySize: 2 }) });
    const res = await h.call('PATCH', NOTIFY_PATH('b2', 'party_size'), { token, body: booking('b2', { status: 'CANCELED', partySize: 5 }) });
    expect(res.body).toEqual(booking('b2', { status: 'CONFIRMED', partySize: 5 }));
    expect((await h.sim.control.bookings()).find((b) => b.name.endsWith('/b2'))).toEqual(booking('b2', { status: 'CONFIRMED', partySize: 5 }));
  });

  it.each([
    ['an unknown field in the mask', 'status,notes', booking('b1', { status: 'CONFIRMED' }), /Invalid field mask path "notes"/],
    ['no update mask', '', booking('b1', { status: 'CONFIRMED' }), /update_mask is required/],
    ['a masked field the body lacks', 'partySize', booking('b1', { status: 'CONFIRMED' }), /names "partySize" but the booking carries no partySize/],
    ['a name that is not the URL’s booking', 'status', booking('other', { status: 'CONFIRMED' }), /must be the resource of the URL/],
    ['an unknown body field', 'status', booking('b1', { status: 'CONFIRMED', notes: 'x' }), /Unknown name "notes"/],
    ['an unknown status', 'status', booking('b1', { status: 'SEATED' }), /booking\.status/],
    ['a start time with an offset', 'startTime', booking('b1', { startTime: '2025-06-11T19:00:00+01:00' }), /start_time.*UTC/],
    ['a duration that is not "Ns"', 'duration', booking('b1', { duration: 7200 }), /duration.*7200s/],
    ['a party size as a string', 'partySize', booking('b1', { partySize: '4' }), /party_size/],
    ['no merchant', 'status', { name: `partners/${PARTNER}/bookings/b1`, serviceId: 'dining', status: 'CONFIRMED' }, /merchant_id/],
  ])('refuses %s with 400 INVALID_ARGUMENT, and Google holds nothing of it', async (_what, mask, body, message) => {
    const res = await h.call('PATCH', NOTIFY_PATH('b1', mask), { token, body });
    expect(res).toMatchObject(invalid(message));
    const [call] = await h.sim.control.calls();
    expect(call.answer).toEqual({ status: 400, body: res.body });
  });
});

describe('availability replace', () => {
  it('POST …/availability:replace answers 200 with the entries replaced', async () => {
    const body = { extendedServiceAvailability: [dayEntry(3, 2), dayEntry(0, 4)] };
    const res = await h.call('POST', REPLACE_PATH(), { token, body });
    expect(res).toMatchObject({ status: 200, body });
    const [call] = await h.sim.control.calls({ operation: 'replaceAvailability' });
    expect(call).toMatchObject({ path: `/v1alpha/inventory/partners/${PARTNER}/availability:replace`, serviceAccount: h.key.client_email, body, answer: { status: 200 } });
  });

  it('refuses more than 1,000 records in one call, counted over every entry', async () => {
    expect((await h.call('POST', REPLACE_PATH(), { token, body: { extendedServiceAvailability: [dayEntry(1000)] } })).status).toBe(200);
    const over = await h.call('POST', REPLACE_PATH(), { token, body: { extendedServiceAvailability: [dayEntry(600, 2), dayEntry(401, 3)] } });
    expect(over).toMatchObject(invalid(/1001.*at most 1000/));
  });

  it.each([
    ['a record outside its entry’s window', dayEntry(1, 2, { endTimeRestrict: '2025-06-10T23:00:30Z', startTimeRestrict: '2025-06-10T23:00:10Z' }), /outside the entry's window/],
    ['a window that ends before it starts', dayEntry(0, 2, { endTimeRestrict: '2025-06-10T22:00:00Z' }), /start_time_restrict must be before end_time_restrict/],
    ['a record for another party size than the restriction', { ...dayEntry(1, 2), resourcesRestrict: { partySize: 3 } }, /party_size must be 3/],
    ['more spots open than in total', { ...dayEntry(1, 2), availability: [{ ...dayEntry(1, 2).availability[0], spotsOpen: 4 }] }, /spots_open \(4\) exceeds spots_total \(3\)/],
    ['an unknown record field', { ...dayEntry(1, 2), availability: [{ ...dayEntry(1, 2).availability[0], seats: 1 }] }, /Unknown name "seats"/],
  ])('refuses %s with 400 INVALID_ARGUMENT', async (_what, entry, message) => {
    expect(await h.call('POST', REPLACE_PATH(), { token, body: { extendedServiceAvailability: [entry] } })).toMatchObject(invalid(message));
  });

  it('refuses an empty request', async () => {
    expect(await h.call('POST', REPLACE_PATH(), { token, body: { extendedServiceAvailability: [] } })).toMatchObject(invalid(/extended_service_availability/));
  });
});

describe('authorization', () => {
  it('no token, an unknown one or a revoked one answers 401 with Google’s error JSON; the call is still logged', async () => {
    const body = booking('b1', { status: 'CONFIRMED' });
    for (const t of [undefined, 'ya29.made-up']) {
      const res = await h.call('PATCH', NOTIFY_PATH('b1', 'status'), { token: t, body });
      expect(res).toMatchObject({ status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED' } } });
    }
    expect((await h.sim.control.revokeTokens()).revoked).toBeGreaterThanOrEqual(1);
    expect((await h.call('POST', REPLACE_PATH(), { token, body: { extendedServiceAvailability: [dayEntry(1)] } })).status).toBe(401);
    const calls = await h.sim.control.calls();
    expect(calls.map((c) => [c.operation, c.serviceAccount, c.answer?.status])).toEqual([
      ['notifyBooking', null, 401], ['notifyBooking', null, 401], ['replaceAvailability', h.key.client_email, 401],
    ]);
  });

  it('a token of another partner’s service account answers 403 PERMISSION_DENIED', async () => {
    const res = await h.call('PATCH', NOTIFY_PATH('b1', 'status', '999'), { token, body: booking('b1', { status: 'CONFIRMED' }, '999') });
    expect(res).toMatchObject({ status: 403, body: { error: { code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining('999') } } });
  });
});
