import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { describeEachStore } from '../helpers/db.ts';
import { testCertFile, testTls } from '../helpers/http.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startRmsWorld, type RmsWorld } from '../rms/world.ts';

// Bookings made through Tableside (against the reference RMS over HTTPS) emit booking.* events,
// delivered to the RMS partner's endpoint by the generic fan-out: created, changed, cancelled, and
// seated when the RMS's notice says the party sat down.

const NOW = '2025-06-10T09:00:00Z';
const at = (hhmm: string) => new Date(`2025-06-11T${hhmm}:00+01:00`);

describeEachStore('booking events delivered as webhooks', (store) => {
  let w: RmsWorld;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    receiver = await startWebhookReceiver();
    // The simulator presents the test certificate: one self-signed certificate per name in a trust list.
    const { key, cert } = testTls();
    w = await startRmsWorld({ app: { store, clock: new ManualClock(NOW) }, sim: { tls: { key, cert } } });
    await w.sim.control.setClock({ set: NOW, frozen: true });
    const ep = await w.app.http.request('POST', '/v1/webhooks/endpoints', {
      token: w.key,
      body: { url: `${receiver.url}/bookings`, events: ['booking.created', 'booking.updated', 'booking.canceled', 'booking.seated'] },
    });
    expect(ep.status).toBe(200);
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });
  const bookings = () => w.app.service.app.services.bookings;
  const input = (date: Date) => ({
    venueId: w.venueId, channel: { id: 'chan-1', name: 'Test channel' }, partySize: 2, date,
    contact: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', telephone: '+44 20 7946 0001' },
  });
  const received = (id: string) =>
    receiver.on('/bookings').map((r) => r.json).filter((b) => b.data.entityId === id).sort((a, b) => a.data.sequence - b.data.sequence)
      .map((b) => [b.type, b.data.sequence, b.data.status]);

  it('[WHK-11] a booking created, changed and cancelled through Tableside emits booking.created, booking.updated, booking.canceled', async () => {
    const { booking } = await bookings().create(input(at('19:00')));
    await bookings().change(booking.id, { partySize: 3 });
    await bookings().cancel(booking.id, { cancelActor: 'guest', cancelReason: 'plans changed' });
    await w.app.service.runner.runDue();
    expect(received(booking.id)).toEqual([['booking.created', 1, 'confirmed'], ['booking.updated', 2, 'confirmed'], ['booking.canceled', 3, 'canceled']]);
  });

  it('[WHK-11] a booking seated at the RMS (its notice re-read by Tableside) emits booking.seated', async () => {
    const { booking } = await bookings().create(input(at('20:00')));
    await w.sim.control.seat(booking.rmsBookingId!);
    const notice = await w.app.http.request('POST', '/v1/rms/notifications', { token: w.key, body: { entity: 'booking', entityId: booking.rmsBookingId, action: 'update' } });
    expect(notice.status).toBe(202);
    await w.app.service.runner.runDue();
    expect(received(booking.id)).toEqual([['booking.created', 1, 'confirmed'], ['booking.seated', 2, 'seated']]);
  });
});
