import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { startWebhookWorld, verify, type WebhookWorld } from './world.ts';

// Delivery of outbox events to a real HTTPS receiver: Standard Webhooks signatures verified with the
// `standardwebhooks` package, the body and its per-entity sequence, who receives what, and that a
// rolled-back change sends nothing.

describeEachStore('webhook delivery', (store) => {
  let w: WebhookWorld;
  let a: TestPartner;
  let b: TestPartner;
  let venueA: string;
  let venueB: string;
  beforeAll(async () => {
    w = await startWebhookWorld(store);
    a = await w.app.newPartner(['pat'], 'A');
    b = await w.app.newPartner(['analytics'], 'B');
    venueA = await w.app.newVenue({ name: 'A venue' });
    venueB = await w.app.newVenue({ name: 'B venue' });
    await w.app.grant(a.partnerId, venueA);
    await w.app.grant(b.partnerId, venueB);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('[WHK-02] [DES-113] every delivery carries webhook-id, webhook-timestamp and webhook-signature, and verifies with the endpoint secret; a tampered body does not', async () => {
    const ep = await w.endpoint(a, ['order.closed'], '/sig');
    await w.emitEvent({ venueId: venueA }, 'order.closed', 'order-sig', { orderId: 'order-sig' });
    await w.run();
    const [got] = w.receiver.on('/sig');
    expect(got).toBeDefined();
    expect(got!.headers['webhook-id']).toMatch(/^msg_/);
    expect(got!.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(got!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(verify(ep.secret, got!)).toMatchObject({ type: 'order.closed' });
    expect(() => verify(ep.secret, { ...got!, body: got!.body.replace('order-sig', 'order-sog') })).toThrow();
    const other = await w.endpoint(a, ['order.closed'], '/sig-other');
    expect(() => verify(other.secret, got!)).toThrow();
  });

  it('[WHK-03] the body is {type, timestamp, data}; data carries the entity id and a sequence that increases with each event of that entity', async () => {
    await w.endpoint(a, ['payment.confirmed', 'payment.failed', 'payment.late_confirmation'], '/seq');
    await w.emitEvent({ partnerId: a.partnerId, venueId: venueA }, 'payment.failed', 'pay-1', { paymentId: 'pay-1' });
    await w.emitEvent({ partnerId: a.partnerId, venueId: venueA }, 'payment.confirmed', 'pay-2', { paymentId: 'pay-2' });
    await w.emitEvent({ partnerId: a.partnerId, venueId: venueA }, 'payment.late_confirmation', 'pay-1', { paymentId: 'pay-1' });
    await w.run();
    const bodies = w.receiver.on('/seq').map((r) => r.json);
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      expect(Object.keys(body).sort()).toEqual(['data', 'timestamp', 'type']);
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    }
    // Deliveries run concurrently and may arrive in any order: the sequence is what orders them.
    const seq = (id: string) =>
      bodies.filter((x) => x.data.entityId === id).sort((x, y) => x.data.sequence - y.data.sequence).map((x) => [x.type, x.data.sequence]);
    expect(seq('pay-1')).toEqual([['payment.failed', 1], ['payment.late_confirmation', 2]]);
    expect(seq('pay-2')).toEqual([['payment.confirmed', 1]]);
    expect(bodies.find((x) => x.data.entityId === 'pay-2').data.paymentId).toBe('pay-2');
  });

  it('[WHK-04] [WHK-12] an endpoint receives only the types it subscribed to, and only events of venues its partner may see', async () => {
    await w.endpoint(a, ['venue.onboarded'], '/scope-a');
    await w.endpoint(b, ['venue.onboarded', 'payment.confirmed'], '/scope-b');
    await w.emitEvent({ venueId: venueA }, 'venue.onboarded', venueA, { venueId: venueA });
    await w.emitEvent({ venueId: venueB }, 'venue.onboarded', venueB, { venueId: venueB });
    await w.run();
    // Addressed to A, about A's venue: B never sees it, even once B is granted the venue.
    await w.app.grant(b.partnerId, venueA);
    await w.emitEvent({ partnerId: a.partnerId, venueId: venueA }, 'payment.confirmed', 'pay-scope', { paymentId: 'pay-scope' });
    await w.emitEvent({ venueId: venueA }, 'order.closed', 'order-unsubscribed', {});
    await w.run();
    expect(w.receiver.on('/scope-a').map((r) => r.json.data.venueId)).toEqual([venueA]);
    expect(w.receiver.on('/scope-b').map((r) => [r.json.type, r.json.data.entityId])).toEqual([['venue.onboarded', venueB]]);
  });

  it('[WHK-12] an RMS partner receives the events of the venues it owns in the content API, and no other partner\'s', async () => {
    const rms = await w.app.newPartner(['rms'], 'RMS');
    await sql`UPDATE venues SET owner_partner_id = ${rms.partnerId} WHERE id = ${venueB}`.execute(w.app.db.kysely);
    await w.endpoint(rms, ['booking.created'], '/rms');
    await w.emitEvent({ venueId: venueB }, 'booking.created', 'bk-1', { id: 'bk-1' });
    await w.emitEvent({ venueId: venueA }, 'booking.created', 'bk-2', { id: 'bk-2' });
    await w.run();
    expect(w.receiver.on('/rms').map((r) => r.json.data.entityId)).toEqual(['bk-1']);
  });

  it('[DES-112] an event is sent only when its change commits: a rolled-back change sends nothing', async () => {
    await w.endpoint(a, ['order.closed'], '/rollback');
    const { emit } = await import('../../src/db/outbox.ts');
    await expect(
      w.app.db.kysely.transaction().execute(async (tx) => {
        await emit(tx, { venueId: venueA }, { type: 'order.closed', entityId: 'order-rolled-back', data: {} }, w.clock.now());
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await w.emitEvent({ venueId: venueA }, 'order.closed', 'order-committed', {});
    await w.run();
    expect(w.receiver.on('/rollback').map((r) => r.json.data.entityId)).toEqual(['order-committed']);
  });

  it('an event nobody receives is fanned out to no delivery and its job is gone; an event with a receiver gets its delivery and its job is gone too', async () => {
    const unseenVenue = await w.app.newVenue({ name: 'Nobody sees it' });
    const ep = await w.endpoint(a, ['order.closed'], '/fan-out');
    const unseen = await w.emitEvent({ venueId: unseenVenue }, 'order.closed', 'order-unseen', {});
    const seen = await w.emitEvent({ venueId: venueA }, 'order.closed', 'order-seen', {});
    await w.run();
    const { rows: deliveries } = await sql<{ event_id: string; endpoint_id: string }>`
      SELECT event_id, endpoint_id FROM webhook_deliveries WHERE event_id IN (${unseen}, ${seen})`.execute(w.app.db.kysely);
    expect(deliveries.filter((d) => d.event_id === unseen)).toEqual([]);
    expect(deliveries).toContainEqual({ event_id: seen, endpoint_id: ep.id });
    const { rows: jobs } = await sql`SELECT id FROM jobs WHERE payload->>'eventId' IN (${unseen}, ${seen})`.execute(w.app.db.kysely);
    expect(jobs).toEqual([]);
    expect(w.receiver.on('/fan-out').map((r) => r.json.data.entityId)).toEqual(['order-seen']);
  });

  it('[WHK-13] POST /endpoints/{id}/test delivers a signed webhook.test event at once', async () => {
    const ep = await w.endpoint(a, ['order.closed'], '/test');
    const res = await w.app.http.request('POST', `/v1/webhooks/endpoints/${ep.id}/test`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', responseCode: 204, error: null });
    const [got] = w.receiver.on('/test');
    expect(verify(ep.secret, got!)).toMatchObject({ type: 'webhook.test', data: { endpointId: ep.id } });
    expect(got!.headers['webhook-id']).toBe(res.body.webhookId);
    const log = await w.attempts(a, ep.id);
    expect(log).toMatchObject([{ webhookId: res.body.webhookId, type: 'webhook.test', attempt: 1, status: 'succeeded', responseCode: 204 }]);
  });
});
