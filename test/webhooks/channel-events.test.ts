import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from '../channels/world.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { testCertFile, testTls } from '../helpers/http.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { CHANNEL_WEBHOOK_EVENTS, WEBHOOK_EVENTS } from '../../src/webhooks/events.schemas.ts';
import { validators } from './schema-check.ts';
import { verify } from './world.ts';

// Channel webhooks (DESIGN 8.7a) over real HTTPS: a `tableside` channel registers endpoints with its
// own API key, and hears of the bookings made through it, and of nothing else, with data equal to
// GET /v1/bc/bookings/{id} at that moment plus previousStatus and changedBy. Changes made at the
// reference RMS (staff confirm, reject, seat, complete, no-show; a move or a cancel through its own
// API) arrive through its update notices and Tableside's re-read, one event each. Every delivery is
// verified with the standardwebhooks package against the endpoint's secret. The service's clock is
// manual, started at the real time (signatures are checked against it, 5 minutes' tolerance), so a
// create whose answer was lost is resolved by its retry job without waiting.

const CHANNEL_EVENTS = [
  'booking.created', 'booking.updated', 'booking.canceled', 'booking.seated',
  'booking.confirmed', 'booking.rejected', 'booking.no_show', 'booking.completed',
];
const contact = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0001' };

describeEachStore('channel webhooks', (store) => {
  let w: ChannelWorld;
  let receiver: WebhookReceiver;
  let a: TestChannel;
  let b: TestChannel;
  const secrets: Record<string, string> = {};
  let day: string;
  let n = 0;

  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    receiver = await startWebhookReceiver();
    // A short RMS time limit: the create whose answer is lost costs the test that long.
    w = await startChannelWorld({ app: { clock: new ManualClock(Date.now()), env: { RMS_TIMEOUT_MS: '1000' } }, sim: { tls: testTls() } });
    a = await w.channel('tableside', { name: 'Dine Finder' });
    b = await w.channel('tableside', { name: 'Table Scout' });
    day = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10);
    for (const [path, token] of [['/a', a.credentials.apiKey], ['/b', b.credentials.apiKey], ['/rms', w.key]] as const) {
      const res = await w.app.http.post('/v1/webhooks/endpoints', { token, body: { url: `${receiver.url}${path}`, events: CHANNEL_EVENTS } });
      expect(res.status, res.text).toBe(200);
      secrets[path] = res.body.secret;
    }
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });
  const clock = () => w.app.clock as ManualClock;
  beforeEach(async () => {
    // The service's clock keeps up with the real one (never backwards), so signatures stay fresh.
    clock().set(new Date(Math.max(Date.now(), clock().now().getTime())));
    await w.setCompany({ minAdvanceBooking: 0, minAdvanceBookingCancelling: 0, includeSourceInNotes: false });
    await w.sim.control.configureVenue('rms-venue-1', { autoConfirm: true });
    await w.sim.control.setFailures({ mode: 'none', force402: null, slowMs: 0, operations: null });
  });

  const services = () => w.app.service.app.services;
  const bc = (c: TestChannel) => ({
    get: (path: string) => w.app.http.get(path, { token: c.credentials.apiKey }),
    put: (path: string, body: unknown = {}) => w.app.http.put(path, { token: c.credentials.apiKey, body }),
  });
  let slots: Date[] = [];
  async function nextSlot(): Promise<Date> {
    if (slots.length === 0) {
      const rms = await services().bookingServices.client(w.partnerId);
      const got = await rms!.availability({ venueId: 'rms-venue-1', date: day, partySize: 2 });
      slots = got.slots.filter((s) => s.openSpots > 0).map((s) => s.start);
    }
    const s = slots.shift();
    expect(s, 'an open slot').toBeDefined();
    return s!;
  }
  const post = async (c: TestChannel) => w.app.http.post('/v1/bc/bookings', {
    token: c.credentials.apiKey,
    headers: { 'idempotency-key': `chwh-${++n}` },
    body: { venueId: w.venueId, partySize: 2, start: (await nextSlot()).toISOString(), contact },
  });
  async function book(c: TestChannel): Promise<any> {
    const res = await post(c);
    expect(res.status, res.text).toBe(200);
    return res.body;
  }
  /** The verified bodies of one booking's events at a receiver path, in sequence order, once there are `count`. */
  async function events(path: string, bookingId: string, count: number): Promise<any[]> {
    return eventually(async () => {
      await w.app.service.runner.runDue();
      const got = receiver.on(path).map((r) => verify(secrets[path]!, r)).filter((e: any) => e.data.entityId === bookingId);
      return got.length >= count ? got.sort((x: any, y: any) => x.data.sequence - y.data.sequence) : false;
    }, { what: `${count} events of booking ${bookingId} at ${path}` });
  }
  /**
   * Until the RMS has no notice in flight and Tableside no job due: every re-read done. (Its seated
   * events are not awaited: this venue has no POS, so they are refused and retried for seconds.)
   */
  async function settled(): Promise<void> {
    await eventually(async () => {
      const pending = (await w.sim.control.outbound()).some((e) => e.kind === 'notice' && e.state === 'pending');
      return !pending && (await w.app.service.runner.runDue()) === 0;
    }, { what: 'notices delivered and re-read' });
  }
  const bodiesOf = (path: string, bookingId: string) =>
    receiver.on(path).map((r) => verify(secrets[path]!, r)).filter((e: any) => e.data.entityId === bookingId);
  /** An event's data without what 8.5 and 8.7a add to the channel's view. */
  const view = (data: any) => {
    const { entityId: _e, sequence: _s, previousStatus: _p, changedBy: _c, ...rest } = data;
    return rest;
  };

  it('[CHN-28] a tableside channel manages endpoints with its API key: create (secret once), list, get, put, rotate, test, deliveries, recover, delete; nobody else sees them', async () => {
    const token = a.credentials.apiKey;
    const created = await w.app.http.post('/v1/webhooks/endpoints', { token, body: { url: `${receiver.url}/a2`, events: ['booking.created'], description: 'second' } });
    expect(created.status, created.text).toBe(200);
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id;
    const got = await w.app.http.get(`/v1/webhooks/endpoints/${id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    const list = await w.app.http.get('/v1/webhooks/endpoints', { token });
    expect(list.body.data.map((e: any) => e.id)).toContain(id);
    // Another channel and the RMS partner neither list nor reach it.
    expect((await w.app.http.get(`/v1/webhooks/endpoints/${id}`, { token: b.credentials.apiKey })).status).toBe(404);
    expect((await w.app.http.get(`/v1/webhooks/endpoints/${id}`, { token: w.key })).status).toBe(404);
    expect((await w.app.http.get('/v1/webhooks/endpoints', { token: w.key })).body.data.map((e: any) => e.id)).not.toContain(id);
    const put = await w.app.http.put(`/v1/webhooks/endpoints/${id}`, { token, body: { events: ['booking.created', 'booking.confirmed'] } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.events).toEqual(['booking.created', 'booking.confirmed']);
    const rotated = await w.app.http.post(`/v1/webhooks/endpoints/${id}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const test = await w.app.http.post(`/v1/webhooks/endpoints/${id}/test`, { token });
    expect(test.status).toBe(200);
    expect(test.body.status).toBe('succeeded');
    const sent = receiver.on('/a2').at(-1)!;
    expect(verify(rotated.body.secret, sent).type).toBe('webhook.test');
    expect(verify(created.body.secret, sent).type).toBe('webhook.test'); // the old secret signs for 24 h too
    const log = await w.app.http.get(`/v1/webhooks/endpoints/${id}/deliveries`, { token });
    expect(log.body.data[0]).toMatchObject({ type: 'webhook.test', status: 'succeeded', responseCode: 204 });
    const recover = await w.app.http.post(`/v1/webhooks/endpoints/${id}/recover`, { token, body: { since: new Date(clock().now().getTime() - 60_000).toISOString() } });
    expect(recover.status, recover.text).toBe(202);
    expect((await w.app.http.delete(`/v1/webhooks/endpoints/${id}`, { token })).status).toBe(204);
    expect((await w.app.http.get(`/v1/webhooks/endpoints/${id}`, { token })).status).toBe(404);
  });

  it('[CHN-29] a channel endpoint subscribes to booking events only: another type is a 400 naming it; a google-v3 channel has no API key to use', async () => {
    const token = a.credentials.apiKey;
    const bad = await w.app.http.post('/v1/webhooks/endpoints', { token, body: { url: `${receiver.url}/x`, events: ['booking.created', 'payment.confirmed', 'venue.onboarded'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.events.join(' ')).toContain('payment.confirmed');
    expect(bad.body.error.details.events.join(' ')).toContain('venue.onboarded');
    const badPut = await w.app.http.put(`/v1/webhooks/endpoints/${(await w.app.http.get('/v1/webhooks/endpoints', { token })).body.data[0].id}`, { token, body: { events: ['order.closed'] } });
    expect(badPut.status).toBe(400);
    expect(badPut.body.error.details.events.join(' ')).toContain('order.closed');
    // The RMS partner still subscribes to any type of the catalogue, the new ones included.
    const partner = await w.app.http.post('/v1/webhooks/endpoints', { token: w.key, body: { url: `${receiver.url}/p2`, events: ['payment.confirmed', 'booking.no_show'] } });
    expect(partner.status, partner.text).toBe(200);
    await w.app.http.delete(`/v1/webhooks/endpoints/${partner.body.id}`, { token: w.key });
    expect((await w.app.http.get('/v1/webhooks/endpoints', { token: 'tbc_not-a-key' })).status).toBe(401);
  });

  it('[CHN-29] [CHN-30] [WHK-04] [WHK-12] each channel hears only its own bookings, data equal to GET /v1/bc/bookings/{id} plus previousStatus and changedBy; the RMS partner hears both', async () => {
    const mine = await book(a);
    const theirs = await book(b);
    const [created] = await events('/a', mine.id, 1);
    expect(created.type).toBe('booking.created');
    expect(view(created.data)).toEqual((await bc(a).get(`/v1/bc/bookings/${mine.id}`)).body);
    expect(created.data).toMatchObject({ entityId: mine.id, sequence: 1, previousStatus: null, changedBy: 'channel', status: 'confirmed' });
    expect(JSON.stringify(created.data)).not.toContain('rms-venue-1');

    const changed = await bc(a).put(`/v1/bc/bookings/${mine.id}`, { partySize: 3 });
    expect(changed.status, changed.text).toBe(200);
    const [, updated] = await events('/a', mine.id, 2);
    expect(updated).toMatchObject({ type: 'booking.updated', data: { partySize: 3, previousStatus: 'confirmed', changedBy: 'channel', sequence: 2 } });
    expect(view(updated.data)).toEqual((await bc(a).get(`/v1/bc/bookings/${mine.id}`)).body);

    const canceled = await bc(a).put(`/v1/bc/bookings/${mine.id}/cancel`);
    expect(canceled.status, canceled.text).toBe(200);
    const [, , cancelEvent] = await events('/a', mine.id, 3);
    expect(cancelEvent).toMatchObject({ type: 'booking.canceled', data: { status: 'canceled', previousStatus: 'confirmed', changedBy: 'channel' } });
    expect(view(cancelEvent.data)).toEqual((await bc(a).get(`/v1/bc/bookings/${mine.id}`)).body);

    await events('/b', theirs.id, 1);
    await events('/rms', mine.id, 3);
    await events('/rms', theirs.id, 1);
    await settled();
    // Scope: neither channel got the other's booking; the RMS partner got both with its own ids.
    expect(receiver.on('/a').map((r) => verify(secrets['/a']!, r).data.entityId)).not.toContain(theirs.id);
    expect(receiver.on('/b').map((r) => verify(secrets['/b']!, r).data.entityId)).not.toContain(mine.id);
    expect(bodiesOf('/a', mine.id)).toHaveLength(3);
    expect(bodiesOf('/rms', mine.id).map((e) => e.type)).toEqual(['booking.created', 'booking.updated', 'booking.canceled']);
    expect(bodiesOf('/rms', mine.id)[0].data).toMatchObject({ rmsVenueId: 'rms-venue-1', rmsBookingId: expect.any(String) });
  });

  it('[CHN-31] [CHN-30] changes made at the RMS reach the channel once each, after the notice is re-read, with the mapped status and changedBy venue', async () => {
    await w.sim.control.configureVenue('rms-venue-1', { autoConfirm: false });
    const rmsIdOf = async (id: string) => (await services().bookings.get(id)).rmsBookingId!;
    const rms = (await services().bookingServices.client(w.partnerId))!;
    const [confirmed, rejected, noShow, completed, moved, canceled] = [await book(a), await book(a), await book(a), await book(a), await book(a), await book(a)];
    expect(confirmed.status).toBe('pending_confirmation');

    await w.sim.control.confirm(await rmsIdOf(confirmed.id));
    await w.sim.control.reject(await rmsIdOf(rejected.id));
    await w.sim.control.noShow(await rmsIdOf(noShow.id));
    await w.sim.control.seat(await rmsIdOf(completed.id));
    await rms.updateBooking(await rmsIdOf(moved.id), { partySize: 4 });
    await rms.cancelBooking(await rmsIdOf(canceled.id), { cancelActor: 'venue' });
    await settled();
    await w.sim.control.complete(await rmsIdOf(completed.id));
    await settled();

    const expected: Array<[any, string[]]> = [
      [confirmed, ['booking.created', 'booking.confirmed']],
      [rejected, ['booking.created', 'booking.rejected']],
      [noShow, ['booking.created', 'booking.no_show']],
      [completed, ['booking.created', 'booking.seated', 'booking.completed']],
      [moved, ['booking.created', 'booking.updated']],
      [canceled, ['booking.created', 'booking.canceled']],
    ];
    for (const [booking, types] of expected) {
      const got = await events('/a', booking.id, types.length);
      expect(got.map((e) => e.type), booking.id).toEqual(types);
      for (const e of got.slice(1)) expect(e.data.changedBy).toBe('venue');
      expect(view(got.at(-1).data)).toEqual((await bc(a).get(`/v1/bc/bookings/${booking.id}`)).body);
      // The RMS partner hears the same changes, the new status events included.
      expect(bodiesOf('/rms', booking.id).map((e) => e.type).sort()).toEqual([...types].sort());
    }
    const [, c1] = bodiesOf('/a', confirmed.id).sort((x, y) => x.data.sequence - y.data.sequence);
    expect(c1.data).toMatchObject({ status: 'confirmed', previousStatus: 'pending_confirmation' });
    expect(bodiesOf('/a', rejected.id).find((e) => e.type === 'booking.rejected').data).toMatchObject({ status: 'rejected', previousStatus: 'pending_confirmation' });
    expect(bodiesOf('/a', noShow.id).find((e) => e.type === 'booking.no_show').data).toMatchObject({ status: 'no-show', previousStatus: 'pending_confirmation' });
    expect(bodiesOf('/a', completed.id).find((e) => e.type === 'booking.completed').data).toMatchObject({ status: 'completed', previousStatus: 'seated' });
    expect(bodiesOf('/a', moved.id).find((e) => e.type === 'booking.updated').data).toMatchObject({ partySize: 4, previousStatus: 'pending_confirmation' });
    // Every delivery matches its declared schema: the channel's view at the channel, the partners' at the RMS partner.
    const channelCheck = validators(CHANNEL_WEBHOOK_EVENTS);
    const partnerCheck = validators(WEBHOOK_EVENTS);
    for (const [booking] of expected) {
      for (const e of bodiesOf('/a', booking.id)) expect(channelCheck(e.type, e), JSON.stringify(e)).toEqual([]);
      for (const e of bodiesOf('/rms', booking.id)) expect(partnerCheck(e.type, e), JSON.stringify(e)).toEqual([]);
    }
    // Nothing of these reached the other channel.
    const ids = new Set(expected.map(([booking]) => booking.id));
    expect(receiver.on('/b').map((r) => verify(secrets['/b']!, r).data.entityId).filter((id: string) => ids.has(id))).toEqual([]);
  });

  it('[CHN-30] a create whose answer was lost, resolved by Tableside\'s retry, reaches the channel as booking.created with changedBy system', async () => {
    await w.sim.control.setFailures({ mode: 'act-then-hang', operations: ['create'], count: 1 });
    const first = await post(a);
    expect(first.status, first.text).toBe(402);
    const id: string = first.body.error.details.bookingId;
    clock().advance(w.app.config.rmsTimeoutMs + 6000);
    const [created] = await events('/a', id, 1);
    expect(created).toMatchObject({ type: 'booking.created', data: { id, status: 'confirmed', previousStatus: null, changedBy: 'system', sequence: 1 } });
    expect(view(created.data)).toEqual((await bc(a).get(`/v1/bc/bookings/${id}`)).body);
    expect(receiver.on('/b').map((r) => verify(secrets['/b']!, r).data.entityId)).not.toContain(id);
  });

  it('[CHN-28] a channel endpoint answering 410 is disabled like a partner\'s, and recover sends it what failed or was missed, in the channel\'s view', async () => {
    const token = a.credentials.apiKey;
    // The recovery window starts after every earlier test's events (an endpoint also gets what it missed before it existed).
    clock().advance(1000);
    const since = clock().now().toISOString();
    const ep = await w.app.http.post('/v1/webhooks/endpoints', { token, body: { url: `${receiver.url}/a-gone`, events: ['booking.created', 'booking.canceled'] } });
    expect(ep.status, ep.text).toBe(200);
    receiver.behave((r) => (r.path === '/a-gone' ? { status: 410 } : { status: 204 }));
    try {
      const mine = await book(a);
      const disabled = await eventually(async () => {
        await w.app.service.runner.runDue();
        const got = await w.app.http.get(`/v1/webhooks/endpoints/${ep.body.id}`, { token });
        return got.body.status === 'disabled' ? got.body : false;
      }, { what: 'the endpoint disabled' });
      expect(disabled.disabledReason).toBe('answered_410');
      expect((await bc(a).put(`/v1/bc/bookings/${mine.id}/cancel`)).status).toBe(200);
      await events('/a', mine.id, 2);
      expect(receiver.on('/a-gone')).toHaveLength(1); // disabled: the cancel was not sent
      receiver.behave({ status: 204 });
      const recovered = await w.app.http.post(`/v1/webhooks/endpoints/${ep.body.id}/recover`, { token, body: { since } });
      expect(recovered.status, recovered.text).toBe(202);
      expect(recovered.body).toEqual({ resent: 1, missed: 1 });
      const secret = ep.body.secret;
      const got = await eventually(async () => {
        await w.app.service.runner.runDue();
        const bodies = receiver.on('/a-gone').map((r) => verify(secret, r));
        return bodies.length >= 3 ? bodies : false;
      }, { what: 'the recovered deliveries' });
      expect(got.map((e: any) => e.type).sort()).toEqual(['booking.canceled', 'booking.created', 'booking.created']);
      for (const e of got) {
        expect(e.data).toMatchObject({ id: mine.id, channelId: a.id, changedBy: 'channel' });
        expect(e.data).not.toHaveProperty('rmsBookingId');
      }
    } finally {
      receiver.behave({ status: 204 });
    }
  });
});
