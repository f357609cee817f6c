import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { testCertFile, testTls } from '../helpers/http.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startRmsWorld, type RmsWorld } from '../rms/world.ts';
import { verify } from './world.ts';

// Booking events are written by the bookings feature (src/rms) and delivered by src/webhooks with
// no code of its own: a booking made, changed and cancelled through Tableside, and one the RMS's
// staff seat (its update notice is re-read, the status became seated), reach the RMS partner's
// endpoint signed, in order of their per-booking sequence, with Tableside's booking id.

const BOOKING_EVENTS = ['booking.created', 'booking.updated', 'booking.canceled', 'booking.seated'];

describeEachStore('booking events delivered as webhooks', (store) => {
  let w: RmsWorld;
  let receiver: WebhookReceiver;
  let secret: string;
  let day: string;
  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    receiver = await startWebhookReceiver();
    // The simulator presents the test certificate too: two self-signed certificates with the same
    // subject in one trust list make TLS pick the wrong one.
    w = await startRmsWorld({ app: { store }, sim: { tls: testTls() } });
    const res = await w.app.http.request('POST', '/v1/webhooks/endpoints', { token: w.key, body: { url: `${receiver.url}/rms`, events: BOOKING_EVENTS } });
    expect(res.status, res.text).toBe(200);
    secret = res.body.secret;
    day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });

  const services = () => w.app.service.app.services;
  async function openSlots(n: number): Promise<Date[]> {
    const rms = await services().bookingServices.client(w.partnerId);
    const a = await rms!.availability({ venueId: 'rms-venue-1', date: day, partySize: 2 });
    const open = a.slots.filter((s) => s.openSpots > 0).map((s) => s.start);
    expect(open.length).toBeGreaterThanOrEqual(n);
    return open.slice(0, n);
  }
  async function delivered(bookingId: string, count: number): Promise<any[]> {
    return eventually(async () => {
      await w.app.service.runner.runDue();
      const got = receiver.on('/rms').map((r) => verify(secret, r)).filter((b: any) => b.data.entityId === bookingId);
      return got.length >= count ? got.sort((a: any, b: any) => a.data.sequence - b.data.sequence) : false;
    }, { what: `${count} events of booking ${bookingId} delivered` });
  }
  const input = (date: Date) => ({
    venueId: w.venueId,
    channel: { id: randomUUID(), name: 'Webhook test channel' },
    partySize: 2,
    date,
    contact: { firstname: 'Grace', lastname: 'Hopper', email: 'grace@example.com', telephone: '+44 20 7946 0002' },
  });

  it('[WHK-11] a booking created, changed and cancelled through Tableside emits booking.created, booking.updated, booking.canceled', async () => {
    const [start] = await openSlots(1);
    const { booking } = await services().bookings.create(input(start!));
    await services().bookings.change(booking.id, { partySize: 3 });
    await services().bookings.cancel(booking.id, { cancelActor: 'guest' });
    const bodies = await delivered(booking.id, 3);
    expect(bodies.map((b) => b.type)).toEqual(['booking.created', 'booking.updated', 'booking.canceled']);
    expect(bodies.map((b) => b.data.sequence)).toEqual([1, 2, 3]);
    expect(bodies[1].data).toMatchObject({ id: booking.id, venueId: w.venueId, partySize: 3 });
    expect(bodies[2].data).toMatchObject({ id: booking.id, status: 'canceled' });
  });

  it('[WHK-11] a booking the RMS seats emits booking.seated once its update notice is re-read', async () => {
    const [, start] = await openSlots(2);
    const { booking } = await services().bookings.create(input(start!));
    await w.sim.control.seat(booking.rmsBookingId!);
    const bodies = await delivered(booking.id, 2);
    expect(bodies.map((b) => b.type)).toEqual(['booking.created', 'booking.seated']);
    expect(bodies[1].data).toMatchObject({ id: booking.id, rmsBookingId: booking.rmsBookingId, status: 'seated' });
  });
});
