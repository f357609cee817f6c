import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTablesideClient, paginate, TablesideError, unwrap, verifyWebhook, WebhookVerificationError, type TablesideClient } from '../src/index.ts';
import { serviceUnavailable, startReceiver, startSdkWorld, type SdkWorld } from './world.ts';

// The SDK against the real service in sandbox mode (issue 17, SDK proof): token refresh, a retried
// 503 payment recorded once, pagination over several pages, webhook verification, requests that are
// never retried, and the typed error. Faults are put in front of the real service at the fetch layer.

const TOKEN_TTL_S = 3;
let world: SdkWorld;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const fast = { baseDelayMs: 5, maxDelayMs: 20 };

beforeAll(async () => {
  world = await startSdkWorld({ config: { accessTokenTtlS: TOKEN_TTL_S } });
  receiver = await startReceiver(world.sandboxTls);
}, 180_000);

afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const patClient = (extra: Partial<Parameters<typeof createTablesideClient>[0]> = {}): TablesideClient =>
  createTablesideClient({ baseUrl: world.sandbox.baseUrl, clientId: world.sandbox.clientId, clientSecret: world.sandbox.clientSecret, fetch: world.fetch, retry: fast, ...extra });

const since = (i: number) => world.attempts.slice(i).map((a) => `${a.method} ${a.path} ${a.status}`);

/** A table of the venue with an open bill, and that bill. */
async function openBill(client: TablesideClient, venueId: string) {
  const { tables } = unwrap(await client.GET('/v1/pat/venue/{venueId}/tables', { params: { path: { venueId } } }));
  for (const table of tables) {
    const result = await client.GET('/v1/pat/venue/{venueId}/table/{tableId}/bill', { params: { path: { venueId, tableId: table.id } } });
    if (result.response.status === 404) continue;
    return unwrap(result);
  }
  throw new Error(`no open bill at venue ${venueId}`);
}

describe('auth and token refresh', () => {
  it('gets a client-credentials token, replaces it before it expires, and once after a 401, then repeats the refused call', async () => {
    const client = patClient();
    const start = world.attempts.length;
    unwrap(await client.GET('/v1/pat/venues'));
    expect(since(start)).toEqual(['POST /oauth/token 200', 'GET /v1/pat/venues 200']);
    const first = world.attempts.at(-1)!.authorization;
    expect(first).toMatch(/^Bearer tat_/);

    // The token lives TOKEN_TTL_S seconds; the client replaces it when a fifth of that is left.
    await new Promise((r) => setTimeout(r, (TOKEN_TTL_S * 1000 * 4) / 5 + 100));
    const beforeExpiry = world.attempts.length;
    unwrap(await client.GET('/v1/pat/venues'));
    expect(since(beforeExpiry)).toEqual(['POST /oauth/token 200', 'GET /v1/pat/venues 200']);
    const second = world.attempts.at(-1)!.authorization!;
    expect(second).not.toBe(first);

    // The service refuses the token (revoked): one new token, and the call is sent again.
    await world.app.service.app.services.auth.revokeToken(second.slice('Bearer '.length));
    const afterRevoke = world.attempts.length;
    const venues = unwrap(await client.GET('/v1/pat/venues'));
    expect(venues.total).toBeGreaterThan(0);
    expect(since(afterRevoke)).toEqual(['GET /v1/pat/venues 401', 'POST /oauth/token 200', 'GET /v1/pat/venues 200']);
    expect(world.attempts.at(-1)!.authorization).not.toBe(second);
  });

  it('sends each family its credential: API key on /v1/rms, token on /v1/pat, channel key on /v1/bc (and on /v1/webhooks when it is the only one), Basic on /v3', async () => {
    const google = world.sandbox.channels.find((c) => c.protocol === 'google-v3')!.credentials;
    const bc = world.sandbox.channels.find((c) => c.protocol === 'tableside')!.credentials;
    const client = createTablesideClient({
      baseUrl: world.sandbox.baseUrl, apiKey: world.sandbox.apiKey, accessToken: world.sandbox.accessToken, channelKey: bc.apiKey,
      channelBasic: { username: google.username, password: google.password }, fetch: world.fetch,
    });
    const start = world.attempts.length;
    unwrap(await client.GET('/v1/rms/company'));
    unwrap(await client.GET('/v1/pat/pos-types'));
    unwrap(await client.GET('/v1/webhooks/endpoints'));
    unwrap(await client.GET('/v1/bc/venues'));
    expect((await client.GET('/v3/HealthCheck')).response.status).toBe(200);
    const sent = world.attempts.slice(start).map((a) => [a.path, a.authorization]);
    expect(sent).toEqual([
      ['/v1/rms/company', `Bearer ${world.sandbox.apiKey}`],
      ['/v1/pat/pos-types', `Bearer ${world.sandbox.accessToken}`],
      ['/v1/webhooks/endpoints', `Bearer ${world.sandbox.accessToken}`],
      ['/v1/bc/venues', `Bearer ${bc.apiKey}`],
      ['/v3/HealthCheck', `Basic ${Buffer.from(`${google.username}:${google.password}`).toString('base64')}`],
    ]);
    // With only an API key, /v1/webhooks takes the key.
    const keyOnly = createTablesideClient({ baseUrl: world.sandbox.baseUrl, apiKey: world.sandbox.apiKey, fetch: world.fetch });
    unwrap(await keyOnly.GET('/v1/webhooks/endpoints'));
    expect(world.attempts.at(-1)!.authorization).toBe(`Bearer ${world.sandbox.apiKey}`);
    // [CHN-28] With only a channel key, /v1/webhooks takes it: the channel's own endpoints.
    const channelOnly = createTablesideClient({ baseUrl: world.sandbox.baseUrl, channelKey: bc.apiKey, fetch: world.fetch });
    unwrap(await channelOnly.GET('/v1/webhooks/endpoints'));
    expect(world.attempts.at(-1)!.authorization).toBe(`Bearer ${bc.apiKey}`);
  });
});

describe('safe retries', () => {
  it('[PAY-43] [PAY-62] a payment answered 503 after the service recorded it is sent again with the same externalReference, honouring Retry-After, and recorded once', async () => {
    const client = patClient();
    const venueId = world.sandbox.venueIds[0];
    const endpoint = unwrap(await client.POST('/v1/webhooks/endpoints', { body: { url: `${receiver.url}/payments`, events: ['payment.confirmed'] } }));
    const bill = await openBill(client, venueId);
    const externalReference = `sdk-503-${Date.now()}`;

    // A gateway in front of the service: the first attempt reaches the service (which records and
    // confirms the payment) but the partner receives a 503 with Retry-After: 1.
    let cut = 0;
    world.intercept = async (request, forward) => {
      const response = await forward(request);
      if (request.method === 'POST' && new URL(request.url).pathname.endsWith('/payment') && cut++ === 0) {
        await response.arrayBuffer();
        return serviceUnavailable('1');
      }
      return response;
    };
    const start = world.attempts.length;
    const began = Date.now();
    let result;
    try {
      result = await client.POST('/v1/pat/venue/{venueId}/order/{orderId}/payment', {
        params: { path: { venueId, orderId: bill.orderId } },
        body: { externalReference, type: 'full', amount: bill.totals.totalDue, paymentMethod: 'card' },
      });
    } finally {
      world.intercept = null;
    }
    const payment = unwrap(result);
    expect(Date.now() - began).toBeGreaterThanOrEqual(1000);
    expect(since(start).filter((a) => a.includes('/payment'))).toEqual([
      `POST /v1/pat/venue/${venueId}/order/${bill.orderId}/payment 503`,
      `POST /v1/pat/venue/${venueId}/order/${bill.orderId}/payment 200`,
    ]);
    expect(result.response.headers.get('x-idempotent-replay')).toBe('true');
    expect(payment).toMatchObject({ externalReference, status: 'confirmed', orderStatus: 'closed' });

    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM payments WHERE external_reference = ${externalReference}`.execute(world.app.db.kysely);
    expect(rows[0].n).toBe(1);

    // One payment, so one payment.confirmed event, and it verifies with the endpoint's secret.
    await world.app.service.runner.runDue();
    const delivered = receiver.on('/payments');
    expect(delivered).toHaveLength(1);
    const event = verifyWebhook(endpoint.secret, delivered[0].headers, delivered[0].body);
    expect(event.type).toBe('payment.confirmed');
    if (event.type === 'payment.confirmed') expect(event.data.externalReference).toBe(externalReference);
  });

  it('[CHN-05] a booking create gets an Idempotency-Key; a 503 after the service booked is retried under the same key: one booking', async () => {
    const bc = world.sandbox.channels.find((c) => c.protocol === 'tableside')!.credentials;
    const client = createTablesideClient({ baseUrl: world.sandbox.baseUrl, channelKey: bc.apiKey, fetch: world.fetch, retry: fast });
    const venueId = world.sandbox.rmsVenues[0].id;
    const date = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10);
    const { slots } = unwrap(await client.GET('/v1/bc/venues/{venueId}/availability', { params: { path: { venueId }, query: { date, partySize: 2 } } }));
    const slot = slots.find((s) => s.openSpots > 0)!;
    const email = `sdk-${Date.now()}@example.com`;
    let cut = 0;
    world.intercept = async (request, forward) => {
      const response = await forward(request);
      if (request.method === 'POST' && new URL(request.url).pathname === '/v1/bc/bookings' && cut++ === 0) {
        await response.arrayBuffer();
        return serviceUnavailable();
      }
      return response;
    };
    const start = world.attempts.length;
    try {
      const booking = unwrap(await client.POST('/v1/bc/bookings', {
        body: { venueId, partySize: 2, start: slot.start, contact: { firstName: 'Grace', lastName: 'Hopper', email, phone: '+1 202 555 0100' } },
      }));
      expect(booking.status).toBe('confirmed');
    } finally {
      world.intercept = null;
    }
    const creates = world.attempts.slice(start).filter((a) => a.path === '/v1/bc/bookings');
    expect(creates.map((a) => a.status)).toEqual([503, 200]);
    expect(creates[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(creates[1].idempotencyKey).toBe(creates[0].idempotencyKey);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM bookings WHERE contact::text LIKE ${`%${email}%`}`.execute(world.app.db.kysely);
    expect(rows[0].n).toBe(1);
  });

  it('never retries a request that is not safe to retry (counted at the fetch layer), and retries reads', async () => {
    const rms = createTablesideClient({ baseUrl: world.sandbox.baseUrl, apiKey: world.sandbox.apiKey, fetch: world.fetch, retry: fast });
    world.intercept = async () => serviceUnavailable('0');
    try {
      let start = world.attempts.length;
      const created = await rms.POST('/v1/rms/company', { body: { name: 'Never twice', city: 'Madrid', countryCode: 'ES' } });
      expect(created.response.status).toBe(503);
      expect(since(start)).toEqual(['POST /v1/rms/company 503']);

      start = world.attempts.length;
      const put = await rms.PUT('/v1/rms/booking-channels/{bookingChannelId}/link-venues', {
        params: { path: { bookingChannelId: world.sandbox.channels[0].id } },
        body: { venueIds: [] } as never,
      });
      expect(put.response.status).toBe(503);
      expect(since(start)).toHaveLength(1);

      // A read is retried: the first attempt and three more.
      start = world.attempts.length;
      expect((await rms.GET('/v1/rms/company')).response.status).toBe(503);
      expect(since(start)).toEqual(Array(4).fill('GET /v1/rms/company 503'));
    } finally {
      world.intercept = null;
    }

    // A network error: a POST that is not safe rejects after one attempt; a GET is tried again.
    let failures = 0;
    world.intercept = async (request, forward) => {
      if (failures++ === 0) throw new TypeError('fetch failed');
      return forward(request);
    };
    try {
      let start = world.attempts.length;
      await expect(rms.POST('/v1/rms/company', { body: { name: 'Never twice', city: 'Madrid', countryCode: 'ES' } })).rejects.toThrow('fetch failed');
      expect(since(start)).toEqual(['POST /v1/rms/company network-error']);
      failures = 0;
      start = world.attempts.length;
      unwrap(await rms.GET('/v1/rms/company'));
      expect(since(start)).toEqual(['GET /v1/rms/company network-error', 'GET /v1/rms/company 200']);
    } finally {
      world.intercept = null;
    }
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM companies WHERE name = 'Never twice'`.execute(world.app.db.kysely);
    expect(rows[0].n).toBe(0);
  });
});

describe('pagination', () => {
  it('walks a {total, data} list over several pages, and {total, venues}', async () => {
    const partner = await world.app.newPartner(['rms'], 'Paging partner');
    const client = createTablesideClient({ baseUrl: world.sandbox.baseUrl, apiKey: partner.apiKey, fetch: world.fetch });
    const names = ['A', 'B', 'C', 'D', 'E'].map((n) => `Paged company ${n}`);
    for (const name of names) unwrap(await client.POST('/v1/rms/company', { body: { name, city: 'Lyon', countryCode: 'FR' } }));

    const start = world.attempts.length;
    const seen: string[] = [];
    for await (const company of paginate(client, '/v1/rms/company', { params: { query: { limit: 2 } } })) seen.push(company.name);
    expect(seen.sort()).toEqual(names);
    expect(since(start)).toEqual(Array(3).fill('GET /v1/rms/company 200'));

    const venues: string[] = [];
    for await (const v of paginate(patClient(), '/v1/pat/venues', { params: { query: { limit: 2 } } })) venues.push(v.id);
    expect(new Set(venues).size).toBe(venues.length);
    expect(venues.length).toBeGreaterThan(2);
  });
});

describe('webhooks', () => {
  it('[WHK-02] verifies a delivery and refuses a tampered body, a wrong secret and a stale timestamp', async () => {
    const client = patClient();
    const endpoint = unwrap(await client.POST('/v1/webhooks/endpoints', { body: { url: `${receiver.url}/test-event`, events: ['order.closed'] } }));
    const sent = unwrap(await client.POST('/v1/webhooks/endpoints/{id}/test', { params: { path: { id: endpoint.id } } }));
    expect(sent.status).toBeTruthy();
    const [delivery] = receiver.on('/test-event');
    const event = verifyWebhook(endpoint.secret, delivery.headers, delivery.body);
    expect(event).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } });
    // Headers as Fetch Headers and the body as bytes verify the same.
    expect(verifyWebhook(endpoint.secret, new Headers(delivery.headers), new TextEncoder().encode(delivery.body)).type).toBe('webhook.test');

    const tampered = delivery.body.replace(endpoint.id, '00000000-0000-0000-0000-000000000000');
    expect(() => verifyWebhook(endpoint.secret, delivery.headers, tampered)).toThrow(WebhookVerificationError);
    const other = unwrap(await client.POST('/v1/webhooks/endpoints', { body: { url: `${receiver.url}/other`, events: ['order.closed'] } }));
    expect(() => verifyWebhook(other.secret, delivery.headers, delivery.body)).toThrow(WebhookVerificationError);
    const stale = { ...delivery.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
    expect(() => verifyWebhook(endpoint.secret, stale, delivery.body)).toThrow(WebhookVerificationError);
  });
});

describe('errors', () => {
  it('a refused call becomes a TablesideError with status, code, details and requestId; the call itself answers {error}', async () => {
    const client = patClient();
    const venueId = world.sandbox.venueIds[0];
    const bill = await openBill(client, venueId);
    const result = await client.POST('/v1/pat/venue/{venueId}/order/{orderId}/payment', {
      params: { path: { venueId, orderId: bill.orderId } },
      body: { externalReference: `sdk-bad-${Date.now()}`, type: 'full', amount: -1 },
    });
    expect(result.data).toBeUndefined();
    expect(result.error).toMatchObject({ error: { code: 400 } });
    let thrown: unknown;
    try {
      unwrap(result);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TablesideError);
    const e = thrown as TablesideError;
    expect(e).toMatchObject({ name: 'TablesideError', status: 400, code: 400 });
    expect(e.details).toHaveProperty('amount');
    expect(e.requestId).toBe(result.response.headers.get('x-request-id'));
    expect(e.requestId).toBeTruthy();
    expect(e.message.length).toBeGreaterThan(0);

    // The OAuth-style 401 of /v1/pat.
    const bogus = createTablesideClient({ baseUrl: world.sandbox.baseUrl, accessToken: 'tat_not-a-token', fetch: world.fetch });
    const refused = await bogus.GET('/v1/pat/venues');
    expect(() => unwrap(refused)).toThrow(TablesideError);
    const oauth = TablesideError.from(refused.response, refused.error);
    expect(oauth).toMatchObject({ status: 401, code: 'invalid_token' });

    // Client credentials the service refuses: the token request's error is thrown by the call.
    const wrong = patClient({ clientSecret: 'wrong' });
    await expect(wrong.GET('/v1/pat/venues')).rejects.toMatchObject({ name: 'TablesideError', status: 401, code: 'invalid_client' });
  });
});
