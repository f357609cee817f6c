import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { RmsClients, RmsError, type RmsClient, type CreateBookingRequest } from '../../src/rms/rms-client.ts';

// The booking-services client against the reference RMS over real HTTPS (DESIGN 8.2).

const NOW = '2025-06-10T09:00:00Z';
const at = (hhmm: string) => `2025-06-11T${hhmm}:00+01:00`;
const body = (over: Partial<CreateBookingRequest> = {}): CreateBookingRequest => ({
  venueId: 'rms-venue-1',
  bookingChannel: { id: 'chan', name: 'Channel' },
  partySize: 2,
  date: at('19:00'),
  contact: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', telephone: '+44 20 7946 0001' },
  notes: 'window',
  ...over,
});

// Over HTTP/1.1 and over HTTP/2: the client offers h2 by ALPN (issue 28), so an RMS that offers it too is spoken to in h2.
describe.each([['HTTP/1.1', false], ['HTTP/2', true]] as const)('the booking-services client, the RMS offering %s', (_, http2) => {
  let sim: RmsSimulator;
  let clients: RmsClients;
  let client: RmsClient;
  let n = 0;
  const key = () => `client-test-${process.pid}-${++n}`;

  beforeAll(async () => {
    sim = await startRmsSimulator({ seed: true, http2 });
    clients = new RmsClients({ timeoutMs: 1500, allowPrivate: true });
    clients.trust(sim.ca);
    client = clients.for('partner', { baseUrl: sim.baseUrl, apiKey: sim.apiKey });
  });
  afterAll(async () => {
    await clients?.close();
    await sim?.close();
  });
  beforeEach(async () => {
    await sim.control.setClock({ set: NOW, frozen: true });
    await sim.control.setFailures({ mode: 'none', force402: null, slowMs: 0, operations: null });
    await sim.control.clearRequests();
  });

  it('[BKG-04] every call of the contract carries Authorization: Bearer <key> over HTTPS, and reads the answer', async () => {
    await client.healthcheck();
    const availability = await client.availability({ venueId: 'rms-venue-1', date: '2025-06-11', partySize: 2 });
    expect(availability.slots.length).toBeGreaterThan(0);
    expect(availability.slots[0]!.start).toBeInstanceOf(Date);
    const created = await client.createBooking(key(), body());
    expect(created).toEqual({ id: expect.any(String), status: 'confirmed' });
    const read = await client.getBooking(created.id);
    expect(read).toMatchObject({ id: created.id, venueId: 'rms-venue-1', status: 'confirmed', partySize: 2, notes: 'window' });
    expect(read.date).toEqual(new Date(at('19:00')));
    expect(await client.updateBooking(created.id, { partySize: 3 })).toEqual({ id: created.id, status: 'confirmed' });
    const found = await client.searchBookings({ venueId: 'rms-venue-1', startDate: '2025-06-11', endDate: '2025-06-11' });
    expect(found.data.map((b) => b.id)).toContain(created.id);
    expect(found.data.find((b) => b.id === created.id)!.partySize).toBe(3);
    expect(await client.cancelBooking(created.id, { cancelActor: 'guest' })).toEqual({ id: created.id, status: 'canceled' });
    const sent = await sim.control.requests();
    expect(new Set(sent.map((r) => r.operation))).toEqual(new Set(['healthcheck', 'availability', 'create', 'read', 'update', 'search', 'cancel']));
    for (const r of sent) expect(r.headers.authorization, r.path).toBe(`Bearer ${sim.apiKey}`);
    // A healthy RMS is asked over HTTP/1.1 (an HTTP/2 request carries its method as :method).
    for (const r of sent) expect(r.headers[':method'], r.path).toBeUndefined();
  });

  it('[BKG-07] every create carries an Idempotency-Key; a retry with the same key and body gets the same booking', async () => {
    const k = key();
    const first = await client.createBooking(k, body({ date: at('19:30') }));
    const again = await client.createBooking(k, body({ date: at('19:30') }));
    expect(again.id).toBe(first.id);
    const creates = await sim.control.requests({ operation: 'create' });
    expect(creates.map((r) => r.headers['idempotency-key'])).toEqual([k, k]);
    await expect(client.createBooking('', body())).rejects.toThrow(/Idempotency-Key/);
    const conflict = await client.createBooking(k, body({ date: at('20:00') })).catch((e) => e);
    expect(conflict).toBeInstanceOf(RmsError);
    expect(conflict.kind).toBe('conflict');
  });

  it('[BKG-08] a 402 is an RmsError "refused" with the code exactly as the RMS sent it', async () => {
    for (const code of ['slot_unavailable', 'payment_required', 'outside_booking_window'] as const) {
      await sim.control.setFailures({ force402: code, operations: ['create'], count: 1 });
      const err = await client.createBooking(key(), body()).catch((e) => e);
      expect(err).toBeInstanceOf(RmsError);
      expect(err.kind).toBe('refused');
      expect(err.code).toBe(code);
      expect(err.status).toBe(402);
    }
  });

  it('an RMS answering 5xx, garbage, slowly or not at all is a typed RmsError (availability gives up after 1 s)', async () => {
    await sim.control.setFailures({ mode: 'error5xx', operations: ['read'], count: 1 });
    const failed = await client.getBooking('x').catch((e) => e);
    expect(failed).toMatchObject({ kind: 'status' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    await sim.control.setFailures({ mode: 'garbage', operations: ['availability'], count: 1 });
    expect(await client.availability({ venueId: 'rms-venue-1', date: '2025-06-11', partySize: 2 }).catch((e) => e)).toMatchObject({ kind: 'bad_answer' });
    await sim.control.setFailures({ mode: 'hang', operations: ['availability'], count: 1 });
    const hung = await client.availability({ venueId: 'rms-venue-1', date: '2025-06-11', partySize: 2 }).catch((e) => e);
    expect(hung).toMatchObject({ kind: 'timeout' });
    expect(hung.message).toMatch(/1000 ms/); // the 1 s availability limit, not RMS_TIMEOUT_MS (1500 here)
    await sim.control.setFailures({ mode: 'hang', operations: ['read'], count: 1 });
    expect(await client.getBooking('x').catch((e) => e)).toMatchObject({ kind: 'timeout', message: expect.stringMatching(/1500 ms/) });
    expect(await client.getBooking('no-such-booking').catch((e) => e)).toMatchObject({ kind: 'not_found' });
  });

  it(`once a lookup timed out, the next ones go over ${http2 ? 'HTTP/2' : 'HTTP/1.1'}; answers, failures, the 8 MiB cap and the 1 s limit read as before`, async () => {
    const lookup = (limitMs?: number) => client.availability({ venueId: 'rms-venue-1', date: '2025-06-11', partySize: 2 }, limitMs);
    await sim.control.setFailures({ mode: 'hang', operations: ['availability'], count: 1 });
    expect(await lookup().catch((e) => e)).toMatchObject({ kind: 'timeout' });
    await sim.control.clearRequests();
    expect((await lookup()).slots.length).toBeGreaterThan(0);
    await sim.control.setFailures({ mode: 'garbage', operations: ['availability'], count: 1 });
    expect(await lookup().catch((e) => e)).toMatchObject({ kind: 'bad_answer' });
    await sim.control.setFailures({ mode: 'status', status: 429, operations: ['availability'], count: 1 });
    expect(await lookup().catch((e) => e)).toMatchObject({ kind: 'status', status: 429 });
    await sim.control.setFailures({ mode: 'error5xx', operations: ['availability'], count: 1 });
    expect(await lookup().catch((e) => e)).toMatchObject({ kind: 'status', status: 503 });
    await sim.control.setOversized({ bytes: 9 * 1024 * 1024, chunked: true, count: 1 });
    // Its own limit, longer than the 1 s: reading 8 MiB before the cap refuses the rest took longer
    // than a second once on a loaded machine (CI beside benches), a timeout instead of the cap.
    expect(await lookup(5000).catch((e) => e)).toMatchObject({ kind: 'bad_answer', message: expect.stringMatching(/over 8388608 bytes/) });
    // Held until the loop ends, not counted: a counted hang can be used up by a request this loop did
    // not make (CI under load, once: the second lookup got an answer; likely a lookup given up earlier
    // reaching the RMS late through undici's reconnect, bench/README.md sixth availability round).
    await sim.control.setFailures({ mode: 'hang', operations: ['availability'] });
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      expect(await lookup().catch((e) => e)).toMatchObject({ kind: 'timeout', message: expect.stringMatching(/1000 ms/) });
      expect(Date.now() - started).toBeLessThan(1400);
    }
    await sim.control.setFailures({ mode: 'none' });
    expect((await lookup()).slots.length).toBeGreaterThan(0);
    const sent = await sim.control.requests({ operation: 'availability' });
    expect(sent.length).toBeGreaterThanOrEqual(7);
    for (const r of sent) expect(r.headers[':method']).toBe(http2 ? 'GET' : undefined);
    // The other calls stay on the HTTP/1.1 pool.
    await client.healthcheck();
    expect((await sim.control.requests({ operation: 'healthcheck' })).map((r) => r.headers[':method'])).toEqual([undefined]);
  });

  it('a wrong key is an RmsError with the 401 status; nothing is thrown past the client untyped', async () => {
    const wrong = clients.for('other', { baseUrl: sim.baseUrl, apiKey: 'wrong' });
    expect(await wrong.healthcheck().catch((e) => e)).toMatchObject({ kind: 'status', status: 401 });
  });
});
