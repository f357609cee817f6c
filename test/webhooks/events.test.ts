import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { testCertFile } from '../helpers/http.ts';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { verify } from './world.ts';

// The catalogue events that exist today, emitted by the real flows (onboarding through the real
// page, payments forwarded to the POS simulator over HTTPS, the operator's suspend/resume) and
// delivered signed to a real HTTPS receiver.

const TYPES = ['payment.confirmed', 'payment.failed', 'order.closed', 'venue.onboarded', 'pos_connection.suspended', 'pos_connection.resumed'];

describeEachStore('catalogue events from the real flows', (store) => {
  let w: PatWorld;
  let receiver: WebhookReceiver;
  let secret: string;
  let venue: ConnectedVenue;
  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    receiver = await startWebhookReceiver();
    w = await startPatWorld({ store, autoClose: false, env: { ALLOW_PRIVATE_TARGETS: '1' } });
    const created = await w.app.http.request('POST', '/v1/webhooks/endpoints', { token: w.partner.token, body: { url: `${receiver.url}/events`, events: TYPES } });
    secret = created.body.secret;
    venue = await w.connectVenue({ posType: POS.immediate });
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });

  /** Runs jobs until the receiver has an event matching `match`; returns its verified body. */
  async function received(type: string, match: (data: any) => boolean): Promise<any> {
    return eventually(async () => {
      await w.app.service.runner.runDue();
      const hit = receiver.on('/events').map((r) => verify(secret, r) as any).find((b) => b.type === type && match(b.data));
      return hit ?? false;
    }, { what: `${type} delivered` });
  }

  it('[WHK-10] an onboarded venue emits venue.onboarded', async () => {
    const body = await received('venue.onboarded', (d) => d.venueId === venue.venueId);
    expect(body.data).toMatchObject({ venueId: venue.venueId, posType: POS.immediate, posVenueId: venue.posVenueId, entityId: venue.venueId, sequence: 1 });
  });

  it('[WHK-10] a confirmed payment emits payment.confirmed, and the order it settles order.closed', async () => {
    await w.openOrder(venue.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] as never });
    const bill = await w.bill(venue, '1');
    const orderId = bill.body.orderId as string;
    const paid = await w.pay(venue, orderId, { externalReference: `wh-${Date.now()}`, amount: bill.body.totals.totalDue, type: 'full', paymentMethod: 'visa' });
    expect(paid.body.status).toBe('confirmed');
    const confirmed = await received('payment.confirmed', (d) => d.paymentId === paid.body.paymentId);
    expect(confirmed.data).toMatchObject({ paymentId: paid.body.paymentId, orderId, venueId: venue.venueId, status: 'confirmed', amount: paid.body.amount, entityId: paid.body.paymentId, sequence: 1 });
    const closed = await received('order.closed', (d) => d.orderId === orderId);
    expect(closed.data).toMatchObject({ orderId, venueId: venue.venueId, closedBy: 'pat', entityId: orderId, sequence: 1 });
  });

  it('[WHK-10] a payment recorded confirmed at once (venue without forwarding) emits payment.confirmed', async () => {
    const plain = await w.connectVenue({ posType: POS.noForwarding });
    await w.openOrder(plain.posVenueId, { tables: ['3'], checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] as never });
    const bill = await w.bill(plain, '3');
    const paid = await w.pay(plain, bill.body.orderId, { externalReference: `wh-n-${Date.now()}`, amount: 2, type: 'partial' });
    expect(paid.body.status).toBe('confirmed');
    const confirmed = await received('payment.confirmed', (d) => d.paymentId === paid.body.paymentId);
    expect(confirmed.data).toMatchObject({ paymentId: paid.body.paymentId, venueId: plain.venueId, amount: 2, type: 'partial' });
  });

  it('[WHK-10] a payment recorded confirmed at once is announced once, by its claim; a claim that records nothing announces nothing', async () => {
    const plain = await w.connectVenue({ posType: POS.noForwarding });
    await w.openOrder(plain.posVenueId, { tables: ['4'], checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] as never });
    const bill = await w.bill(plain, '4');
    const ref = `wh-once-${Date.now()}`;
    const paid = await w.pay(plain, bill.body.orderId, { externalReference: ref, amount: bill.body.totals.totalDue, type: 'full' });
    expect(paid.body.status).toBe('confirmed');
    // A replay of the same reference and a payment on the order it closed record nothing.
    const replay = await w.pay(plain, bill.body.orderId, { externalReference: ref, amount: bill.body.totals.totalDue, type: 'full' });
    expect(replay.status).toBe(200);
    const refused = await w.pay(plain, bill.body.orderId, { externalReference: `${ref}-late`, amount: 1, type: 'partial' });
    expect(refused.status).toBe(422);
    const { rows } = await sql<{ entity_id: string; sequence: number }>`
      SELECT entity_id, sequence FROM outbox WHERE type = 'payment.confirmed' AND venue_id = ${plain.venueId}`.execute(w.app.db.kysely);
    expect(rows).toEqual([{ entity_id: paid.body.paymentId, sequence: 1 }]);
    const confirmed = await received('payment.confirmed', (d) => d.paymentId === paid.body.paymentId);
    expect(confirmed.data).toMatchObject({ ...Object.fromEntries(Object.entries(paid.body).filter(([k]) => k !== 'orderStatus')), venueId: plain.venueId, entityId: paid.body.paymentId, sequence: 1 });
    // The close that payment made is announced once, by the close's own statement, as the row reads.
    const order = (await sql<{ pos_order_id: string; closed_at: Date; closed_by: string }>`
      SELECT pos_order_id, closed_at, closed_by FROM orders WHERE id = ${bill.body.orderId}`.execute(w.app.db.kysely)).rows[0];
    const closedRows = await sql<{ data: unknown }>`SELECT data FROM outbox WHERE type = 'order.closed' AND entity_id = ${bill.body.orderId}`.execute(w.app.db.kysely);
    expect(closedRows.rows).toEqual([
      { data: { orderId: bill.body.orderId, venueId: plain.venueId, posOrderId: order.pos_order_id, closedAt: order.closed_at.toISOString(), closedBy: 'pat' } },
    ]);
    expect(order.closed_by).toBe('pat');
  });

  it('[WHK-10] a failed payment emits payment.failed', async () => {
    const deferred = await w.connectVenue({ posType: POS.deferred, behaviour: { payment: 'deferred', delayMs: 100, outcome: 'pos_overpaid' } as never });
    await w.openOrder(deferred.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] as never });
    const bill = await w.bill(deferred, '2');
    const paid = await w.pay(deferred, bill.body.orderId, { externalReference: `wh-f-${Date.now()}`, amount: 2.5, type: 'full' });
    expect([200, 202]).toContain(paid.status);
    const failed = await received('payment.failed', (d) => d.paymentId === paid.body.paymentId);
    expect(failed.data).toMatchObject({ paymentId: paid.body.paymentId, status: 'failed', failureCode: 'pos_overpaid', venueId: deferred.venueId });
  });

  it('[WHK-03] a suspended POS connection emits pos_connection.suspended, and resumed when it comes back, numbered after the venue\'s venue.onboarded (one sequence per venue)', async () => {
    await w.app.service.app.services.connections.suspend(venue.venueId);
    const suspended = await received('pos_connection.suspended', (d) => d.venueId === venue.venueId);
    expect(suspended.data).toMatchObject({ venueId: venue.venueId, status: 'suspended', reason: 'operator', entityId: venue.venueId, sequence: 2 });
    await w.app.service.app.services.connections.resume(venue.venueId);
    const resumed = await received('pos_connection.resumed', (d) => d.venueId === venue.venueId);
    expect(resumed.data).toMatchObject({ venueId: venue.venueId, status: 'active', reason: null, entityId: venue.venueId, sequence: 3 });
  });
});
