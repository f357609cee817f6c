import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { awaitEpoch, currentEpoch } from '../../src/auth/credential-cache.ts';
import { describeEachStore } from '../helpers/db.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import type { CreateBookingInput } from '../../src/rms/bookings.service.ts';
import { RmsError } from '../../src/rms/rms-client.ts';
import { bookingHistory, startRmsWorld, type RmsWorld } from './world.ts';

// The bookings service against the reference RMS over HTTPS: every booking made through Tableside
// is recorded with its RMS id, statuses and history, with an outbox event per change.

const NOW = '2025-06-10T09:00:00Z';
/** A channel id as channels have them (a uuid): the channels' listeners look it up. */
const CHANNEL_ID = '0190f0f0-0000-7000-8000-00000000c4a1';
const at = (hhmm: string, day = '2025-06-11') => new Date(`${day}T${hhmm}:00+01:00`);

async function events(w: RmsWorld, entityId: string) {
  const { rows } = await sql<{ type: string; partner_id: string; venue_id: string; data: any }>`
    SELECT type, partner_id, venue_id, data FROM outbox WHERE entity_id = ${entityId} ORDER BY created_at, id`.execute(w.app.db.kysely);
  return rows;
}

describeEachStore('bookings made through Tableside', (store) => {
  let w: RmsWorld;
  let input: (over?: Partial<CreateBookingInput>) => CreateBookingInput;
  beforeAll(async () => {
    w = await startRmsWorld({ app: { store, clock: new ManualClock(NOW) } });
    input = (over = {}) => ({
      venueId: w.venueId,
      channel: { id: CHANNEL_ID, name: 'Test channel' },
      partySize: 2,
      date: at('19:00'),
      contact: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', telephone: '+44 20 7946 0001' },
      notes: 'window seat',
      ...over,
    });
  });
  afterAll(async () => w?.close());
  beforeEach(async () => {
    await w.sim.control.setClock({ set: NOW, frozen: true });
    await w.sim.control.setFailures({ mode: 'none', force402: null, slowMs: 0, operations: null });
    await w.sim.control.clearRequests();
  });
  const bookings = () => w.app.service.app.services.bookings;

  it('[BKG-05] [DES-105] a create sends the venue externalId, records the RMS id and status, and emits booking.created', async () => {
    const { booking, pending } = await bookings().create(input());
    expect(pending).toBe(false);
    expect(booking).toMatchObject({ venueId: w.venueId, rmsVenueId: 'rms-venue-1', status: 'confirmed', partySize: 2, date: at('19:00').toISOString(), channel: { id: CHANNEL_ID, name: 'Test channel' }, sequence: 1 });
    const sent = await w.sim.control.requests({ operation: 'create' });
    expect(sent.map((r) => (r.body as any).venueId)).toEqual(['rms-venue-1']);
    const rms = await w.sim.control.getBooking(booking.rmsBookingId!);
    expect(rms.status).toBe('confirmed');
    expect(['pending_confirmation', 'requires_payment', 'confirmed', 'rejected', 'canceled', 'no-show', 'seated', 'completed']).toContain(booking.status);
    const ev = await events(w, booking.id);
    expect(ev.map((e) => e.type)).toEqual(['booking.created']);
    expect(ev[0]).toMatchObject({ partner_id: w.partnerId, venue_id: w.venueId, data: { id: booking.id, rmsBookingId: booking.rmsBookingId, status: 'confirmed' } });
    expect((await bookingHistory(w, booking.id)).map((c) => c.cause)).toEqual(['created']);
  });

  it('[BKG-05] change and cancel use the RMS booking id; each is recorded with history and booking.updated / booking.canceled', async () => {
    const { booking } = await bookings().create(input({ date: at('19:15') }));
    const changed = await bookings().change(booking.id, { partySize: 3 });
    expect(changed).toMatchObject({ partySize: 3, status: 'confirmed', sequence: 2 });
    const canceled = await bookings().cancel(booking.id, { cancelActor: 'guest', cancelReason: 'plans changed' });
    expect(canceled).toMatchObject({ status: 'canceled', sequence: 3 });
    const paths = (await w.sim.control.requests()).filter((r) => r.operation === 'update' || r.operation === 'cancel').map((r) => r.path);
    expect(paths).toEqual([`/booking/${booking.rmsBookingId}`, `/booking/${booking.rmsBookingId}/cancel`]);
    expect((await events(w, booking.id)).map((e) => e.type)).toEqual(['booking.created', 'booking.updated', 'booking.canceled']);
    const history = await bookingHistory(w, booking.id);
    expect(history.map((c) => c.cause)).toEqual(['created', 'changed through Tableside', 'canceled through Tableside (guest)']);
    expect(history[1]!.changes).toMatchObject({ partySize: { from: 2, to: 3 } });
  });

  it('[BKG-08] a 402 keeps its code, records the booking as refused, and emits nothing', async () => {
    await w.sim.control.setFailures({ force402: 'slot_unavailable', operations: ['create'], count: 1 });
    const err = await bookings().create(input({ idempotencyKey: 'chan-1:refused-1' })).catch((e) => e);
    expect(err).toBeInstanceOf(RmsError);
    expect(err).toMatchObject({ kind: 'refused', code: 'slot_unavailable' });
    const { rows } = await sql<{ id: string; sync: string; refusal_code: string }>`SELECT id, sync, refusal_code FROM bookings WHERE idempotency_key = 'chan-1:refused-1'`.execute(w.app.db.kysely);
    expect(rows).toEqual([{ id: expect.any(String), sync: 'refused', refusal_code: 'slot_unavailable' }]);
    expect(await events(w, rows[0]!.id)).toEqual([]);
    // The same key again answers the same refusal without asking the RMS again.
    await w.sim.control.clearRequests();
    expect(await bookings().create(input({ idempotencyKey: 'chan-1:refused-1' })).catch((e) => e)).toMatchObject({ code: 'slot_unavailable' });
    expect(await w.sim.control.requests({ operation: 'create' })).toEqual([]);
  });

  it('[BKG-08] a change the RMS refuses (402) keeps its code and changes nothing in the record', async () => {
    const { booking } = await bookings().create(input({ date: at('18:45') }));
    await w.sim.control.setFailures({ force402: 'booking_not_modifiable', operations: ['update'], count: 1 });
    const err = await bookings().change(booking.id, { partySize: 4 }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'refused', code: 'booking_not_modifiable' });
    expect(await bookings().get(booking.id)).toMatchObject({ partySize: 2, sequence: 1 });
    expect((await events(w, booking.id)).map((e) => e.type)).toEqual(['booking.created']);
  });

  it('[RMS-29] a booking with less notice than the company minAdvanceBooking is refused (outside_booking_window)', async () => {
    await w.sim.control.setClock({ set: '2025-06-11T10:30:00Z', frozen: true }); // rms-venue-1: 3600 s
    const err = await bookings().create(input({ date: at('12:00') })).catch((e) => e);
    expect(err).toMatchObject({ kind: 'refused', code: 'outside_booking_window' });
    const ok = await bookings().create(input({ date: at('13:00') }));
    expect(ok.booking.status).toBe('confirmed');
  });

  it('[RMS-30] cancelling with less notice than minAdvanceBookingCancelling is refused and the record is unchanged', async () => {
    const { booking } = await bookings().create(input({ date: at('20:00') }));
    await w.sim.control.setClock({ set: '2025-06-11T18:00:00Z', frozen: true }); // 1 h before; rms-venue-1: 7200 s
    const err = await bookings().cancel(booking.id).catch((e) => e);
    expect(err).toMatchObject({ kind: 'refused', code: 'outside_cancellation_window' });
    expect((await bookings().get(booking.id)).status).toBe('confirmed');
    expect((await events(w, booking.id)).map((e) => e.type)).toEqual(['booking.created']);
  });

  it('[BKG-07] a create the RMS does not answer is retried durably with the same Idempotency-Key and made once', async () => {
    await w.sim.control.setFailures({ mode: 'error5xx', operations: ['create'], count: 1 });
    const first = await bookings().create(input({ date: at('20:30'), idempotencyKey: 'chan-1:retry-1' }));
    expect(first.pending).toBe(true);
    expect(first.booking.status).toBeNull();
    // The same channel key while pending asks the RMS again with the same key (the RMS is back): made once.
    const again = await bookings().create(input({ date: at('20:30'), idempotencyKey: 'chan-1:retry-1' }));
    expect(again.pending).toBe(false);
    expect(again.booking.id).toBe(first.booking.id);
    const creates = await w.sim.control.requests({ operation: 'create' });
    expect(creates.length).toBe(2);
    expect(new Set(creates.map((r) => r.headers['idempotency-key']))).toEqual(new Set([`tableside-${first.booking.id}`]));
    expect((await events(w, first.booking.id)).map((e) => e.type)).toEqual(['booking.created']);
  });

  it('[BKG-07] with no caller retry, the durable job resolves the unknown outcome under the same key', async () => {
    await w.sim.control.setFailures({ mode: 'hang', operations: ['create'], count: 1 });
    const clock = w.app.clock as ManualClock;
    const first = await bookings().create(input({ date: at('21:00') }));
    expect(first.pending).toBe(true);
    clock.advance(w.app.config.rmsTimeoutMs + 6000);
    await w.app.service.runner.runDue();
    const after = await bookings().get(first.booking.id);
    expect(after.status).toBe('confirmed');
    const creates = await w.sim.control.requests({ operation: 'create' });
    expect(creates.length).toBe(2);
    expect(creates[0]!.headers['idempotency-key']).toBe(creates[1]!.headers['idempotency-key']);
    const rmsBookings = (await w.sim.control.bookings('rms-venue-1')).filter((b) => new Date(b.date).getTime() === at('21:00').getTime());
    expect(rmsBookings.length).toBe(1);
    expect((await events(w, first.booking.id)).map((e) => e.type)).toEqual(['booking.created']);
  });

  it('a partner without booking services: not_connected, nothing recorded', async () => {
    await sql`DELETE FROM rms_booking_services`.execute(w.app.db.kysely);
    // The endpoint is kept in the process's credential cache; the delete bumped the epoch (migration
    // 025) and, like every change through the API, is seen once every holder has dropped it.
    await awaitEpoch(w.app.db.kysely, await currentEpoch(w.app.db.kysely));
    try {
      const before = await sql<{ n: number }>`SELECT count(*)::int AS n FROM bookings`.execute(w.app.db.kysely);
      const err = await bookings().create(input({ date: at('21:30') })).catch((e) => e);
      expect(err).toMatchObject({ kind: 'not_connected' });
      const after = await sql<{ n: number }>`SELECT count(*)::int AS n FROM bookings`.execute(w.app.db.kysely);
      expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    } finally {
      await w.app.http.put('/v1/rms/booking-services', { token: w.key, body: { baseUrl: w.sim.baseUrl, apiKey: w.sim.apiKey } });
    }
  });
});
