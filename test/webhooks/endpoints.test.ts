import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachStore, describePostgres } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import { testCertFile } from '../helpers/http.ts';

// The endpoints API of DESIGN 8.5: any partner with its own credential manages its own endpoints;
// the secret is answered once; bad URLs and unknown event types are a 400 that changes nothing.

const PATH = '/v1/webhooks/endpoints';

describeEachStore('webhook endpoints API', (store) => {
  let app: TestApp;
  let rms: TestPartner;
  let pat: TestPartner;
  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    app = await startTestApp({ store, env: { ALLOW_PRIVATE_TARGETS: '1' } });
    rms = await app.newPartner(['rms'], 'RMS partner');
    pat = await app.newPartner(['pat'], 'Payment app');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('[WHK-01] POST answers the endpoint with a whsec_ secret once; GET and the list never show it', async () => {
    const created = await app.http.request('POST', PATH, { token: pat.token, body: { url: 'https://127.0.0.1:9/hooks', events: ['payment.confirmed'], description: 'till' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ url: 'https://127.0.0.1:9/hooks', events: ['payment.confirmed'], description: 'till', status: 'enabled', disabledReason: null });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const one = await app.http.request('GET', `${PATH}/${created.body.id}`, { token: pat.token });
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('secret');
    expect(one.text).not.toContain(created.body.secret.slice(6));
    const list = await app.http.request('GET', PATH, { token: pat.token });
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    expect(list.text).not.toContain(created.body.secret.slice(6));
    // Stored sealed (AES-GCM), never in clear.
    const { rows } = await sql<{ secret_sealed: string }>`SELECT secret_sealed FROM webhook_endpoints WHERE id = ${created.body.id}`.execute(app.db.kysely);
    expect(rows[0]!.secret_sealed).toMatch(/^v1\./);
    expect(rows[0]!.secret_sealed).not.toContain(created.body.secret.slice(6, 20));
  });

  it('an RMS partner uses its API key, a pay-at-table partner its access token; each sees only its own endpoints', async () => {
    const mine = await app.http.request('POST', PATH, { token: rms.apiKey, body: { url: 'https://127.0.0.1:9/rms', events: ['booking.created', 'availability_feed.processed'] } });
    expect(mine.status).toBe(200);
    expect((await app.http.request('GET', `${PATH}/${mine.body.id}`, { token: pat.token })).status).toBe(404);
    expect((await app.http.request('PUT', `${PATH}/${mine.body.id}`, { token: pat.token, body: { description: 'x' } })).status).toBe(404);
    expect((await app.http.request('DELETE', `${PATH}/${mine.body.id}`, { token: pat.token })).status).toBe(404);
    const list = await app.http.request('GET', PATH, { token: rms.apiKey });
    expect(list.body.data.map((e: any) => e.id)).toEqual([mine.body.id]);
    expect((await app.http.request('GET', PATH)).status).toBe(401);
    expect((await app.http.request('GET', PATH, { token: 'tsk_nonsensenonsensenonsense' })).status).toBe(401);
  });

  it('a URL that is not https, or has credentials, is a 400 naming url; unknown event types are a 400 listing them; nothing is created', async () => {
    const before = (await app.http.request('GET', PATH, { token: pat.token })).body.total;
    const http = await app.http.request('POST', PATH, { token: pat.token, body: { url: 'http://example.com/hook', events: ['payment.confirmed'] } });
    expect(http.status).toBe(400);
    expect(http.body.error.details.url).toEqual(['must be an https URL']);
    const unknown = await app.http.request('POST', PATH, { token: pat.token, body: { url: 'https://127.0.0.1:9/h', events: ['payment.confirmed', 'payment.exploded', 'nope'] } });
    expect(unknown.status).toBe(400);
    // The catalogue is the schema's enum: each unknown type is named by its place in the list.
    expect(unknown.body.error.details).toEqual({
      'events[1]': [expect.stringContaining('not an event type of the catalogue')],
      'events[2]': [expect.stringContaining('not an event type of the catalogue')],
    });
    for (const query of [{ offset: '100000000000000000000' }, { limit: '51' }, { offset: '-1' }]) {
      const bad = await app.http.request('GET', PATH, { token: pat.token, query });
      expect(bad.status, JSON.stringify(query)).toBe(400);
    }
    const empty = await app.http.request('POST', PATH, { token: pat.token, body: { url: 'https://127.0.0.1:9/h', events: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details).toEqual({ events: ['must have at least 1 item'] });
    const twice = await app.http.request('POST', PATH, { token: pat.token, body: { url: 'https://127.0.0.1:9/h', events: ['payment.confirmed', 'payment.confirmed'] } });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details).toEqual({ events: ['must not contain duplicates'] });
    const wrongType = await app.http.request('POST', PATH, { token: pat.token, body: { url: 42, events: 'payment.confirmed' } });
    expect(wrongType.status).toBe(400);
    expect((await app.http.request('GET', PATH, { token: pat.token })).body.total).toBe(before);
  });

  it('the whole DESIGN 8.5 catalogue is accepted as a subscription', async () => {
    const catalogue = [
      'payment.confirmed', 'payment.failed', 'payment.late_confirmation', 'order.closed', 'venue.onboarded',
      'pos_connection.suspended', 'pos_connection.resumed', 'booking.created', 'booking.updated', 'booking.canceled',
      'booking.seated', 'pos_order.opened', 'pos_order.unknown_skus', 'pos_order.failed', 'availability_feed.processed',
    ];
    const res = await app.http.request('POST', PATH, { token: pat.token, body: { url: 'https://127.0.0.1:9/all', events: catalogue } });
    expect(res.status).toBe(200);
    expect(res.body.events).toEqual(catalogue);
  });

  it('PUT changes the fields given and keeps the others; DELETE removes the endpoint', async () => {
    const created = await app.http.request('POST', PATH, { token: pat.token, body: { url: 'https://127.0.0.1:9/a', events: ['order.closed'], description: 'd' } });
    const put = await app.http.request('PUT', `${PATH}/${created.body.id}`, { token: pat.token, body: { events: ['order.closed', 'payment.failed'], status: 'disabled' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ url: 'https://127.0.0.1:9/a', description: 'd', events: ['order.closed', 'payment.failed'], status: 'disabled', disabledReason: 'by_partner' });
    const badPut = await app.http.request('PUT', `${PATH}/${created.body.id}`, { token: pat.token, body: { url: 'ftp://x', events: ['x.y'] } });
    expect(badPut.status).toBe(400);
    expect(Object.keys(badPut.body.error.details).sort()).toEqual(['events[0]', 'url']);
    const enabled = await app.http.request('PUT', `${PATH}/${created.body.id}`, { token: pat.token, body: { status: 'enabled', description: null } });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null, description: null, url: 'https://127.0.0.1:9/a' });
    expect((await app.http.request('DELETE', `${PATH}/${created.body.id}`, { token: pat.token })).status).toBe(204);
    expect((await app.http.request('GET', `${PATH}/${created.body.id}`, { token: pat.token })).status).toBe(404);
    expect((await app.http.request('GET', `${PATH}/not-a-uuid`, { token: pat.token })).status).toBe(404);
  });

  it('the endpoints API is in /openapi.json with its operations', async () => {
    const doc = (await app.http.request('GET', '/openapi.json')).body;
    const ops = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>)
      .flatMap((p) => Object.values(p).map((o) => o.operationId))
      .filter((id) => id && /Webhook/.test(id));
    expect(ops.sort()).toEqual([
      'createWebhookEndpoint', 'deleteWebhookEndpoint', 'getWebhookEndpoint', 'listWebhookDeliveries', 'listWebhookEndpoints',
      'recoverWebhookDeliveries', 'rotateWebhookSecret', 'testWebhookEndpoint', 'updateWebhookEndpoint',
    ]);
  });

  it('rotate-secret answers a new whsec_ secret once, and when the old one stops signing', async () => {
    const created = await app.http.request('POST', PATH, { token: pat.token, body: { url: 'https://127.0.0.1:9/r', events: ['order.closed'] } });
    const rotated = await app.http.request('POST', `${PATH}/${created.body.id}/rotate-secret`, { token: pat.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(new Date(rotated.body.previousSecretExpiresAt).getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
  });
});

describe('webhook endpoints without ALLOW_PRIVATE_TARGETS', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { ALLOW_PRIVATE_TARGETS: '0' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a URL at a loopback, private or metadata address is a 400 naming url', async () => {
    const partner = await app.newPartner(['analytics']);
    for (const url of ['https://127.0.0.1/h', 'https://10.1.2.3/h', 'https://169.254.169.254/latest', 'https://[::1]/h', 'https://localhost/h']) {
      const res = await app.http.request('POST', PATH, { token: partner.token, body: { url, events: ['order.closed'] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details.url[0], url).toMatch(/loopback, private|could not be resolved/);
    }
    expect((await app.http.request('GET', PATH, { token: partner.token })).body.total).toBe(0);
  });
});

// Issue 28's bench: a DELETE while the sender recorded deliveries to that endpoint failed with a
// deadlock. The delete cascades over the endpoint's deliveries while a record holds one of them and
// then needs the endpoint row (its attempt's foreign key): PostgreSQL ends one of the two.
describePostgres('webhook endpoints API, removal beside the sender', () => {
  let app: TestApp;
  let pat: TestPartner;
  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    app = await startTestApp({ store: 'postgres', env: { ALLOW_PRIVATE_TARGETS: '1' } });
    pat = await app.newPartner(['pat'], 'Payment app');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('DELETE ended by PostgreSQL to break a deadlock with a delivery record is asked again: 204, the endpoint and its deliveries gone', async () => {
    const endpoint = (await app.http.request('POST', PATH, { token: pat.token, body: { url: 'https://127.0.0.1:9/hooks', events: ['payment.confirmed'] } })).body;
    const deliveryId = uuidv7();
    await sql`INSERT INTO webhook_deliveries (id, endpoint_id, event_id, webhook_id, type, body, status, event_at, created_at, updated_at)
      VALUES (${deliveryId}, ${endpoint.id}, NULL, 'msg_test', 'webhook.test', '{}', 'pending', now(), now(), now())`.execute(app.db.kysely);
    let removal: Promise<{ status: number }> | undefined;
    await app.db.kysely.transaction().execute(async (tx) => {
      // The record: it never runs the deadlock check first (the DELETE, waiting longer, does), so
      // PostgreSQL ends the DELETE, as it did in the bench.
      await sql`SET LOCAL deadlock_timeout = '20s'`.execute(tx);
      await sql`UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE id = ${deliveryId}`.execute(tx);
      removal = app.http.request('DELETE', `${PATH}/${endpoint.id}`, { token: pat.token });
      // The DELETE has the endpoint row and waits for the delivery this record holds...
      await eventually(async () => {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM webhook_endpoints%'`.execute(app.db.kysely);
        expect(rows[0]!.n).toBeGreaterThanOrEqual(1);
      });
      // ...and the record's attempt needs the endpoint row (its foreign key): a deadlock.
      await sql`INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, response_code, duration_ms, at)
        VALUES (${uuidv7()}, ${deliveryId}, ${endpoint.id}, 1, 'succeeded', 200, 5, now())`.execute(tx);
    });
    expect((await removal!).status).toBe(204);
    expect((await app.http.request('GET', `${PATH}/${endpoint.id}`, { token: pat.token })).status).toBe(404);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ${endpoint.id}`.execute(app.db.kysely);
    expect(rows[0]!.n).toBe(0);
  });
});
