import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { newVenue, rmsPartner } from '../content/builders.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// The channel API /v1/bc (DESIGN 8.4a) over HTTPS, against the reference RMS over HTTPS.

const NOW = '2025-06-10T09:00:00Z';
const at = (hhmm: string, day = '2025-06-11') => `${day}T${hhmm}:00+01:00`;
const contact = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0001' };

describeEachStore('the channel API /v1/bc', (store) => {
  let w: ChannelWorld;
  let ch: TestChannel;
  let n = 0;
  const key = () => `key-${++n}`;
  const bc = (c: TestChannel = ch) => ({
    get: (path: string) => w.app.http.get(path, { headers: { authorization: c.auth } }),
    post: (path: string, body: unknown, idem?: string) =>
      w.app.http.post(path, { body, headers: { authorization: c.auth, ...(idem ? { 'idempotency-key': idem } : {}) } }),
    put: (path: string, body: unknown = {}) => w.app.http.put(path, { body, headers: { authorization: c.auth } }),
  });
  const booking = (over: Record<string, unknown> = {}) => ({ venueId: w.venueId, partySize: 2, start: at('19:00'), contact, notes: 'window seat', ...over });
  const book = async (over: Record<string, unknown> = {}, c: TestChannel = ch) => {
    const res = await bc(c).post('/v1/bc/bookings', booking(over), key());
    if (res.status !== 200) throw new Error(`book → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const rmsId = async (id: string) => (await w.app.service.app.services.bookings.get(id)).rmsBookingId!;

  beforeAll(async () => {
    w = await startChannelWorld({ app: { store, clock: new ManualClock(NOW) } });
    ch = await w.channel('tableside', { name: 'Dine Finder' });
  });
  afterAll(async () => w?.close());
  beforeEach(async () => {
    await w.sim.control.setClock({ set: NOW, frozen: true });
    await w.sim.control.setFailures({ mode: 'none', force402: null, slowMs: 0, operations: null });
    await w.sim.control.clearRequests();
    await w.setCompany({ minAdvanceBooking: 0, minAdvanceBookingCancelling: 0, includeSourceInNotes: false });
  });

  it('[CHN-03] [CHN-21] GET /v1/bc/venues lists the linked venues as {total,data} with Tableside ids, offset/limit checked', async () => {
    const res = await bc().get('/v1/bc/venues');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 1, data: [{ id: w.venueId, name: 'The Anchor', currency: 'GBP', timezone: 'Europe/London' }] });
    expect(JSON.stringify(res.body)).not.toContain('rms-venue-1');
    expect((await bc().get('/v1/bc/venues?offset=1')).body).toEqual({ total: 1, data: [] });
    const bad = await bc().get('/v1/bc/venues?limit=51');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 400, details: { limit: expect.any(Array) } });
    expect((await w.app.http.get('/v1/bc/venues')).status).toBe(401);
    expect((await w.app.http.get('/v1/bc/venues', { token: w.key })).status).toBe(401); // a partner key is not a channel key
  });

  it('[CHN-04] [CHN-23] availability is live from the RMS with openSpots, deposit and requiresCc; slots closer than minAdvanceBooking are not offered', async () => {
    const all = await bc().get(`/v1/bc/venues/${w.venueId}/availability?date=2025-06-10&partySize=2`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ venueId: w.venueId, date: '2025-06-10', partySize: 2, source: 'live' });
    expect(all.body.slots.length).toBeGreaterThan(0);
    expect(all.body.slots[0]).toEqual({ start: expect.any(String), durationSec: expect.any(Number), openSpots: expect.any(Number), deposit: null, requiresCc: false });
    await w.setCompany({ minAdvanceBooking: 4 * 3600 });
    const later = await bc().get(`/v1/bc/venues/${w.venueId}/availability?date=2025-06-10&partySize=2`);
    const earliest = new Date(NOW).getTime() + 4 * 3600_000;
    expect(later.body.slots.length).toBeGreaterThan(0);
    expect(later.body.slots.length).toBeLessThan(all.body.slots.length);
    expect(later.body.slots.every((s: any) => new Date(s.start).getTime() >= earliest)).toBe(true);
    expect(all.body.slots.filter((s: any) => new Date(s.start).getTime() >= earliest)).toEqual(later.body.slots);
    const bad = await bc().get(`/v1/bc/venues/${w.venueId}/availability?date=10-06-2025&partySize=0`);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(['date', 'partySize']);
  });

  it('[CHN-22] [CHN-21] a slot deposit is a decimal in the venue currency (RMS minor units / 100 for GBP)', async () => {
    const c = await w.channel('tableside', { link: [w.otherVenueId] });
    const res = await bc(c).get(`/v1/bc/venues/${w.otherVenueId}/availability?date=2025-06-11&partySize=2`);
    expect(res.status).toBe(200);
    const rms = await (await w.app.service.app.services.bookingServices.client(w.partnerId))!.availability({ venueId: 'rms-venue-2', date: '2025-06-11', partySize: 2 });
    const withDeposit = rms.slots.find((s) => s.deposit)!;
    expect(withDeposit.depositAmount).toBeGreaterThan(0);
    const slot = res.body.slots.find((s: any) => s.start === withDeposit.start.toISOString());
    expect(slot.deposit).toEqual({ amount: withDeposit.depositAmount / 100, currency: 'GBP' });
    expect(res.body.venueId).toBe(w.otherVenueId);
  });

  it('[CHN-02] an unlinked (or unknown) venue → 403 on availability and booking, and nothing reaches the RMS', async () => {
    for (const venueId of [w.otherVenueId, '0190f0f0-0000-7000-8000-000000000000']) {
      expect((await bc().get(`/v1/bc/venues/${venueId}/availability?date=2025-06-11&partySize=2`)).status).toBe(403);
      const res = await bc().post('/v1/bc/bookings', booking({ venueId }), key());
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe(403);
    }
    expect(await w.sim.control.requests()).toEqual([]);
  });

  it('[CHN-05] no Idempotency-Key → 400; the same key and body → the same booking with one RMS create; another body → 409', async () => {
    const none = await bc().post('/v1/bc/bookings', booking({ start: at('18:00') }));
    expect(none.status).toBe(400);
    expect(none.body.error.details).toHaveProperty('idempotency-key');
    const k = key();
    const first = await bc().post('/v1/bc/bookings', booking({ start: at('18:15') }), k);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ venueId: w.venueId, channelId: ch.id, status: 'confirmed', partySize: 2, start: new Date(at('18:15')).toISOString(), contact });
    expect(first.headers['x-idempotent-replay']).toBeUndefined();
    const again = await bc().post('/v1/bc/bookings', { ...booking({ start: at('18:15') }), contact: { ...contact } }, k);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    // Said as /v1/pat says it (issue 30: the channel API's replays carried no header).
    expect(again.headers['x-idempotent-replay']).toBe('true');
    expect(await w.sim.control.requests({ operation: 'create' })).toHaveLength(1);
    const other = await bc().post('/v1/bc/bookings', booking({ start: at('18:30') }), k);
    expect(other.status).toBe(409);
    expect(await w.sim.control.requests({ operation: 'create' })).toHaveLength(1);
  });

  it('[CHN-06] [CHN-26] a channel booking is stored with its channel; GET answers Tableside\'s record with no RMS call, current after a notice', async () => {
    const b = await book({ start: at('20:00') });
    const { rows } = await sql<{ channel_id: string }>`SELECT channel_id FROM bookings WHERE id = ${b.id}`.execute(w.app.db.kysely);
    expect(rows).toEqual([{ channel_id: ch.id }]);
    await w.sim.control.seat(await rmsId(b.id), { posTableIds: ['201'] });
    await eventually(async () => {
      await w.app.service.runner.runDue();
      await w.sim.control.clearRequests();
      const now = await bc().get(`/v1/bc/bookings/${b.id}`);
      expect(now.status).toBe(200);
      expect(now.body).toMatchObject({ id: b.id, status: 'seated' });
    }, { what: 'the seating notice applied' });
    expect(await w.sim.control.requests()).toEqual([]);
    expect((await bc().get('/v1/bc/bookings/0190f0f0-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await bc().get('/v1/bc/bookings/not-a-uuid')).status).toBe(400);
  });

  it("[CHN-07] another channel reading, changing or cancelling a channel's booking → 403", async () => {
    const b = await book({ start: at('20:15') });
    const other = await w.channel('tableside');
    expect((await bc(other).get(`/v1/bc/bookings/${b.id}`)).status).toBe(403);
    expect((await bc(other).put(`/v1/bc/bookings/${b.id}`, { partySize: 3 })).status).toBe(403);
    expect((await bc(other).put(`/v1/bc/bookings/${b.id}/cancel`)).status).toBe(403);
    expect((await bc().get(`/v1/bc/bookings/${b.id}`)).body.status).toBe('confirmed');
  });

  it('[CHN-24] [CHN-27] change and cancel answer 200 with the booking; cancelling again → 402 booking_already_cancelled in the envelope', async () => {
    const b = await book({ start: at('20:30') });
    const changed = await bc().put(`/v1/bc/bookings/${b.id}`, { partySize: 3 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: b.id, partySize: 3, status: 'confirmed' });
    const moved = await bc().put(`/v1/bc/bookings/${b.id}`, { start: at('21:00') });
    expect(moved.body).toMatchObject({ start: new Date(at('21:00')).toISOString() });
    const canceled = await bc().put(`/v1/bc/bookings/${b.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: b.id, status: 'canceled' });
    const twice = await bc().put(`/v1/bc/bookings/${b.id}/cancel`);
    expect(twice.status).toBe(402);
    expect(twice.body).toEqual({ error: { code: 402, message: expect.any(String), details: { code: 'booking_already_cancelled' } } });
  });

  it('[CHN-24] [ERR-03] a change naming nothing to change ({} or only unknown fields) → 400, before any call to the RMS (not a 402 rms_unavailable)', async () => {
    const b = await book({ start: at('20:45') });
    await w.sim.control.clearRequests();
    for (const body of [{}, { colour: 'blue' }]) {
      const res = await bc().put(`/v1/bc/bookings/${b.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details, JSON.stringify(body)).toEqual({ body: ['must name at least one field to change: partySize or start'] });
    }
    expect(await w.sim.control.requests({ operation: 'update' })).toEqual([]);
  });

  it('[CHN-27] [CHN-04] an RMS refusal keeps its 8.2 slug in error.details.code', async () => {
    await w.sim.control.setFailures({ force402: 'slot_unavailable', operations: ['create'], count: 1 });
    const res = await bc().post('/v1/bc/bookings', booking({ start: at('21:15') }), key());
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 402, message: expect.stringContaining('slot_unavailable'), details: { code: 'slot_unavailable' } });
  });

  it('[CHN-08] [CHN-23] inside minAdvanceBookingCancelling → 402 outside_cancellation_window, the booking unchanged; inside minAdvanceBooking → 402 outside_booking_window; nothing sent to the RMS', async () => {
    const firstKey = key();
    const first = await bc().post('/v1/bc/bookings', booking({ start: at('21:30') }), firstKey);
    expect(first.status).toBe(200);
    const b = first.body;
    await w.sim.control.clearRequests();
    await w.setCompany({ minAdvanceBooking: 3 * 86_400, minAdvanceBookingCancelling: 2 * 86_400 });
    // A retry of the create that succeeded still answers its booking: the notice is a rule for new bookings.
    const replay = await bc().post('/v1/bc/bookings', booking({ start: at('21:30') }), firstKey);
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(b.id);
    const cancel = await bc().put(`/v1/bc/bookings/${b.id}/cancel`);
    expect(cancel.status).toBe(402);
    expect(cancel.body.error.details).toEqual({ code: 'outside_cancellation_window' });
    expect((await bc().get(`/v1/bc/bookings/${b.id}`)).body).toMatchObject({ status: 'confirmed', updatedAt: b.updatedAt });
    const create = await bc().post('/v1/bc/bookings', booking({ start: at('21:45') }), key());
    expect(create.status).toBe(402);
    expect(create.body.error.details).toEqual({ code: 'outside_booking_window' });
    expect(await w.sim.control.requests()).toEqual([]);
  });

  it('[CHN-10] [RMS-31] includeSourceInNotes true: the notes sent to the RMS name the channel; false: they do not', async () => {
    await book({ start: at('12:00'), notes: 'birthday' });
    await w.setCompany({ includeSourceInNotes: true });
    await book({ start: at('12:15'), notes: 'anniversary' });
    const sent = (await w.sim.control.requests({ operation: 'create' })).map((r) => (r.body as any).notes);
    expect(sent).toEqual(['birthday', 'anniversary\nBooked via Dine Finder']);
  });

  it('[CHN-09] [CHN-25] no booking services → 402 rms_not_connected; an RMS that fails → 402 rms_unavailable (no snapshot), never 5xx', async () => {
    const other = await rmsPartner(w.app, 'Unconnected RMS');
    const v = await newVenue(w.app, other.apiKey, { externalId: 'elsewhere-1' });
    const c = await w.channel('tableside', { link: [] });
    expect((await w.app.http.put(`/v1/rms/booking-channels/${c.id}/link-venues`, { token: other.apiKey, body: { venues: [v.id] } })).status).toBe(200);
    const avail = await bc(c).get(`/v1/bc/venues/${v.id}/availability?date=2025-06-11&partySize=2`);
    expect(avail.status).toBe(402);
    expect(avail.body.error.details).toEqual({ code: 'rms_not_connected' });
    const create = await bc(c).post('/v1/bc/bookings', booking({ venueId: v.id }), key());
    expect(create.status).toBe(402);
    expect(create.body.error.details).toEqual({ code: 'rms_not_connected' });

    await w.sim.control.setFailures({ mode: 'error5xx', operations: ['availability', 'create'] });
    const down = await bc().get(`/v1/bc/venues/${w.venueId}/availability?date=2025-06-11&partySize=2`);
    expect(down.status).toBe(402);
    expect(down.body.error).toMatchObject({ code: 402, details: { code: 'rms_unavailable' } });
    const k = key();
    const failed = await bc().post('/v1/bc/bookings', booking({ start: at('13:00') }), k);
    expect(failed.status).toBe(402);
    expect(failed.body.error.details).toMatchObject({ code: 'rms_unavailable', bookingId: expect.any(String) });
    // The retry with the same key, once the RMS answers, is the same booking (never a second one).
    await w.sim.control.setFailures({ mode: 'none', operations: null });
    const retry = await bc().post('/v1/bc/bookings', booking({ start: at('13:00') }), k);
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(failed.body.error.details.bookingId);
    expect((await w.sim.control.bookings('rms-venue-1')).filter((x: any) => x.date === new Date(at('13:00')).toISOString() || new Date(x.date).getTime() === new Date(at('13:00')).getTime())).toHaveLength(1);
  });
});
