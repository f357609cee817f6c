import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_CODES } from '../../src/pat/payments.fns.ts';
import { BOOKING_STATUSES as RMS_STATUSES, MAX_BOOKING_TABLES, MAX_NOTES, MAX_PARTY_SIZE } from '../../src/rms/rms-client.fns.ts';
import { MAX_EVENT_TABLES, MAX_ITEMS, ReservationEvent } from '../../src/rms/seated-reservations.schemas.ts';
import {
  BOOKING_LIMITS, BOOKING_STATUSES, CHANNEL_WEBHOOK_EVENTS, channelWebhookKey, DELIVERED_TYPES, PAYMENT_FAILURE_CODES, SEATING_LIMITS, WEBHOOK_EVENTS,
  webhookDocument,
} from '../../src/webhooks/events.schemas.ts';
import { CHANNEL_EVENT_TYPES, EVENT_CATALOGUE, TEST_EVENT_TYPE } from '../../src/webhooks/webhooks.fns.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { testCertFile, testTls } from '../helpers/http.ts';
import { POS } from '../helpers/pat.ts';
import { startSeatingWorld, type SeatingWorld } from '../helpers/seating.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startRmsWorld, type RmsWorld } from '../rms/world.ts';
import { validators } from './schema-check.ts';
import { verify } from './world.ts';

// The declared webhook events (src/webhooks/events.schemas.ts, the document's `webhooks` section)
// cannot drift from what is delivered: every event the real flows deliver (payments forwarded to the
// POS simulator, onboarding, suspension, seating, bookings at the reference RMS, an availability
// feed, the test event) is validated, as its receiver reads it, against the schema of its type by a
// plain Ajv with ajv-formats (the custom format names are declared without a check: their enums and
// patterns say what they accept). The check is strict: a field the schema does not declare fails too.

/** The limits the OWASP ruleset asks of every schema, checked on the webhooks section itself. */
function limitProblems(schema: any, at: string, out: string[] = []): string[] {
  if (Array.isArray(schema)) schema.forEach((s, i) => limitProblems(s, `${at}[${i}]`, out));
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return out;
  if (schema.type === 'string') {
    if (schema.maxLength === undefined && schema.enum === undefined && schema.const === undefined) out.push(`${at}: string without maxLength`);
    if (!schema.format && !schema.pattern && schema.enum === undefined && schema.const === undefined) out.push(`${at}: string without format/pattern/enum`);
  }
  if (schema.type === 'integer' && (!schema.format || schema.minimum === undefined || schema.maximum === undefined)) out.push(`${at}: integer without format and bounds`);
  if (schema.type === 'array' && schema.maxItems === undefined) out.push(`${at}: array without maxItems`);
  for (const [k, v] of Object.entries(schema)) if (v && typeof v === 'object') limitProblems(v, `${at}.${k}`, out);
  return out;
}

describe('the declared webhook events', () => {
  it('[WHK-10] declare one schema per delivered type: the catalogue and the test event', () => {
    expect(Object.keys(WEBHOOK_EVENTS).sort()).toEqual([...EVENT_CATALOGUE, TEST_EVENT_TYPE].sort());
    expect([...DELIVERED_TYPES].sort()).toEqual(Object.keys(WEBHOOK_EVENTS).sort());
  });

  it('use the lists and limits of the features that emit the events', () => {
    expect([...PAYMENT_FAILURE_CODES]).toEqual([...FAILURE_CODES]);
    expect([...BOOKING_STATUSES]).toEqual([...RMS_STATUSES]);
    expect(BOOKING_LIMITS).toEqual({ partySize: MAX_PARTY_SIZE, tables: MAX_BOOKING_TABLES, notes: MAX_NOTES });
    expect(SEATING_LIMITS).toEqual({ partySize: (ReservationEvent.properties.partySize as unknown as { maximum: number }).maximum, tables: MAX_EVENT_TABLES, items: MAX_ITEMS });
  });

  it('[CHN-30] declare the channel view of each booking event a channel may receive', () => {
    expect(Object.keys(CHANNEL_WEBHOOK_EVENTS).sort()).toEqual([...CHANNEL_EVENT_TYPES].sort());
  });

  it('webhookDocument(): one POST per type (and per channel booking type), tagged webhooks, signed headers declared, the body schema inlined with its limits', () => {
    const doc = webhookDocument();
    expect(Object.keys(doc).sort()).toEqual([...Object.keys(WEBHOOK_EVENTS), ...CHANNEL_EVENT_TYPES.map(channelWebhookKey)].sort());
    const ids = new Set<string>();
    for (const [key, { post }] of Object.entries(doc) as Array<[string, { post: any }]>) {
      const type = key.replace(/^channel:/, '');
      ids.add(post.operationId);
      expect(post.summary, type).toBeTruthy();
      expect(post.description, type).toBeTruthy();
      expect(post.tags).toEqual(['webhooks']);
      expect(post.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature']);
      expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['2XX', '410', '429']));
      const text = JSON.stringify(post);
      expect(text, type).not.toContain('$ref');
      expect(post.requestBody.content['application/json'].schema.properties.type.const).toBe(type);
      expect(limitProblems(post, type)).toEqual([]);
    }
    expect(ids.size).toBe(Object.keys(doc).length);
  });

  it('the declared signature headers accept what the service sends', async () => {
    const { signatureHeader } = await import('../../src/webhooks/signing.fns.ts');
    const { webhookIdOf } = await import('../../src/webhooks/webhooks.fns.ts');
    const [id, ts, sig] = webhookDocument()['payment.confirmed']!.post.parameters as any[];
    const secret = () => `whsec_${Buffer.from(randomUUID() + randomUUID()).subarray(0, 32).toString('base64')}`;
    const webhookId = webhookIdOf(randomUUID());
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const header = signatureHeader([secret(), secret()], webhookId, at, '{}');
    expect(webhookId).toMatch(new RegExp(id.schema.pattern));
    expect(String(at.getTime() / 1000)).toMatch(new RegExp(ts.schema.pattern));
    expect(header).toMatch(new RegExp(sig.schema.pattern));
    expect(header.length).toBeLessThanOrEqual(sig.schema.maxLength);
  });
});

describeEachStore('delivered webhook events match their declared schemas', (store) => {
  let receiver: WebhookReceiver;
  const check = validators(WEBHOOK_EVENTS);

  /** Every body delivered at `path`, verified with its secret, and what breaks its type's schema. */
  function bodiesAt(path: string, secret: string): any[] {
    return receiver.on(path).map((r) => verify(secret, r));
  }
  function expectValid(bodies: any[]): void {
    for (const body of bodies) expect(check(body.type, body), `${body.type}: ${JSON.stringify(body)}`).toEqual([]);
  }

  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  describe('payments, orders, connections and seating', () => {
    let w: SeatingWorld;
    let patSecret: string;
    let rmsSecret: string;
    let patEndpoint: string;
    beforeAll(async () => {
      w = await startSeatingWorld({ store, autoClose: false, env: { ALLOW_PRIVATE_TARGETS: '1' } });
      const pat = await w.app.http.request('POST', '/v1/webhooks/endpoints', { token: w.partner.token, body: { url: `${receiver.url}/s-pat-${store}`, events: [...EVENT_CATALOGUE] } });
      expect(pat.status, pat.text).toBe(200);
      patSecret = pat.body.secret;
      patEndpoint = pat.body.id;
      const rms = await w.app.http.request('POST', '/v1/webhooks/endpoints', { token: w.rms.apiKey, body: { url: `${receiver.url}/s-rms-${store}`, events: [...EVENT_CATALOGUE] } });
      expect(rms.status, rms.text).toBe(200);
      rmsSecret = rms.body.secret;
    });
    afterAll(async () => {
      await w?.close();
    });

    async function delivered(path: string, secret: string, types: string[]): Promise<any[]> {
      return eventually(async () => {
        await w.app.service.runner.runDue();
        const bodies = bodiesAt(path, secret);
        return types.every((t) => bodies.some((b) => b.type === t)) ? bodies : false;
      }, { what: `${types.join(', ')} delivered` });
    }

    it('[WHK-10] payment.confirmed, payment.failed, order.closed, venue.onboarded, pos_connection.* and webhook.test as delivered', async () => {
      const venue = await w.connectVenue({ posType: POS.immediate });
      await w.openOrder(venue.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] as never });
      const bill = await w.bill(venue, '1');
      const paid = await w.pay(venue, bill.body.orderId, { externalReference: `sch-${store}-${Date.now()}`, amount: bill.body.totals.totalDue, type: 'full', paymentMethod: 'visa', currency: 'EUR' });
      expect(paid.body.status, paid.text).toBe('confirmed');

      const deferred = await w.connectVenue({ posType: POS.deferred, behaviour: { payment: 'deferred', delayMs: 100, outcome: 'pos_overpaid' } as never });
      await w.openOrder(deferred.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] as never });
      const bill2 = await w.bill(deferred, '2');
      await w.pay(deferred, bill2.body.orderId, { externalReference: `sch-f-${store}-${Date.now()}`, amount: 2.5, type: 'full' });

      await w.app.service.app.services.connections.suspend(venue.venueId);
      await w.app.service.app.services.connections.resume(venue.venueId);
      const test = await w.app.http.request('POST', `/v1/webhooks/endpoints/${patEndpoint}/test`, { token: w.partner.token });
      expect(test.body.status, test.text).toBe('succeeded');

      const bodies = await delivered(`/s-pat-${store}`, patSecret, [
        'payment.confirmed', 'payment.failed', 'order.closed', 'venue.onboarded', 'pos_connection.suspended', 'pos_connection.resumed', 'webhook.test',
      ]);
      expectValid(bodies);
    });

    it('[WHK-12] pos_order.opened and pos_order.unknown_skus as delivered', async () => {
      const v = await w.rmsVenue();
      const res = await w.seat({
        bookingId: `bk-sch-${store}-${process.pid}`, venueId: v.externalId, status: 'seated', partySize: 4, tables: ['1'], date: new Date().toISOString(),
        prepayment: 10, guestName: 'Ada', items: [{ sku: 'NOPE', quantity: 1 }, { sku: 'BURGER', quantity: 1, notes: 'no onions' }],
      });
      expect(res.status, res.text).toBe(200);
      const bodies = await delivered(`/s-rms-${store}`, rmsSecret, ['pos_order.opened', 'pos_order.unknown_skus']);
      expectValid(bodies);
      expect(bodies.find((b) => b.type === 'pos_order.unknown_skus').data.unknownSkus).toContain('NOPE');
    });
  });

  describe('bookings and the availability feed', () => {
    let w: RmsWorld;
    let secret: string;
    beforeAll(async () => {
      // The simulator presents the test certificate too (see booking-events.test.ts).
      w = await startRmsWorld({ app: { store }, sim: { tls: testTls() } });
      const res = await w.app.http.request('POST', '/v1/webhooks/endpoints', { token: w.key, body: { url: `${receiver.url}/b-${store}`, events: [...EVENT_CATALOGUE] } });
      expect(res.status, res.text).toBe(200);
      secret = res.body.secret;
    });
    afterAll(async () => {
      await w?.close();
    });

    it('[WHK-11] booking.created, booking.updated, booking.canceled, booking.seated and availability_feed.processed as delivered', async () => {
      const services = w.app.service.app.services;
      const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
      const rms = await services.bookingServices.client(w.partnerId);
      const open = (await rms!.availability({ venueId: 'rms-venue-1', date: day, partySize: 2 })).slots.filter((s) => s.openSpots > 0);
      expect(open.length).toBeGreaterThanOrEqual(2);
      const input = (date: Date) => ({
        venueId: w.venueId,
        channel: { id: randomUUID(), name: 'Schema test channel' },
        partySize: 2,
        date,
        areaId: null,
        notes: 'window seat',
        contact: { firstname: 'Grace', lastname: 'Hopper', email: 'grace@example.com', telephone: '+44 20 7946 0002', locale: 'en-GB' },
      });
      const { booking } = await services.bookings.create(input(open[0]!.start));
      await services.bookings.change(booking.id, { partySize: 3 });
      await services.bookings.cancel(booking.id, { cancelActor: 'guest' });
      const { booking: seated } = await services.bookings.create(input(open[1]!.start));
      await w.sim.control.seat(seated.rmsBookingId!);

      const feed = await w.app.http.post('/v1/rms/availability-feed', {
        token: w.key,
        body: {
          metadata: { total_shards: 1, shard_number: 0, nonce: `sch-${store}-${Date.now()}`, date: new Date().toISOString() },
          data: [{ venueId: 'rms-venue-1', date: day, partySize: 2, duration: 5400, slotData: [{ startSec: Math.floor(open[0]!.start.getTime() / 1000), totalSpots: 4, openSpots: 2, deposit: true, depositAmount: 1500, requiresCc: true }] }],
        },
      });
      expect(feed.status, feed.text).toBe(202);

      const bodies = await eventually(async () => {
        await w.app.service.runner.runDue();
        const got = bodiesAt(`/b-${store}`, secret);
        const types = ['booking.created', 'booking.updated', 'booking.canceled', 'booking.seated', 'availability_feed.processed'];
        return types.every((t) => got.some((b) => b.type === t)) ? got : false;
      }, { what: 'booking and feed events delivered' });
      expectValid(bodies);
    });
  });
});
