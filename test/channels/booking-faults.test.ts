import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import type { ChangedBy } from '../../src/rms/bookings.fns.ts';
import { describeEachStore } from '../helpers/db.ts';
import { testTls } from '../helpers/http.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// Booking creates and cancels under RMS faults (DESIGN 8.8b, 8.4a), through the channel API and
// Google v3 over HTTPS, against the reference RMS over HTTPS whose failure knobs script the faults:
// a status on the create (408, 429, 401, 403, 503), a create the RMS makes and whose answer is lost
// (act-then-hang). Time is the service's manual clock; the durable jobs run with runner.runDue().

const NOW = '2025-06-10T09:00:00Z';
const at = (hhmm: string, day = '2025-06-11') => `${day}T${hhmm}:00+01:00`;
const sec = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);
const contact = { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', phone: '+44 20 7946 0002' };
const MINUTE = 60_000;

describeEachStore('booking creates and cancels under RMS faults', (store) => {
  let w: ChannelWorld;
  let ch: TestChannel;
  let g: TestChannel;
  let n = 0;
  const key = () => `faults-${++n}`;
  const heard: Array<{ id: string; type: string; changedBy: ChangedBy }> = [];
  const clock = () => w.app.clock as ManualClock;
  const post = (body: unknown, idem: string, c: TestChannel = ch) =>
    w.app.http.post('/v1/bc/bookings', { body, headers: { authorization: c.auth, 'idempotency-key': idem } });
  const cancel = (id: string, c: TestChannel = ch) => w.app.http.put(`/v1/bc/bookings/${id}/cancel`, { body: {}, headers: { authorization: c.auth } });
  const booking = (start: string, over: Record<string, unknown> = {}) => ({ venueId: w.venueId, partySize: 2, start: at(start), contact, ...over });
  const v3Create = (start: string, token: string) => w.app.http.post('/v3/CreateBooking', {
    headers: { authorization: g.auth },
    body: {
      slot: { merchant_id: w.venueId, service_id: 'dining', start_sec: String(sec(at(start))), duration_sec: '5400', resources: { party_size: 2 } },
      user_information: { user_id: 'google-user-9', given_name: 'Grace', family_name: 'Hopper', telephone: contact.phone, email: contact.email },
      idempotency_token: token,
    },
  });
  const row = async (id: string) => (await sql<{ sync: string; refusal_code: string | null; gave_up_at: Date | null; status: string | null }>`
    SELECT sync, refusal_code, gave_up_at, status FROM bookings WHERE id = ${id}`.execute(w.app.db.kysely)).rows[0]!;
  const jobsOf = async (id: string) => (await sql<{ kind: string }>`SELECT kind FROM jobs WHERE payload->>'bookingId' = ${id}`.execute(w.app.db.kysely)).rows;
  const createsSent = async () => w.sim.control.requests({ operation: 'create' });
  const rmsBookingsAt = async (start: string) => (await w.sim.control.bookings('rms-venue-1')).filter((b) => new Date(b.date).getTime() === new Date(at(start)).getTime());

  beforeAll(async () => {
    // A short RMS time limit: a create whose answer is lost costs the test that long.
    w = await startChannelWorld({ app: { store, clock: new ManualClock(NOW), env: { RMS_TIMEOUT_MS: '1000' } } });
    ch = await w.channel('tableside', { name: 'Dine Finder' });
    g = await w.channel('google-v3', { name: 'Reserve with Google' });
    w.app.service.app.services.bookings.onChange(async (_tx, c) => {
      heard.push({ id: c.after.id, type: c.type, changedBy: c.changedBy });
    });
  });
  afterAll(async () => w?.close());
  beforeEach(async () => {
    clock().set(NOW);
    await w.sim.control.setClock({ set: NOW, frozen: true });
    await w.sim.control.setFailures({ mode: 'none', force402: null, slowMs: 0, operations: null });
    await w.sim.control.clearRequests();
    await w.setCompany({ minAdvanceBooking: 0, minAdvanceBookingCancelling: 0, includeSourceInNotes: false });
  });

  it('[BKG-41] [ERR-03] 400 and 422 from the RMS are the request\'s fault: the channel gets a 400 with the RMS\'s words, never a retry promise; the same key answers 400 again without a second create; Google gets a 400 too', async () => {
    const starts: Record<number, string> = { 400: '13:00', 422: '13:15' };
    for (const status of [400, 422]) {
      await w.sim.control.clearRequests();
      await w.sim.control.setFailures({ mode: 'status', status, operations: ['create'], count: 2 });
      const k = key();
      const first = await post(booking(starts[status]!), k);
      expect(first.status, `RMS ${status}`).toBe(400);
      expect(first.body.error.message, `RMS ${status}`).toMatch(/reservation system refused the request as invalid/);
      expect(first.headers['retry-after'], `RMS ${status}`).toBeUndefined();
      const again = await post(booking(starts[status]!), k);
      expect(again.status, `RMS ${status}`).toBe(400);
      expect(await createsSent(), `RMS ${status}`).toHaveLength(1);
      expect(await jobsOf(first.body.error.details?.bookingId ?? '00000000-0000-0000-0000-000000000000')).toEqual([]);
    }
    await w.sim.control.setFailures({ mode: 'status', status: 400, operations: ['create'], count: 1 });
    const google = await v3Create('13:30', 'invalid-1');
    expect(google.status).toBe(400);
    expect(google.headers['retry-after']).toBeUndefined();
  });

  it('[CHN-25] [ERR-03] availability the RMS refuses as invalid (400) is a 400 to the channel, not a 402 rms_unavailable', async () => {
    await w.sim.control.setFailures({ mode: 'status', status: 400, operations: ['availability'] });
    const res = await w.app.http.get(`/v1/bc/venues/${w.venueId}/availability`, { query: { date: '2025-06-11', partySize: '2' }, headers: { authorization: ch.auth } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/refused the request as invalid/);
  });

  it('[BKG-41] [CHN-09] 408, 429, 401 and 403 on a create are transient: 402 rms_unavailable naming the booking, nothing recorded as refused, and the same key books once the RMS answers', async () => {
    const starts: Record<number, string> = { 408: '12:00', 429: '12:15', 401: '12:30', 403: '12:45' };
    for (const status of [408, 429, 401, 403]) {
      await w.sim.control.clearRequests();
      await w.sim.control.setFailures({ mode: 'status', status, operations: ['create'], count: 1 });
      const k = key();
      const first = await post(booking(starts[status]!), k);
      expect(first.status, `RMS ${status}`).toBe(402);
      expect(first.body.error.details, `RMS ${status}`).toEqual({ code: 'rms_unavailable', bookingId: expect.any(String) });
      const id: string = first.body.error.details.bookingId;
      expect(await row(id), `RMS ${status}`).toMatchObject({ sync: 'creating', refusal_code: null });
      const again = await post(booking(starts[status]!), k);
      expect(again.status, `RMS ${status}`).toBe(200);
      expect(again.body).toMatchObject({ id, status: 'confirmed' });
      const sent = await createsSent();
      expect(sent.map((r) => r.headers['idempotency-key']), `RMS ${status}`).toEqual([`tableside-${id}`, `tableside-${id}`]);
      expect(await rmsBookingsAt(starts[status]!)).toHaveLength(1);
    }
  });

  it('[BKG-41] [CHN-14] Google: a 429 on CreateBooking is an HTTP 503 (never booking_failure CAUSE_UNSPECIFIED), and the same idempotency_token books once the RMS answers', async () => {
    await w.sim.control.setFailures({ mode: 'status', status: 429, operations: ['create'], count: 1 });
    const first = await v3Create('13:00', 'google-429');
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBeDefined();
    const again = await v3Create('13:00', 'google-429');
    expect(again.status).toBe(200);
    expect(again.body.booking_failure).toBeUndefined();
    expect(again.body.booking).toMatchObject({ status: 'CONFIRMED' });
    expect(await rmsBookingsAt('13:00')).toHaveLength(1);
  });

  it('[BKG-40] a create whose answer is lost after the RMS made it is sent again under the same key by the job: it stands, and the channel hears of it (changedBy system)', async () => {
    await w.sim.control.setFailures({ mode: 'act-then-hang', operations: ['create'], count: 1 });
    const k = key();
    const first = await post(booking('13:30'), k);
    expect(first.status).toBe(402);
    expect(first.body.error.details).toEqual({ code: 'rms_unavailable', bookingId: expect.any(String) });
    const id: string = first.body.error.details.bookingId;
    expect(await rmsBookingsAt('13:30')).toHaveLength(1); // made, though Tableside never heard
    clock().advance(w.app.config.rmsTimeoutMs + 6000);
    await w.app.service.runner.runDue();
    expect(await row(id)).toMatchObject({ sync: 'created', status: 'confirmed', gave_up_at: null });
    expect(heard.filter((h) => h.id === id)).toEqual([{ id, type: 'booking.created', changedBy: 'system' }]);
    const again = await post(booking('13:30'), k);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(id);
    expect(await rmsBookingsAt('13:30')).toHaveLength(1);
    expect(new Set((await createsSent()).map((r) => r.headers['idempotency-key']))).toEqual(new Set([`tableside-${id}`]));
    expect(await jobsOf(id)).toEqual([]);
  });

  it('[BKG-40] unresolved for 15 minutes the create is given up: sent again only until then, the same key answers the failure, and the booking the RMS made is found and cancelled (changedBy system)', async () => {
    await w.sim.control.setFailures({ mode: 'act-then-hang', operations: ['create'], count: 1 });
    const k = key();
    const first = await post(booking('14:00'), k);
    expect(first.status).toBe(402);
    const id: string = first.body.error.details.bookingId;
    // From now on the RMS answers every create with a 503: the outcome stays unknown.
    await w.sim.control.setFailures({ mode: 'status', status: 503, operations: ['create'] });
    for (let minute = 1; minute <= 20; minute += 1) {
      clock().advance(MINUTE);
      await w.app.service.runner.runDue();
    }
    const sent = await createsSent();
    // Sent again, with backoff, under the one key: never a second key, never after the 15 minutes.
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(new Set(sent.map((r) => r.headers['idempotency-key']))).toEqual(new Set([`tableside-${id}`]));
    const given = await row(id);
    expect(given).toMatchObject({ sync: 'refused', refusal_code: 'rms_unavailable', gave_up_at: expect.any(Date) });
    expect(given.gave_up_at!.getTime() - new Date(NOW).getTime()).toBe(15 * MINUTE);
    // The booking the first request made is cancelled at the RMS by Tableside, and the channel hears it.
    const [rms] = await rmsBookingsAt('14:00');
    expect(rms).toMatchObject({ status: 'canceled', cancelActor: 'system' });
    expect(given.status).toBe('canceled');
    expect(heard.filter((h) => h.id === id)).toEqual([{ id, type: 'booking.canceled', changedBy: 'system' }]);
    // The same key answers that failure from now on, and sends nothing.
    await w.sim.control.setFailures({ mode: 'none' });
    await w.sim.control.clearRequests();
    const again = await post(booking('14:00'), k);
    expect(again.status).toBe(402);
    expect(again.body.error.details).toEqual({ code: 'rms_unavailable', bookingId: id, final: true });
    expect(again.body.error.message).toMatch(/not made/);
    // No retry for ever: nothing is left to run, however long the service keeps going.
    clock().advance(3 * 60 * MINUTE);
    await w.app.service.runner.runDue();
    expect(await createsSent()).toEqual([]);
    expect(await jobsOf(id)).toEqual([]);
  });

  it('[BKG-40] a given-up create the RMS never made: Tableside looks for it for an hour, cancels nothing, and stops', async () => {
    await w.sim.control.setFailures({ mode: 'status', status: 503, operations: ['create'] });
    const first = await post(booking('14:30'), key());
    const id: string = first.body.error.details.bookingId;
    for (let minute = 1; minute <= 16; minute += 1) {
      clock().advance(MINUTE);
      await w.app.service.runner.runDue();
    }
    expect(await row(id)).toMatchObject({ sync: 'refused', gave_up_at: expect.any(Date), status: null });
    expect(await jobsOf(id)).toEqual([{ kind: 'rms.booking.look-for' }]);
    for (let step = 0; step < 14; step += 1) {
      clock().advance(5 * MINUTE);
      await w.app.service.runner.runDue();
    }
    const searches = await w.sim.control.requests({ operation: 'search' });
    expect(searches.length).toBeGreaterThanOrEqual(12);
    expect(searches.every((s) => s.query.venueId === 'rms-venue-1' && s.query.startDate === '2025-06-11' && s.query.email === contact.email)).toBe(true);
    expect(await w.sim.control.requests({ operation: 'cancel' })).toEqual([]);
    expect(await jobsOf(id)).toEqual([]);
    expect(await rmsBookingsAt('14:30')).toEqual([]);
  });

  it('[CHN-24] two cancels of one booking at once: one 200, the other 402 booking_already_cancelled; one booking.canceled', async () => {
    const made = await post(booking('18:00'), key());
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const answers = await Promise.all([cancel(made.body.id), cancel(made.body.id)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 402]);
    const refused = answers.find((a) => a.status === 402)!;
    expect(refused.body.error.details).toMatchObject({ code: 'booking_already_cancelled' });
    expect(answers.find((a) => a.status === 200)!.body.status).toBe('canceled');
    expect(heard.filter((h) => h.id === made.body.id).map((h) => h.type)).toEqual(['booking.created', 'booking.canceled']);
    // And a third, later: the same refusal.
    expect((await cancel(made.body.id)).body.error.details).toMatchObject({ code: 'booking_already_cancelled' });
  });

  it('[CHN-24] a booking the RMS already cancelled (Tableside not told): the RMS 402 booking_already_cancelled is the answer, and the record catches up', async () => {
    const made = await post(booking('18:15'), key());
    const rmsId = (await w.app.service.app.services.bookings.get(made.body.id)).rmsBookingId!;
    await w.sim.control.clearTableside(); // no notice reaches Tableside
    try {
      await (await w.app.service.app.services.bookingServices.client(w.partnerId))!.cancelBooking(rmsId, { cancelActor: 'venue' });
    } finally {
      await w.sim.control.setTableside({ tablesideUrl: w.app.url, apiKey: w.key, ca: testTls().cert });
    }
    const res = await cancel(made.body.id);
    expect(res.status).toBe(402);
    expect(res.body.error.details).toMatchObject({ code: 'booking_already_cancelled' });
    expect((await w.app.http.get(`/v1/bc/bookings/${made.body.id}`, { headers: { authorization: ch.auth } })).body.status).toBe('canceled');
  });

  it('[CHN-05] [CHN-13] idempotency first: after the venue is unlinked, the same key (and the same Google token) answers the booking; a new key is 403', async () => {
    const c = await w.channel('tableside');
    const k = key();
    const made = await post(booking('18:30'), k, c);
    expect(made.status).toBe(200);
    const gMade = await v3Create('18:45', 'google-unlink');
    expect(gMade.status).toBe(200);
    for (const channel of [c, g]) {
      const res = await w.app.http.put(`/v1/rms/booking-channels/${channel.id}/unlink-venues`, { token: w.key, body: { venues: [w.venueId] } });
      expect(res.status).toBe(200);
    }
    try {
      const again = await post(booking('18:30'), k, c);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(made.body);
      const gAgain = await v3Create('18:45', 'google-unlink');
      expect(gAgain.status).toBe(200);
      expect(gAgain.body.booking.booking_id).toBe(gMade.body.booking.booking_id);
      expect((await post(booking('19:00'), key(), c)).status).toBe(403);
      expect((await v3Create('19:00', 'google-unlink-new')).status).toBe(403);
      expect(await rmsBookingsAt('19:00')).toEqual([]);
    } finally {
      await w.app.http.put(`/v1/rms/booking-channels/${g.id}/link-venues`, { token: w.key, body: { venues: [w.venueId] } });
    }
  });

  it('[DES-027] [BKG-07] the paymentToken is never kept in clear: sealed while the create may be sent again (the very same body), gone once it is settled', async () => {
    const token = 'tok_visa_4242_secret';
    await w.sim.control.setFailures({ mode: 'status', status: 503, operations: ['create'], count: 1 });
    const k = key();
    const first = await post(booking('19:15', { paymentToken: token }), k);
    expect(first.status).toBe(402);
    const id: string = first.body.error.details.bookingId;
    const stored = async () => (await sql<{ text: string; sealed: string | null }>`
      SELECT b::text AS text, payment_token_sealed AS sealed FROM bookings b WHERE id = ${id}`.execute(w.app.db.kysely)).rows[0]!;
    const pending = await stored();
    expect(pending.text).not.toContain(token);
    expect(pending.sealed).toMatch(/^v1\./);
    const again = await post(booking('19:15', { paymentToken: token }), k);
    expect(again.status).toBe(200);
    const sent = await createsSent();
    expect(sent.map((r) => (r.body as { paymentToken?: string }).paymentToken)).toEqual([token, token]);
    expect(sent[1]!.body).toEqual(sent[0]!.body);
    const settled = await stored();
    expect(settled.sealed).toBeNull();
    expect(settled.text).not.toContain(token);
  });

  it('[CHN-22] a venue without a currency cannot take a deposit: its deposit slots are not offered in a guessed currency, and booking one (or any paymentToken there) is a 422', async () => {
    const c = await w.channel('tableside', { link: [w.otherVenueId] });
    await sql`UPDATE venues SET currency = NULL WHERE id = ${w.otherVenueId}`.execute(w.app.db.kysely);
    try {
      const rms = await (await w.app.service.app.services.bookingServices.client(w.partnerId))!.availability({ venueId: 'rms-venue-2', date: '2025-06-11', partySize: 2 });
      expect(rms.slots.some((s) => s.deposit)).toBe(true);
      const res = await w.app.http.get(`/v1/bc/venues/${w.otherVenueId}/availability?date=2025-06-11&partySize=2`, { headers: { authorization: c.auth } });
      expect(res.status).toBe(200);
      expect(res.body.slots.every((s: { deposit: unknown }) => s.deposit === null)).toBe(true);
      expect(res.body.slots).toHaveLength(rms.slots.filter((s) => !s.deposit).length);
      const start = rms.slots.find((s) => s.deposit)!.start.toISOString();
      const booked = await post({ venueId: w.otherVenueId, partySize: 2, start, contact, paymentToken: 'tok_1' }, key(), c);
      expect(booked.status).toBe(422);
      expect(booked.body.error.details).toMatchObject({ code: 'no_currency' });
      expect(booked.body.error.message).toMatch(/currency/);
      // Without a token too: the slot needs a deposit the venue cannot state.
      const noToken = await post({ venueId: w.otherVenueId, partySize: 2, start, contact }, key(), c);
      expect(noToken.status).toBe(422);
      expect(noToken.body.error.details).toMatchObject({ code: 'no_currency' });
      expect(await w.sim.control.requests({ operation: 'create' })).toEqual([]);
    } finally {
      await sql`UPDATE venues SET currency = 'GBP' WHERE id = ${w.otherVenueId}`.execute(w.app.db.kysely);
    }
  });
});
