import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';
import { rawRequest } from '../helpers/raw-http.ts';

// The platform's guards on input (issue 15), checked through real routes of every API family:
// NULs (ERR-06), router and parser errors (ERR-07), long path parameters (LIM-22).

let w: PatWorld;
let v: ConnectedVenue;
let orderId: string;
let apiKey: string;

beforeAll(async () => {
  w = await startPatWorld({ autoClose: false });
  v = await w.connectVenue({ posType: POS.immediate });
  await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] });
  orderId = (await w.bill(v, '1')).body.orderId;
  apiKey = (await w.app.newPartner(['rms'])).apiKey!;
});
afterAll(async () => {
  await w?.close();
});

/** The nested envelope of spec 7.2 and nothing else. */
const envelope = (status: number) => ({
  error: { code: status, message: expect.any(String), details: expect.toSatisfy((d: unknown) => d === null || typeof d === 'object') },
});
const count = async (table: string) => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(w.app.db.kysely)).rows[0].n;

describe('NUL characters', () => {
  it('[ERR-06] a NUL in externalReference or paymentMethod → 400 naming the field; nothing recorded', async () => {
    for (const [field, body] of [
      ['externalReference', { externalReference: 'nul\u0000ref', amount: 29, type: 'full' }],
      ['paymentMethod', { externalReference: 'nul-method', amount: 29, type: 'full', paymentMethod: 'card\u0000' }],
    ] as const) {
      const res = await w.pay(v, orderId, body);
      expect(res.status, field).toBe(400);
      expect(res.body.error.details).toHaveProperty(field);
    }
    expect(await count('payments')).toBe(0);
  });

  it('[ERR-06] %00 in a path parameter and a NUL in a query parameter → 400 naming the field, on /v1/pat, /v1/pos and /v1/rms', async () => {
    const status = await w.app.http.get(`/v1/pat/venue/${v.venueId}/order/${orderId}/payment/abc%00def`, { token: w.partner.token });
    expect(status.status).toBe(400);
    expect(status.body.error.details).toHaveProperty('externalReference');

    const analytics = await w.app.http.get(`/v1/pos/venue/${v.venueId}/order`, { token: w.partner.token, query: { from: '2026-01-01\u0000', until: '2026-01-02' } });
    expect(analytics.status).toBe(400);
    expect(analytics.body.error.details.form.errors).toHaveProperty('from');

    const company = await w.app.http.get('/v1/rms/company/x%00y', { token: apiKey });
    expect(company.status).toBe(400);
    expect(company.body.error.details).toHaveProperty('companyId');

    const list = await w.app.http.get('/v1/pat/venues', { token: w.partner.token, query: { 'filters[name]': 'a\u0000' } });
    expect(list.status).toBe(400);
    expect(Object.keys(list.body.error.details)[0]).toMatch(/filters/);
  });

  it('[ERR-06] a NUL in a content API body field or an object key → 400 naming it; nothing created', async () => {
    const before = await count('companies');
    const res = await w.app.http.post('/v1/rms/company', { token: apiKey, body: { name: 'Casa\u0000Pepe', city: 'Madrid', countryCode: 'ES' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toHaveProperty('name');
    const key = await w.app.http.post('/v1/rms/company', { token: apiKey, body: { name: 'Casa', city: 'Madrid', countryCode: 'ES', ['x\u0000']: 1 } });
    expect(key.status).toBe(400);
    expect(await count('companies')).toBe(before);
  });
});

describe('router and parser errors', () => {
  it('[ERR-07] a bad percent-encoding in a path → 400 in the envelope, not echoing the URL', async () => {
    for (const path of ['/v1/rms/company/%zz', `/v1/pat/venue/${v.venueId}/order/${orderId}/payment/%E0%A4%A`, '/v1/pos/venue/%/order']) {
      const res = await w.app.http.get(path, { token: w.partner.token });
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual(envelope(400));
      expect(res.text).not.toContain('%');
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it('[ERR-07] a path parameter longer than the router allows → 400 in the envelope, not a 414 echoing it', async () => {
    const long = 'a'.repeat(5000);
    const res = await w.app.http.get(`/v1/pat/venue/${v.venueId}/order/${orderId}/payment/${long}`, { token: w.partner.token });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).toEqual(envelope(res.status));
    expect(res.text).not.toContain(long.slice(0, 200));
  });

  it('[ERR-07] a NUL in the Content-Type header and a broken request line → 400 in the envelope', async () => {
    const body = JSON.stringify({ externalReference: 'ct', amount: 1, type: 'full' });
    const nulHeader = await rawRequest(
      w.app.url,
      `POST /v1/pat/venue/${v.venueId}/order/${orderId}/payment HTTP/1.1\nHost: localhost\nAuthorization: Bearer ${w.partner.token}\nContent-Type: application/json\u0000x\nContent-Length: ${Buffer.byteLength(body)}`,
      body,
    );
    expect(nulHeader.status).toBe(400);
    expect(JSON.parse(nulHeader.body)).toEqual(envelope(400));
    const badLine = await rawRequest(w.app.url, 'GET /v1/pat/venues HTTP/9\u0000\nHost: localhost');
    expect(badLine.status).toBe(400);
    expect(JSON.parse(badLine.body)).toEqual(envelope(400));
    expect(await count('payments')).toBe(0);
  });
});

describe('path parameter length', () => {
  it('[LIM-22] [LIM-18] an externalReference of 128 characters is submitted, replayed and looked up in the status path', async () => {
    const world = await startPatWorld();
    const venue = await world.connectVenue({ posType: POS.immediate });
    await world.openOrder(venue.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
    const order = (await world.bill(venue, '2')).body.orderId;
    // Plain and multi-byte: 128 characters either way, the second 384 bytes percent-encoded to 1,152.
    for (const [i, ref] of ['r'.repeat(128), 'ñ€'.repeat(64)].entries()) {
      const body = { externalReference: ref, amount: i === 0 ? 1 : 1.5, type: 'partial' };
      const first = await world.pay(venue, order, body);
      expect(first.status).toBe(200);
      const replay = await world.pay(venue, order, body);
      expect(replay.status).toBe(200);
      expect(replay.headers['x-idempotent-replay']).toBe('true');
      const status = await world.paymentStatus(venue, order, ref);
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ externalReference: ref, status: 'confirmed' });
    }
    // Longer than any reference can be: simply no such payment, in the envelope.
    const tooLong = await world.paymentStatus(venue, order, 'r'.repeat(600));
    expect(tooLong.status).toBe(404);
    expect(tooLong.body).toEqual(envelope(404));
  });
});
