// The reference RMS answers the booking-services contract (DESIGN 8.2) as a conforming RMS would,
// over real HTTPS: auth on every path, availability, idempotent creates, reads, changes, cancels,
// search, the 402 codes, payments and the eight statuses.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../rms-simulator/src/index.ts';
import { DAY, NOW, at, bookingBody, harness, smallVenue, type RmsHarness } from './helpers.ts';

let h: RmsHarness;
beforeEach(async () => {
  h = await harness();
  await h.sim.control.setClock({ set: NOW, frozen: true });
  await h.sim.control.createVenue(smallVenue());
});
afterEach(() => h.close());

const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;
const avail = (partySize: number, date = DAY, venueId = 'v1') => h.call('GET', `/availability?venueId=${venueId}&date=${date}&partySize=${partySize}`);

describe('auth', () => {
  it('[BKG-36] every path, /healthcheck included, answers 401 without the Bearer key or with a wrong one, and nothing is created', async () => {
    const booked = await h.book(bookingBody());
    const id = booked.body.id;
    const routes: Array<['GET' | 'POST' | 'PUT', string, unknown?]> = [
      ['GET', '/healthcheck'],
      ['GET', `/availability?venueId=v1&date=${DAY}&partySize=2`],
      ['POST', '/booking', bookingBody({ date: at('19:00') })],
      ['GET', `/booking/${id}`],
      ['PUT', `/booking/${id}`, { partySize: 1 }],
      ['PUT', `/booking/${id}/cancel`, {}],
      ['GET', `/bookings/search?venueId=v1&startDate=${DAY}&endDate=${DAY}`],
    ];
    for (const [method, path, body] of routes) {
      for (const auth of [false, 'wrong-key', `${h.sim.apiKey}x`]) {
        const res = await h.call(method, path, { body, auth, key: 'auth-test' });
        expect(res.status, `${method} ${path} auth=${String(auth)}`).toBe(401);
        expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      }
    }
    expect((await h.call('GET', '/healthcheck')).status).toBe(200);
    const bookings = await h.sim.control.bookings('v1');
    expect(bookings.map((b) => [b.id, b.status, b.partySize])).toEqual([[id, 'confirmed', 2]]);
    // The refused calls are in the request log, with what they carried.
    const log = await h.sim.control.requests({ operation: 'healthcheck' });
    expect(log.filter((e) => e.status === 401)).toHaveLength(3);
  });
});

describe('availability', () => {
  it('[BKG-10] GET /availability answers {venueId, date, partySize, duration, slotData} with Unix-second starts inside the venue-local date', async () => {
    const res = await avail(2);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ venueId: 'v1', date: DAY, partySize: 2, duration: 5400 });
    // 18:00..20:30 London (BST) = 17:00..19:30Z.
    expect(res.body.slotData.map((s: { startSec: number }) => new Date(s.startSec * 1000).toISOString().slice(11, 16))).toEqual(['17:00', '17:30', '18:00', '18:30', '19:00', '19:30']);
    for (const s of res.body.slotData) {
      expect(s).toEqual({ startSec: expect.any(Number), totalSpots: 3, openSpots: 3, deposit: false, depositAmount: 0, requiresCc: false });
      expect(Number.isInteger(s.startSec)).toBe(true);
    }
    expect((await avail(4)).body.slotData[0]).toMatchObject({ totalSpots: 2, openSpots: 2 });
    expect((await avail(4)).body.duration).toBe(7200);
  });

  it('bad queries are 400 naming the field; an unknown venue is 404', async () => {
    for (const [q, field] of [
      [`venueId=v1&date=${DAY}&partySize=two`, 'partySize'],
      [`venueId=v1&date=${DAY}&partySize=0`, 'partySize'],
      [`venueId=v1&date=2025-02-30&partySize=2`, 'date'],
      [`venueId=v1&date=11-06-2025&partySize=2`, 'date'],
      [`date=${DAY}&partySize=2`, 'venueId'],
    ]) {
      const res = await h.call('GET', `/availability?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { [field]: expect.any(Array) } });
    }
    const unknown = await avail(2, DAY, 'nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('venue_not_found');
  });

  it('[BKG-10] dates of the years 0000-0099 are calendar dates (Date.UTC reads them as 1900-1999): availability answers them, 0099-02-29 is no date, 0096-02-29 is', async () => {
    for (const date of ['0000-01-01', '0042-06-15', '0096-02-29', '0099-12-31']) {
      const res = await avail(2, date);
      expect(res.status, date).toBe(200);
      expect(res.body.date).toBe(date);
      // Every slot starts on that local date (London's offset in year 42 is its LMT, a few minutes).
      for (const s of res.body.slotData) expect(new Date(s.startSec * 1000).getUTCFullYear(), date).toBe(Number(date.slice(0, 4)));
    }
    const notADay = await avail(2, '0099-02-29');
    expect(notADay.status).toBe(400);
    expect(notADay.body.error.details).toHaveProperty('date');
  });

  it('[BKG-11] from outside: booking listed open slots until none is left succeeds every time, and then every slot refuses with 402 slot_unavailable', async () => {
    for (const partySize of [2, 4, 3, 1]) {
      for (let guard = 0; guard < 40; guard++) {
        const open = (await avail(partySize)).body.slotData.filter((s: { openSpots: number }) => s.openSpots > 0);
        if (open.length === 0) break;
        const slot = open[guard % open.length];
        const res = await h.book(bookingBody({ partySize, date: new Date(slot.startSec * 1000).toISOString() }));
        expect(res.status, `party ${partySize} at ${slot.startSec} (openSpots ${slot.openSpots}): ${res.text}`).toBe(200);
      }
    }
    for (const partySize of [1, 2, 3, 4]) {
      for (const s of (await avail(partySize)).body.slotData) {
        expect(s.openSpots).toBe(0);
        const res = await h.book(bookingBody({ partySize, date: new Date(s.startSec * 1000).toISOString() }));
        expect(res.status).toBe(402);
        expect(res.body.error.code).toBe('slot_unavailable');
      }
    }
  });
});

describe('bookings', () => {
  it('[DES-105] POST /booking answers {id, status}; GET /booking/{id} answers every contract field, times ISO 8601 with the venue offset', async () => {
    const res = await h.book(bookingBody({ areaId: null }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(String), status: 'confirmed' });
    const got = await h.call('GET', `/booking/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id: res.body.id, venueId: 'v1', status: 'confirmed', partySize: 2, date: '2025-06-11T18:00:00.000+01:00', areaId: null,
      tables: ['A'], contact: bookingBody().contact, notes: 'window seat', deposit: null, bookingChannel: { id: 'chan-1', name: 'Test channel' },
      createdAt: '2025-06-10T10:00:00.000+01:00', updatedAt: '2025-06-10T10:00:00.000+01:00',
    });
    expect(got.body.createdAt).toMatch(ISO_OFFSET);
    expect((await h.call('GET', '/booking/nope')).status).toBe(404);
  });

  it('the same Idempotency-Key and body answers the same booking and creates nothing; another body is 409; no key is 400', async () => {
    const first = await h.book(bookingBody(), 'key-1');
    const again = await h.book(bookingBody(), 'key-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Key order does not make another body.
    const reordered = Object.fromEntries(Object.entries(bookingBody()).reverse());
    expect((await h.book(reordered, 'key-1')).body.id).toBe(first.body.id);
    const other = await h.book(bookingBody({ partySize: 1 }), 'key-1');
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    const none = await h.call('POST', '/booking', { body: bookingBody() });
    expect(none.status).toBe(400);
    expect(none.body.error.details).toHaveProperty(['Idempotency-Key']);
    expect(await h.sim.control.bookings('v1')).toHaveLength(1);
    // A refusal is kept under its key too: the replay is the same 402, even once the slot frees up.
    await h.sim.control.configureVenue('v1', { pacing: { maxBookingsPerSlot: 1 } });
    const refused = await h.book(bookingBody({ contact: { ...bookingBody().contact, email: 'b@example.com' } }), 'key-2');
    expect(refused.status).toBe(402);
    await h.call('PUT', `/booking/${first.body.id}/cancel`);
    expect((await h.book(bookingBody({ contact: { ...bookingBody().contact, email: 'b@example.com' } }), 'key-2')).body).toEqual(refused.body);
  });

  it('bad bodies are 400 naming the field, and nothing is booked', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ partySize: '2' }, 'partySize'],
      [{ partySize: 0 }, 'partySize'],
      [{ date: '2025-06-11 18:00' }, 'date'],
      [{ date: '2025-06-11T18:00:00' }, 'date'],
      [{ contact: { firstname: 'A', lastname: 'B', email: 'a@b.c' } }, 'contact.telephone'],
      [{ bookingChannel: { id: 'c' } }, 'bookingChannel.name'],
      [{ venueId: 7 }, 'venueId'],
    ];
    for (const [override, field] of cases) {
      const res = await h.book(bookingBody(override));
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(res.body.error.details, JSON.stringify(override)).toHaveProperty([field]);
    }
    const unknownVenue = await h.book(bookingBody({ venueId: 'nope' }));
    expect(unknownVenue.status).toBe(404);
    expect(await h.sim.control.bookings('v1')).toEqual([]);
  });

  it('PUT /booking/{id} changes party size and time when the engine accepts them, and refuses (unchanged) when not', async () => {
    const { body: { id } } = await h.book(bookingBody());
    const moved = await h.call('PUT', `/booking/${id}`, { body: { date: at('19:30'), partySize: 4 } });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ id, status: 'confirmed' });
    expect((await h.call('GET', `/booking/${id}`)).body).toMatchObject({ partySize: 4, date: '2025-06-11T19:30:00.000+01:00', tables: ['C'], duration: 7200 });
    const tooBig = await h.call('PUT', `/booking/${id}`, { body: { partySize: 11 } });
    expect(tooBig.status).toBe(402);
    expect(tooBig.body.error.code).toBe('party_size_out_of_range');
    const offGrid = await h.call('PUT', `/booking/${id}`, { body: { date: at('19:10') } });
    expect(offGrid.body.error.code).toBe('slot_unavailable');
    expect((await h.call('GET', `/booking/${id}`)).body).toMatchObject({ partySize: 4, date: '2025-06-11T19:30:00.000+01:00' });
    expect((await h.call('PUT', `/booking/${id}`, { body: {} })).status).toBe(400);
  });

  it('[DES-105] cancel answers {id, status: "canceled"}; again is 402 booking_already_cancelled; changes to it are refused; cancelling inside minAdvanceBookingCancelling is 402 outside_cancellation_window', async () => {
    const { body: { id } } = await h.book(bookingBody());
    const res = await h.call('PUT', `/booking/${id}/cancel`, { body: { cancelActor: 'guest', cancelReason: 'ill' } });
    expect(res.body).toEqual({ id, status: 'canceled' });
    expect((await h.call('GET', `/booking/${id}`)).body).toMatchObject({ status: 'canceled', cancelActor: 'guest', cancelReason: 'ill' });
    const again = await h.call('PUT', `/booking/${id}/cancel`);
    expect(again.status).toBe(402);
    expect(again.body).toEqual({ error: { code: 'booking_already_cancelled', message: expect.any(String) } });
    expect((await h.call('PUT', `/booking/${id}`, { body: { partySize: 1 } })).body.error.code).toBe('booking_already_cancelled');

    await h.sim.control.configureVenue('v1', { company: { minAdvanceBookingCancelling: 2 * 86_400 } });
    const { body: late } = await h.book(bookingBody({ date: at('19:00') }));
    const refused = await h.call('PUT', `/booking/${late.id}/cancel`);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('outside_cancellation_window');
    expect((await h.call('GET', `/booking/${late.id}`)).body.status).toBe('confirmed');
  });

  it('minAdvanceBooking: a slot closer than it is 402 outside_booking_window and shows 0 open spots', async () => {
    await h.sim.control.configureVenue('v1', { company: { minAdvanceBooking: 2 * 86_400 } });
    expect((await avail(2)).body.slotData.every((s: { openSpots: number }) => s.openSpots === 0)).toBe(true);
    const res = await h.book(bookingBody());
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('outside_booking_window');
  });

  it('GET /bookings/search finds bookings by venue-local date window (inclusive), email (any case) and phone digits', async () => {
    const a = (await h.book(bookingBody())).body.id;
    const b = (await h.book(bookingBody({ date: '2025-06-12T20:30:00+01:00', contact: { ...bookingBody().contact, email: 'bob@example.com', telephone: '+44 (0)20 7946 0002' } }))).body.id;
    const search = (q: string) => h.call('GET', `/bookings/search?venueId=v1&${q}`);
    expect((await search(`startDate=${DAY}&endDate=${DAY}`)).body).toMatchObject({ total: 1, data: [{ id: a }] });
    expect((await search('startDate=2025-06-11&endDate=2025-06-12')).body.data.map((x: { id: string }) => x.id)).toEqual([a, b]);
    expect((await search('startDate=2025-06-12&endDate=2025-06-12&email=BOB@example.com')).body.data.map((x: { id: string }) => x.id)).toEqual([b]);
    expect((await search('startDate=2025-06-11&endDate=2025-06-12&phoneNumber=442079460002')).body.data.map((x: { id: string }) => x.id)).toEqual([]);
    expect((await search('startDate=2025-06-11&endDate=2025-06-12&phoneNumber=4402079460002')).body.data.map((x: { id: string }) => x.id)).toEqual([b]);
    expect((await search('startDate=2025-06-13&endDate=2025-06-20')).body).toEqual({ total: 0, data: [] });
    expect((await search('startDate=2025-06-11T17:30:00%2B01:00&endDate=2025-06-11T18:00:00%2B01:00')).body.total).toBe(1);
    expect((await search('startDate=2025-06-12&endDate=2025-06-11')).status).toBe(400);
    expect((await search('startDate=tomorrow&endDate=2025-06-11')).body.error.details).toHaveProperty(['startDate']);
  });

  it('[BKG-15] deposit venue: no token -> requires_payment with the deposit unpaid (minor units), paid through the control API -> confirmed; card venue: no token -> 402 payment_required, declined token -> 402 payment_failed', async () => {
    await h.sim.control.configureVenue('v1', { paymentDefinition: { requireCreditCard: false, deposit: { type: 'fixed_price', amount: 15 } } });
    expect((await avail(2)).body.slotData[0]).toMatchObject({ deposit: true, depositAmount: 1500, requiresCc: false });
    const held = await h.book(bookingBody());
    expect(held.body.status).toBe('requires_payment');
    expect((await h.call('GET', `/booking/${held.body.id}`)).body.deposit).toEqual({ amount: 1500, paid: false });
    expect(await h.sim.control.markDepositPaid(held.body.id)).toMatchObject({ status: 'confirmed', deposit: { amount: 1500, paid: true } });
    const paid = await h.book(bookingBody({ date: at('19:00'), paymentToken: 'tok_visa' }));
    expect(paid.body.status).toBe('confirmed');
    expect((await h.call('GET', `/booking/${paid.body.id}`)).body.deposit).toEqual({ amount: 1500, paid: true });

    await h.sim.control.configureVenue('v1', { paymentDefinition: { requireCreditCard: true, deposit: null } });
    expect((await avail(2)).body.slotData[0]).toMatchObject({ deposit: false, depositAmount: 0, requiresCc: true });
    const noCard = await h.book(bookingBody({ date: at('20:00') }));
    expect(noCard.status).toBe(402);
    expect(noCard.body.error.code).toBe('payment_required');
    const declined = await h.book(bookingBody({ date: at('20:00'), paymentToken: 'tok_declined' }));
    expect(declined.body.error.code).toBe('payment_failed');
    expect((await h.book(bookingBody({ date: at('20:00'), paymentToken: 'tok_visa' }))).body.status).toBe('confirmed');
    expect(await h.sim.control.bookings('v1')).toHaveLength(3);
  });

  it('[DES-105] staff actions move a booking through the eight statuses; refused transitions are 409 and change nothing', async () => {
    await h.sim.control.configureVenue('v1', { autoConfirm: false });
    const { body: { id, status } } = await h.book(bookingBody());
    expect(status).toBe('pending_confirmation');
    expect((await h.sim.control.confirm(id)).status).toBe('confirmed');
    expect((await h.sim.control.seat(id)).status).toBe('seated');
    expect((await h.call('PUT', `/booking/${id}/cancel`)).body.error.code).toBe('booking_not_modifiable');
    expect((await h.sim.control.complete(id)).status).toBe('completed');
    await expect(h.sim.control.confirm(id)).rejects.toMatchObject({ statusCode: 409 });
    const r = (await h.book(bookingBody({ date: at('19:00') }))).body.id;
    expect((await h.sim.control.reject(r)).status).toBe('rejected');
    const n = (await h.book(bookingBody({ date: at('20:00') }))).body.id;
    expect((await h.sim.control.noShow(n)).status).toBe('no-show');
    const statuses = (await h.sim.control.bookings('v1')).map((b) => b.status);
    expect(statuses).toEqual(['completed', 'rejected', 'no-show']);
  });

  it('every 402 code of DESIGN 8.2 can be forced on create, update and cancel, in the envelope', async () => {
    const { body: { id } } = await h.book(bookingBody());
    for (const code of ERROR_CODES) {
      await h.sim.control.setFailures({ force402: code, count: 3 });
      const answers = [
        await h.book(bookingBody({ date: at('19:00') })),
        await h.call('PUT', `/booking/${id}`, { body: { partySize: 1 } }),
        await h.call('PUT', `/booking/${id}/cancel`),
      ];
      for (const a of answers) expect([a.status, a.body]).toEqual([402, { error: { code, message: expect.any(String) } }]);
      expect((await h.sim.control.failures()).global).toBeNull();
    }
    expect((await h.call('GET', `/booking/${id}`)).body).toMatchObject({ status: 'confirmed', partySize: 2 });
  });
});
