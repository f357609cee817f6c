import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { startWebhookWorld, verify, type WebhookWorld } from './world.ts';

// What happens when an endpoint fails: retries with the same webhook-id on the schedule, 410 and
// the 5-day rule disable it (with a webhook.endpoint_disabled notice), Retry-After is honoured,
// every attempt is in the log, recover re-sends, rotation signs with both secrets for 24 h.

const S = 1000;
const H = 3600 * S;

describeEachStore('webhook retries, disabling, recover and rotation', (store) => {
  let w: WebhookWorld;
  let p: TestPartner;
  let venue: string;
  beforeAll(async () => {
    w = await startWebhookWorld(store);
    p = await w.app.newPartner(['pat'], 'P');
    venue = await w.app.newVenue();
    await w.app.grant(p.partnerId, venue);
  });
  afterAll(async () => {
    await w?.close();
  });
  // Each test starts at the real time (signatures verify within 5 minutes of it) with a fresh token.
  beforeEach(async () => {
    w.clock.set(Date.now());
    p.token = (await w.app.service.app.services.auth.issueToken(p.partnerId, 30 * 86_400)).accessToken;
  });
  const getEndpoint = async (id: string) => (await w.app.http.request('GET', `/v1/webhooks/endpoints/${id}`, { token: p.token })).body;

  it('[WHK-05] [DES-114] [WHK-08] a failed delivery is retried later with the same webhook-id, with backoff; the log lists each attempt', async () => {
    const ep = await w.endpoint(p, ['order.closed'], '/retry');
    let calls = 0;
    w.receiver.behave((r) => (r.path === '/retry' && ++calls <= 2 ? { status: 500, body: 'boom' } : { status: 204 }));
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-retry', {});
    await w.run();
    expect(w.receiver.on('/retry')).toHaveLength(1);
    // The first retry waits 5 s (plus or minus 10 %): not before 4.5 s.
    w.clock.advance(4.4 * S);
    await w.run();
    expect(w.receiver.on('/retry')).toHaveLength(1);
    w.clock.advance(1.2 * S);
    await w.run();
    expect(w.receiver.on('/retry')).toHaveLength(2);
    // The second waits 5 min: nothing after 4 min, delivered after 6.
    w.clock.advance(4 * 60 * S);
    await w.run();
    expect(w.receiver.on('/retry')).toHaveLength(2);
    w.clock.advance(2 * 60 * S);
    await w.run();
    const got = w.receiver.on('/retry');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const log = await w.attempts(p, ep.id);
    expect(log.map((a: any) => [a.attempt, a.status, a.responseCode])).toEqual([[3, 'succeeded', 204], [2, 'failed', 500], [1, 'failed', 500]]);
    expect(log[2]).toMatchObject({ webhookId: got[0]!.headers['webhook-id'], type: 'order.closed', error: 'boom' });
    w.receiver.behave({ status: 204 });
  });

  it('[WHK-06] an endpoint answering 410 is disabled, receives nothing more, and a webhook.endpoint_disabled notice is sent to the partner', async () => {
    const watcher = await w.endpoint(p, ['webhook.endpoint_disabled'], '/watcher');
    const ep = await w.endpoint(p, ['order.closed'], '/gone');
    w.receiver.behave((r) => (r.path === '/gone' ? { status: 410 } : { status: 204 }));
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-gone-1', {});
    await w.run();
    expect(await getEndpoint(ep.id)).toMatchObject({ status: 'disabled', disabledReason: 'answered_410' });
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-gone-2', {});
    w.clock.advance(H);
    await w.run();
    expect(w.receiver.on('/gone').map((r) => r.json.data.entityId)).toEqual(['o-gone-1']);
    const [notice] = w.receiver.on('/watcher');
    expect(verify(watcher.secret, notice!)).toMatchObject({ type: 'webhook.endpoint_disabled', data: { endpointId: ep.id, reason: 'answered_410' } });
    w.receiver.behave({ status: 204 });
  });

  it('429, 502 and 504 honour Retry-After instead of the schedule', async () => {
    await w.endpoint(p, ['order.closed'], '/busy');
    let calls = 0;
    w.receiver.behave((r) => (r.path === '/busy' && ++calls === 1 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 204 }));
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-busy', {});
    await w.run();
    w.clock.advance(60 * S);
    await w.run();
    expect(w.receiver.on('/busy')).toHaveLength(1);
    w.clock.advance(61 * S);
    await w.run();
    expect(w.receiver.on('/busy')).toHaveLength(2);
    w.receiver.behave({ status: 204 });
  });

  it('an endpoint failing for 5 days is disabled and the webhook.endpoint_disabled notice is recorded', async () => {
    const ep = await w.endpoint(p, ['payment.failed'], '/failing');
    w.receiver.behave((r) => (r.path === '/failing' ? { status: 503 } : { status: 204 }));
    await w.emitEvent({ partnerId: p.partnerId, venueId: venue }, 'payment.failed', 'pay-f1', {});
    await w.run();
    w.clock.advance(4 * 24 * H);
    await w.emitEvent({ partnerId: p.partnerId, venueId: venue }, 'payment.failed', 'pay-f2', {});
    await w.run();
    expect((await getEndpoint(ep.id)).status).toBe('enabled');
    w.clock.advance(24 * H + S);
    await w.run();
    expect(await getEndpoint(ep.id)).toMatchObject({ status: 'disabled', disabledReason: 'failing_5_days' });
    const { rows } = await sql<{ data: any }>`SELECT data FROM outbox WHERE type = 'webhook.endpoint_disabled' AND entity_id = ${ep.id}`.execute(w.app.db.kysely);
    expect(rows.map((r) => r.data.reason)).toEqual(['failing_5_days']);
    w.receiver.behave({ status: 204 });
  });

  it('[WHK-09] [DES-115] recover {since} re-sends at once what failed or is waiting for a retry, and sends what the endpoint missed', async () => {
    const ep = await w.endpoint(p, ['order.closed'], '/recover');
    const since = w.clock.now().toISOString();
    w.receiver.behave((r) => (r.path === '/recover' ? { status: 500 } : { status: 204 }));
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-rec-1', {});
    await w.run();
    // Paused by the partner: the next event is missed.
    await w.app.http.request('PUT', `/v1/webhooks/endpoints/${ep.id}`, { token: p.token, body: { status: 'disabled' } });
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-rec-2', {});
    await w.run();
    expect(w.receiver.on('/recover').map((r) => r.json.data.entityId)).toEqual(['o-rec-1']);
    w.receiver.behave({ status: 204 });
    const res = await w.app.http.request('POST', `/v1/webhooks/endpoints/${ep.id}/recover`, { token: p.token, body: { since } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ resent: 1, missed: 1 });
    await w.run();
    const got = w.receiver.on('/recover');
    expect(got.map((r) => r.json.data.entityId).sort()).toEqual(['o-rec-1', 'o-rec-1', 'o-rec-2']);
    for (const r of got) verify(ep.secret, r);
    expect(got[0]!.headers['webhook-id']).toBe(got.find((r, i) => i > 0 && r.json.data.entityId === 'o-rec-1')!.headers['webhook-id']);
    expect((await getEndpoint(ep.id)).status).toBe('enabled');
    // Nothing left to recover; a window in the future or upside down is a 400.
    expect((await w.app.http.request('POST', `/v1/webhooks/endpoints/${ep.id}/recover`, { token: p.token, body: { since } })).body).toEqual({ resent: 0, missed: 0 });
    const future = new Date(w.clock.now().getTime() + H).toISOString();
    expect((await w.app.http.request('POST', `/v1/webhooks/endpoints/${ep.id}/recover`, { token: p.token, body: { since: future } })).status).toBe(400);
    expect((await w.app.http.request('POST', `/v1/webhooks/endpoints/${ep.id}/recover`, { token: p.token, body: { since: 'yesterday' } })).status).toBe(400);
  });

  it('[WHK-07] after rotate-secret deliveries carry two signatures for 24 h, and either secret verifies', async () => {
    const ep = await w.endpoint(p, ['order.closed'], '/rotate');
    const rotated = await w.app.http.request('POST', `/v1/webhooks/endpoints/${ep.id}/rotate-secret`, { token: p.token });
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-rot-1', {});
    await w.run();
    const [got] = w.receiver.on('/rotate');
    expect(got!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(rotated.body.secret, got!).type).toBe('order.closed');
    expect(verify(ep.secret, got!).type).toBe('order.closed');
    w.clock.advance(24 * H + S);
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-rot-2', {});
    await w.run();
    const later = w.receiver.on('/rotate')[1]!;
    expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
  });
});
