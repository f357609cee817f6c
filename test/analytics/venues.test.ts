import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { resumeConnection } from '../../src/pos-mirror/connections.repository.ts';
import { connectVenue, insertOrder } from './builders.ts';

// GET /v1/pos/partner/venues (spec 2.8, 4.8; DESIGN 9): the venues in scope available for analytics.

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MIN: '1000000' } });
});
afterAll(async () => {
  await app?.close();
});

const venues = (token: string) => app.http.get('/v1/pos/partner/venues', { token });

describe('GET /v1/pos/partner/venues', () => {
  it('[ANA-25] 200 {venues}: each venue has exactly id, name, country, timezone (nullable), no city or posCode', async () => {
    const partner = await app.newPartner(['analytics']);
    const madrid = await app.newVenue({ name: 'Bodega Central', countryCode: 'ES', timezone: 'Europe/Madrid' });
    const bare = await app.newVenue({ name: 'Anonymous' });
    await sql`UPDATE venues SET country_code = NULL, timezone = NULL WHERE id = ${bare}`.execute(app.db.kysely);
    for (const v of [madrid, bare]) {
      await app.grant(partner.partnerId, v);
      await connectVenue(app.db.kysely, v);
    }
    const res = await venues(partner.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['venues']);
    expect(res.body.venues).toEqual([
      { id: bare, name: 'Anonymous', country: null, timezone: null },
      { id: madrid, name: 'Bodega Central', country: 'ES', timezone: 'Europe/Madrid' },
    ]);
    for (const v of res.body.venues) expect(Object.keys(v).sort()).toEqual(['country', 'id', 'name', 'timezone']);
  });

  it('[ANA-26] a valid token with no scoped venues → 200 {venues: []}', async () => {
    const partner = await app.newPartner(['analytics']);
    const res = await venues(partner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ venues: [] });
  });

  it('[AUTH-15] only venues in the token\'s scope are listed', async () => {
    const mine = await app.newPartner(['analytics']);
    const other = await app.newPartner(['analytics']);
    const a = await app.newVenue({ name: 'Mine' });
    const b = await app.newVenue({ name: 'Theirs' });
    await app.grant(mine.partnerId, a);
    await app.grant(other.partnerId, b);
    await connectVenue(app.db.kysely, a);
    await connectVenue(app.db.kysely, b);
    expect((await venues(mine.token)).body.venues.map((v: { id: string }) => v.id)).toEqual([a]);
    expect((await venues(other.token)).body.venues.map((v: { id: string }) => v.id)).toEqual([b]);
  });

  it('[DES-127] a venue whose POS connection is suspended is omitted (temporarily unavailable), and its orders still answer', async () => {
    const partner = await app.newPartner(['analytics']);
    const active = await app.newVenue({ name: 'A active' });
    const suspended = await app.newVenue({ name: 'B suspended' });
    const never = await app.newVenue({ name: 'C never connected' });
    for (const v of [active, suspended, never]) await app.grant(partner.partnerId, v);
    await connectVenue(app.db.kysely, active);
    await connectVenue(app.db.kysely, suspended, 'suspended');
    await insertOrder(app.db.kysely, suspended, { closedAt: '2026-01-05T12:00:00Z' });
    expect((await venues(partner.token)).body.venues.map((v: { id: string }) => v.id)).toEqual([active]);

    const orders = await app.http.get(`/v1/pos/venue/${suspended}/order`, { token: partner.token, query: { from: '2026-01-01', until: '2026-01-31' } });
    expect(orders.status).toBe(200);
    expect(orders.body.total).toBe(1);

    // Reactivated: listed again.
    await resumeConnection(app.db.kysely, suspended, new Date());
    expect((await venues(partner.token)).body.venues.map((v: { id: string }) => v.id)).toEqual([active, suspended]);
  });

  it('[AUTH-11] [AUTH-12] [AUTH-13] missing or invalid token → 401; a partner without analytics access → 403', async () => {
    expect((await app.http.get('/v1/pos/partner/venues')).status).toBe(401);
    expect((await venues('tat_nopenopenopenopenopenopenope')).status).toBe(401);
    const pat = await app.newPartner(['pat']);
    const res = await venues(pat.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 403, message: expect.any(String), details: null } });
  });
});
