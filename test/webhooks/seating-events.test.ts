import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { testCertFile } from '../helpers/http.ts';
import { startSeatingWorld, type RmsVenue, type SeatingWorld } from '../helpers/seating.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { verify } from './world.ts';

// Events another feature emits (seating: pos_order.*) are delivered with no code of their own in
// src/webhooks: the RMS partner that seated the guest receives them; the pay-at-table partner that
// was granted the venue does not (the events are addressed to the RMS partner).

describeEachStore('seating events delivered as webhooks', (store) => {
  let w: SeatingWorld;
  let receiver: WebhookReceiver;
  let v: RmsVenue;
  let rmsSecret: string;
  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    receiver = await startWebhookReceiver();
    w = await startSeatingWorld({ store, autoClose: false, env: { ALLOW_PRIVATE_TARGETS: '1' } });
    v = await w.rmsVenue();
    const events = ['pos_order.opened', 'pos_order.unknown_skus'];
    const rms = await w.app.http.request('POST', '/v1/webhooks/endpoints', { token: w.rms.apiKey, body: { url: `${receiver.url}/rms`, events } });
    rmsSecret = rms.body.secret;
    await w.app.http.request('POST', '/v1/webhooks/endpoints', { token: w.partner.token, body: { url: `${receiver.url}/pat`, events } });
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });

  it('[WHK-04] [WHK-12] a seated booking emits pos_order.opened (and pos_order.unknown_skus) to the RMS partner only, signed', async () => {
    const bookingId = `bk-wh-${process.pid}`;
    const res = await w.seat({ bookingId, venueId: v.externalId, status: 'seated', partySize: 2, tables: ['1'], date: new Date().toISOString(), items: [{ sku: 'NOPE', quantity: 1 }] });
    expect(res.status, res.text).toBe(200);
    const bodies = await eventually(async () => {
      await w.app.service.runner.runDue();
      const got = receiver.on('/rms').map((r) => verify(rmsSecret, r) as any);
      return got.length === 2 ? got : false;
    }, { what: 'both seating events delivered' });
    const opened = bodies.find((b) => b.type === 'pos_order.opened');
    expect(opened.data).toMatchObject({ bookingId, orderId: res.body.orderId, unknownSkus: ['NOPE'], entityId: res.body.orderId });
    expect(bodies.map((b) => b.data.sequence).sort()).toEqual([1, 2]);
    expect(receiver.on('/pat')).toEqual([]);
  });
});
