import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/db.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import type { CreateBookingInput } from '../../src/rms/bookings.service.ts';
import { eventually } from '../helpers/eventually.ts';
import { testTls } from '../helpers/http.ts';
import { bookingHistory, startRmsWorld, type RmsWorld } from './world.ts';

// Update notices (DESIGN 8.3a): the simulator sends them to Tableside over HTTPS when its bookings
// change; Tableside answers 202 and a durable job re-reads the booking and applies it.

const NOW = '2025-06-10T09:00:00Z';
const at = (hhmm: string) => new Date(`2025-06-11T${hhmm}:00+01:00`);

describeEachStore('POST /v1/rms/notifications', (store) => {
  let w: RmsWorld;
  let clock: ManualClock;
  let slot = 0;
  const times = ['18:00', '18:15', '18:30', '18:45', '19:00', '19:15', '19:30', '19:45', '20:00', '20:15'];
  const input = (): CreateBookingInput => ({
    venueId: w.venueId,
    channel: { id: 'chan-1', name: 'Test channel' },
    partySize: 2,
    date: at(times[slot++ % times.length]!),
    contact: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', telephone: '+44 20 7946 0001' },
  });
  const bookings = () => w.app.service.app.services.bookings;
  const notify = (body: unknown, webhookId?: string) =>
    w.app.http.post('/v1/rms/notifications', { token: w.key, body, headers: webhookId ? { 'webhook-id': webhookId } : {} });
  const types = async (id: string) =>
    (await sql<{ type: string }>`SELECT type FROM outbox WHERE entity_id = ${id} ORDER BY created_at, id`.execute(w.app.db.kysely)).rows.map((r) => r.type);
  const notices = async (entityId: string) =>
    (await sql<{ outcome: string | null }>`SELECT outcome FROM rms_notices WHERE entity_id = ${entityId} ORDER BY received_at, id`.execute(w.app.db.kysely)).rows.map((r) => r.outcome);

  beforeAll(async () => {
    clock = new ManualClock(NOW);
    w = await startRmsWorld({ app: { store, clock, env: { RMS_TIMEOUT_MS: '1500' } } });
  });
  afterAll(async () => w?.close());
  beforeEach(async () => {
    await w.sim.control.setClock({ set: NOW, frozen: true });
    await w.sim.control.setFailures({ mode: 'none', force402: null, slowMs: 0, operations: null });
    // Only the first test lets the simulator send its own notices; the others send them by hand.
    await w.sim.control.clearTableside();
  });

  it('[BKG-17] a change made at the RMS is sent as a notice, answered 202, re-read and applied (status, partySize, date)', async () => {
    await w.sim.control.setTableside({ tablesideUrl: w.app.url, apiKey: w.key, ca: testTls().cert });
    const { booking } = await bookings().create(input());
    // Staff move the booking at the RMS (the contract's PUT, as another channel would) then seat it.
    const moved = await w.app.service.app.services.bookingServices.client(w.partnerId);
    await moved!.updateBooking(booking.rmsBookingId!, { partySize: 3, date: at('20:30').toISOString() });
    await w.sim.control.seat(booking.rmsBookingId!, { posTableIds: ['201'] });
    const log = await eventually(async () => {
      const sent = (await w.sim.control.outbound()).filter((e: any) => e.kind === 'notice' && e.body.entityId === booking.rmsBookingId);
      expect(sent.length).toBeGreaterThanOrEqual(2); // the create's own, the move, the seating
      expect(sent.every((e: any) => e.attempts[0]?.status === 202)).toBe(true);
      return sent;
    }, { what: 'the notices delivered with 202' });
    expect(log.at(-1)!.body).toMatchObject({ entity: 'booking', action: 'update' });
    await w.app.service.runner.runDue();
    const now = await bookings().get(booking.id);
    expect(now).toMatchObject({ status: 'seated', partySize: 3, date: at('20:30').toISOString() });
    // The move and the seating arrive as one or two notices (the simulator sends them as they happen):
    // booking.created, any booking.updated, and booking.seated last.
    const seen = await types(booking.id);
    expect(seen[0]).toBe('booking.created');
    expect(seen.at(-1)).toBe('booking.seated');
    expect(seen.slice(1, -1).every((t) => t === 'booking.updated')).toBe(true);
    expect((await notices(booking.rmsBookingId!)).every((o) => o === 'updated' || o === 'unchanged' || o === 'duplicate')).toBe(true);
  });

  it('[BKG-17] a notice the RMS cannot answer for yet is retried until it is processed', async () => {
    const { booking } = await bookings().create(input());
    await w.sim.control.setFailures({ mode: 'error5xx', operations: ['read'] });
    const res = await notify({ entity: 'booking', entityId: booking.rmsBookingId, action: 'cancel' });
    expect(res.status).toBe(202);
    await w.app.service.runner.runDue();
    expect(await notices(booking.rmsBookingId!)).toEqual([null]);
    clock.advance(10 * 60_000);
    await w.app.service.runner.runDue();
    expect(await notices(booking.rmsBookingId!)).toEqual([null]);
    await w.sim.control.setFailures({ mode: 'none', operations: null });
    // Cancelled at the RMS directly (say, by phone) while Tableside could not read it.
    const rms = await w.app.service.app.services.bookingServices.client(w.partnerId);
    await rms!.cancelBooking(booking.rmsBookingId!, { cancelActor: 'restaurant' });
    clock.advance(10 * 60_000);
    await w.app.service.runner.runDue();
    expect((await bookings().get(booking.id)).status).toBe('canceled');
    expect(await types(booking.id)).toEqual(['booking.created', 'booking.canceled']);
  });

  it('[BKG-18] repeated and out-of-order notices converge on the RMS state; a repeated webhook-id is absorbed', async () => {
    const { booking } = await bookings().create(input());
    const rmsId = booking.rmsBookingId!;
    const rms = await w.app.service.app.services.bookingServices.client(w.partnerId);
    await rms!.updateBooking(rmsId, { partySize: 4 });
    await rms!.cancelBooking(rmsId, {});
    // The cancel's notice arrives first, then the older update's, then the same update again.
    expect((await notify({ entity: 'booking', entityId: rmsId, action: 'cancel' }, `wh-${rmsId}-2`)).body.status).toBe('accepted');
    expect((await notify({ entity: 'booking', entity_id: rmsId, action: 'update' }, `wh-${rmsId}-1`)).body.status).toBe('accepted');
    const repeat = await notify({ entity: 'booking', entity_id: rmsId, action: 'update' }, `wh-${rmsId}-1`);
    expect(repeat.status).toBe(202);
    expect(repeat.body.status).toBe('duplicate');
    await w.app.service.runner.runDue();
    expect(await bookings().get(booking.id)).toMatchObject({ status: 'canceled', partySize: 4 });
    expect(await types(booking.id)).toEqual(['booking.created', 'booking.canceled']);
    // Both notices processed (one re-read applied the state; a concurrent one found nothing to change);
    // the repeated webhook-id left no row of its own.
    const outcomes = await notices(rmsId);
    expect(outcomes.length).toBe(2);
    expect(outcomes).toContain('updated');
    expect(outcomes.every((o) => o === 'updated' || o === 'unchanged')).toBe(true);
  });

  it('[BKG-18] the same body within 24 h while the first waits is absorbed; after it was processed, a re-read changes nothing when the state did not', async () => {
    const { booking } = await bookings().create(input());
    const rmsId = booking.rmsBookingId!;
    const body = { entity: 'booking', entityId: rmsId, action: 'update' };
    expect((await notify(body, `a-${rmsId}`)).body.status).toBe('accepted');
    expect((await notify(body, `b-${rmsId}`)).body.status).toBe('duplicate');
    await w.app.service.runner.runDue();
    expect(await notices(rmsId)).toEqual(['unchanged', 'duplicate']);
    expect((await notify(body, `c-${rmsId}`)).body.status).toBe('accepted');
    await w.app.service.runner.runDue();
    expect(await types(booking.id)).toEqual(['booking.created']);
    expect((await bookingHistory(w, booking.id)).length).toBe(1);
  });

  /** Waits until the RMS has built its answer to a held (lagMs) read of the booking: what it read is fixed. */
  const readHeld = (rmsId: string) => eventually(async () => {
    const reads = await w.sim.control.requests({ operation: 'read' });
    expect(reads.some((r) => r.path === `/booking/${rmsId}` && r.laggingSince !== undefined)).toBe(true);
  }, { what: 'the re-read answered by the RMS and held on its way' });

  it('[BKG-42] a notice identical to one whose re-read has started is not absorbed: it re-reads and its change is applied', async () => {
    const { booking } = await bookings().create(input());
    const rmsId = booking.rmsBookingId!;
    const body = { entity: 'booking', entityId: rmsId, action: 'update' };
    const rms = (await w.app.service.app.services.bookingServices.client(w.partnerId))!;
    await w.sim.control.clearRequests();
    // The first notice's re-read reads the booking as it is (party of 2); its answer comes late.
    await w.sim.control.setFailures({ lagMs: 1000, operations: ['read'], count: 1 });
    expect((await notify(body, `first-${rmsId}`)).body.status).toBe('accepted');
    const firstRun = w.app.service.runner.runDue();
    await readHeld(rmsId);
    // Meanwhile staff change the booking; the RMS sends the same body again (notices carry no data).
    await rms.updateBooking(rmsId, { partySize: 5 });
    expect((await notify(body, `second-${rmsId}`)).body.status).toBe('accepted');
    await firstRun;
    clock.advance(60_000);
    await w.app.service.runner.runDue();
    expect(await bookings().get(booking.id)).toMatchObject({ partySize: 5, status: 'confirmed' });
    expect(await types(booking.id)).toEqual(['booking.created', 'booking.updated']);
    expect(await notices(rmsId)).toEqual(['unchanged', 'updated']);
  });

  it('[BKG-43] two re-reads of one booking at once end at the RMS\'s latest state, with updatedAt unchanged between its states', async () => {
    // The simulator's clock is frozen: every state of the booking has the same updatedAt (as an RMS
    // with whole-second timestamps gives two changes within a second).
    const { booking } = await bookings().create(input());
    const rmsId = booking.rmsBookingId!;
    const rms = (await w.app.service.app.services.bookingServices.client(w.partnerId))!;
    await w.sim.control.clearRequests();
    await rms.updateBooking(rmsId, { partySize: 3 });
    await w.sim.control.setFailures({ lagMs: 1000, operations: ['read'], count: 1 });
    expect((await notify({ entity: 'booking', entityId: rmsId, action: 'update' })).body.status).toBe('accepted');
    const slowRead = w.app.service.runner.runDue(); // reads "party of 3, confirmed", answered late
    await readHeld(rmsId);
    await rms.cancelBooking(rmsId, { cancelActor: 'restaurant' });
    expect((await notify({ entity: 'booking', entityId: rmsId, action: 'cancel' })).body.status).toBe('accepted');
    // The cancel's notice is run at once beside the slow re-read (the runner runs jobs concurrently).
    await w.app.service.runner.runDue();
    await slowRead;
    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      await w.app.service.runner.runDue();
    }
    expect(await bookings().get(booking.id)).toMatchObject({ status: 'canceled', partySize: 3 });
    expect((await types(booking.id)).at(-1)).toBe('booking.canceled');
    expect(await notices(rmsId)).not.toContain(null);
  });

  it('[BKG-43] a re-read that outlived its claim\'s lease writes nothing: the re-read that took over wins', async () => {
    const { booking } = await bookings().create(input());
    const rmsId = booking.rmsBookingId!;
    const rms = (await w.app.service.app.services.bookingServices.client(w.partnerId))!;
    await w.sim.control.clearRequests();
    await w.sim.control.setFailures({ lagMs: 1000, operations: ['read'], count: 1 });
    expect((await notify({ entity: 'booking', entityId: rmsId, action: 'update' })).body.status).toBe('accepted');
    const slowRead = w.app.service.runner.runDue(); // reads "confirmed", answered late
    await readHeld(rmsId);
    // The slow re-read's lease runs out (a paused process, say): the database's clock passes its end.
    await sql`UPDATE bookings SET reread_until = now() - interval '1 second' WHERE id = ${booking.id}`.execute(w.app.db.kysely);
    await rms.cancelBooking(rmsId, { cancelActor: 'restaurant' });
    expect((await notify({ entity: 'booking', entityId: rmsId, action: 'cancel' })).body.status).toBe('accepted');
    await w.app.service.runner.runDue(); // claims the booking over the lapsed lease, reads "canceled"
    await slowRead;
    expect((await bookings().get(booking.id)).status).toBe('canceled');
    expect(await types(booking.id)).toEqual(['booking.created', 'booking.canceled']);
    expect(await notices(rmsId)).toEqual(['updated', 'updated']);
  });

  it('[BKG-18] a notice about a booking whose create is still unanswered waits for it, then applies (never "unknown")', async () => {
    await w.sim.control.setTableside({ tablesideUrl: w.app.url, apiKey: w.key, ca: testTls().cert });
    // The RMS makes the booking but answers after Tableside gave up (RMS_TIMEOUT_MS 1.5 s here).
    await w.sim.control.setFailures({ slowMs: 3000, operations: ['create'], count: 1 });
    const when = at('21:15');
    const first = await bookings().create({ ...input(), date: when });
    expect(first.pending).toBe(true);
    const rmsBooking = await eventually(async () => {
      const made = (await w.sim.control.bookings('rms-venue-1')).find((b) => new Date(b.date).getTime() === when.getTime());
      expect(made).toBeDefined();
      const sent = (await w.sim.control.outbound()).filter((e: any) => e.kind === 'notice' && e.body.entityId === made!.id);
      expect(sent[0]?.attempts[0]?.status).toBe(202);
      return made!;
    }, { what: 'the RMS made the booking and its notice was accepted' });
    await w.sim.control.clearTableside();
    await w.app.service.runner.runDue();
    expect(await notices(rmsBooking.id)).toEqual([null]); // waiting: a create of this partner is in flight
    for (let i = 0; i < 5 && (await notices(rmsBooking.id))[0] === null; i++) {
      clock.advance(10_000);
      await w.app.service.runner.runDue();
    }
    const recorded = await bookings().get(first.booking.id);
    expect(recorded).toMatchObject({ rmsBookingId: rmsBooking.id, status: 'confirmed' });
    expect(['unchanged', 'updated']).toContain((await notices(rmsBooking.id))[0]);
    expect(await types(first.booking.id)).toEqual(['booking.created']);
  });

  it('[BKG-19] a notice for a booking Tableside does not know is acknowledged (202) and recorded; an unknown entity is a 400', async () => {
    const res = await notify({ entity: 'booking', entityId: 'made-by-phone-1', action: 'update' });
    expect(res.status).toBe(202);
    await w.app.service.runner.runDue();
    expect(await notices('made-by-phone-1')).toEqual(['unknown_booking']);

    const entity = await notify({ entity: 'venue', entityId: 'x', action: 'update' });
    expect(entity.status).toBe(400);
    expect(entity.body.error.details.entity).toBeDefined();
    const noId = await notify({ entity: 'booking', action: 'update' });
    expect(noId.status).toBe(400);
    expect(noId.body.error.details.entityId).toBeDefined();
    expect((await notify({ entity: 'booking', entityId: 'x', action: 'explode' })).status).toBe(400);
    expect((await notify('not json at all')).status).toBe(400);
    expect((await w.app.http.post('/v1/rms/notifications', { body: { entity: 'booking', entityId: 'x', action: 'update' } })).status).toBe(401);
    const numeric = await notify({ entity: 'booking', entityId: 12345, action: 'update' });
    expect(numeric.status).toBe(202);
  });
});
