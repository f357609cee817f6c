import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newArea, newBrand, newChannel, newCompany, newVenue, rmsPartner, venueBody } from './builders.ts';

// Tenancy (DESIGN 5): partner B against every object of partner A on every endpoint. B never gets
// a 2xx on A's objects, and nothing of A's changes. The routes come from the OpenAPI document, so a
// content route added later without a case here fails the coverage check.

interface Case {
  route: string; // METHOD + OpenAPI path template
  path: string;
  body?: unknown;
  status: number;
  why: string;
}

describeEachStore('content tenancy', (store) => {
  let app: TestApp;
  let a: string;
  let b: string;
  let A: { company: any; brand: any; venue: any; linkedVenue: any; area: any; channel: any };
  let B: { company: any; brand: any; venue: any; area: any };

  beforeAll(async () => {
    app = await startTestApp({ store });
    a = (await rmsPartner(app, 'A')).apiKey;
    b = (await rmsPartner(app, 'B')).apiKey;
    const channel = await newChannel(app);
    const company = await newCompany(app, a, { description: 'A desc' });
    const brand = await newBrand(app, a, company.id);
    const venue = await newVenue(app, a, { company: company.id, brand: brand.id, externalId: 'a-venue' });
    const linkedVenue = await newVenue(app, a, { company: company.id });
    await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: a, body: { venues: [linkedVenue.id] } });
    const area = await newArea(app, a, venue.id);
    A = { company, brand, venue, linkedVenue, area, channel };
    const bCompany = await newCompany(app, b);
    const bBrand = await newBrand(app, b, bCompany.id);
    const bVenue = await newVenue(app, b, { company: bCompany.id });
    B = { company: bCompany, brand: bBrand, venue: bVenue, area: await newArea(app, b, bVenue.id) };
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Everything of A's, as A sees it, plus the channel links in the database. */
  async function snapshotA() {
    const get = async (path: string) => (await app.http.get(path, { token: a })).body;
    const links = await sql<{ channel_id: string; venue_id: string }>`
      SELECT channel_id, venue_id FROM venue_booking_channels ORDER BY channel_id, venue_id`.execute(app.db.kysely);
    return {
      companies: await get('/v1/rms/company?limit=50'),
      brands: await get('/v1/rms/brands?limit=50'),
      venues: await get('/v1/rms/venues?limit=50'),
      areas: await get(`/v1/rms/venues/${A.venue.id}/areas?limit=50`),
      links: links.rows,
    };
  }

  function cases(): Case[] {
    const { company, brand, venue, linkedVenue, area, channel } = A;
    return [
      { route: 'GET /v1/rms/company/{companyId}', path: `/v1/rms/company/${company.id}`, status: 404, why: 'another partner company is not found' },
      { route: 'PUT /v1/rms/company/{companyId}', path: `/v1/rms/company/${company.id}`, body: { name: 'Hijacked' }, status: 404, why: 'idem' },
      { route: 'POST /v1/rms/brands', path: '/v1/rms/brands', body: { name: 'Mine', company: company.id }, status: 400, why: 'DES-035' },
      { route: 'GET /v1/rms/brands/{brandId}', path: `/v1/rms/brands/${brand.id}`, status: 404, why: 'not found' },
      { route: 'PUT /v1/rms/brands/{brandId}', path: `/v1/rms/brands/${brand.id}`, body: { name: 'Hijacked' }, status: 404, why: 'not found' },
      { route: 'PUT /v1/rms/brands/{brandId}/link-venues', path: `/v1/rms/brands/${brand.id}/link-venues`, body: { venues: [B.venue.id] }, status: 404, why: 'A brand' },
      { route: 'PUT /v1/rms/brands/{brandId}/unlink-venues', path: `/v1/rms/brands/${brand.id}/unlink-venues`, body: { venues: [venue.id] }, status: 404, why: 'A brand' },
      { route: 'PUT /v1/rms/brands/{brandId}/link-venues', path: `/v1/rms/brands/${B.brand.id}/link-venues`, body: { venues: [venue.id] }, status: 403, why: 'DES-034 A venue' },
      { route: 'PUT /v1/rms/brands/{brandId}/unlink-venues', path: `/v1/rms/brands/${B.brand.id}/unlink-venues`, body: { venues: [venue.id] }, status: 403, why: 'DES-034 A venue' },
      { route: 'PUT /v1/rms/booking-channels/{bookingChannelId}/link-venues', path: `/v1/rms/booking-channels/${channel.id}/link-venues`, body: { venues: [B.venue.id, venue.id] }, status: 403, why: 'DES-034' },
      { route: 'PUT /v1/rms/booking-channels/{bookingChannelId}/unlink-venues', path: `/v1/rms/booking-channels/${channel.id}/unlink-venues`, body: { venues: [linkedVenue.id] }, status: 403, why: 'DES-034' },
      { route: 'POST /v1/rms/venues', path: '/v1/rms/venues', body: venueBody({ company: company.id }), status: 400, why: 'A company named' },
      { route: 'POST /v1/rms/venues', path: '/v1/rms/venues', body: venueBody({ brand: brand.id }), status: 400, why: 'A brand named' },
      { route: 'GET /v1/rms/venues/{venueId}', path: `/v1/rms/venues/${venue.id}`, status: 404, why: 'not found' },
      { route: 'PUT /v1/rms/venues/{venueId}', path: `/v1/rms/venues/${venue.id}`, body: { name: 'Hijacked' }, status: 404, why: 'not found' },
      { route: 'PUT /v1/rms/venues/{venueId}', path: `/v1/rms/venues/${B.venue.id}`, body: { company: company.id }, status: 400, why: 'A company named' },
      { route: 'PUT /v1/rms/venues/{venueId}', path: `/v1/rms/venues/${B.venue.id}`, body: { brand: brand.id }, status: 400, why: 'A brand named' },
      { route: 'GET /v1/rms/venues/external/{externalId}', path: `/v1/rms/venues/external/${venue.externalId}`, status: 404, why: 'externalIds are per partner' },
      { route: 'PUT /v1/rms/venues/external/{externalId}', path: `/v1/rms/venues/external/${venue.externalId}`, body: { name: 'Hijacked' }, status: 400, why: 'B has no such venue: a create, missing fields' },
      { route: 'GET /v1/rms/venues/{venueId}/areas', path: `/v1/rms/venues/${venue.id}/areas`, status: 404, why: 'A venue' },
      { route: 'POST /v1/rms/venues/{venueId}/areas', path: `/v1/rms/venues/${venue.id}/areas`, body: { externalId: 'x', name: 'X' }, status: 404, why: 'A venue' },
      { route: 'GET /v1/rms/venues/{venueId}/areas/{areaId}', path: `/v1/rms/venues/${venue.id}/areas/${area.id}`, status: 404, why: 'A venue' },
      { route: 'GET /v1/rms/venues/{venueId}/areas/{areaId}', path: `/v1/rms/venues/${B.venue.id}/areas/${area.id}`, status: 404, why: 'A area under B venue' },
      { route: 'PUT /v1/rms/venues/{venueId}/areas/{areaId}', path: `/v1/rms/venues/${venue.id}/areas/${area.id}`, body: { name: 'Hijacked' }, status: 404, why: 'A venue' },
      { route: 'PUT /v1/rms/venues/{venueId}/areas/{areaId}', path: `/v1/rms/venues/${B.venue.id}/areas/${area.id}`, body: { name: 'Hijacked' }, status: 404, why: 'A area under B venue' },
      // Seating paths take the externalId (DESIGN 8); another partner's venue is 403 there (issue 12).
      { route: 'GET /v1/rms/venues/{externalId}/pos-tables', path: `/v1/rms/venues/${venue.externalId}/pos-tables`, status: 403, why: 'A venue (externalId)' },
      { route: 'POST /v1/rms/venues/{externalId}/pos-connection', path: `/v1/rms/venues/${venue.externalId}/pos-connection`, body: { posType: 'sim' }, status: 403, why: 'A venue (externalId)' },
    ];
  }

  it('[DES-033] [DES-034] [DES-035] partner B against every partner-A object on every endpoint: no 2xx, nothing of A changes', async () => {
    const before = await snapshotA();
    const bBrandsBefore = (await app.http.get('/v1/rms/brands', { token: b })).body.total;
    for (const c of cases()) {
      const [method] = c.route.split(' ');
      const res = await app.http.request(method, c.path, { token: b, body: c.body });
      expect(res.status, `${c.route} (${c.why})`).toBe(c.status);
      expect(res.body.error.code).toBe(c.status);
      // Never reveals A's object: no A names or ids beyond what B sent.
      expect(res.text).not.toContain(A.company.name);
      expect(res.text).not.toContain(A.venue.name);
    }
    expect(await snapshotA()).toEqual(before);
    expect((await app.http.get('/v1/rms/brands', { token: b })).body.total).toBe(bBrandsBefore);
    // B's own venue named beside A's in the refused link is not linked either (DES-034).
    const linked = await app.http.get('/v1/rms/venues', { token: b, query: { 'filters[bookingChannel]': A.channel.id } });
    expect(linked.body.total).toBe(0);
  });

  it('[DES-033] another partner object and an id that exists nowhere get the same answer', async () => {
    const unknown = '0198a5c4-1111-7222-8333-444455556666';
    const pairs: Array<[string, string]> = [
      [`/v1/rms/company/${A.company.id}`, `/v1/rms/company/${unknown}`],
      [`/v1/rms/brands/${A.brand.id}`, `/v1/rms/brands/${unknown}`],
      [`/v1/rms/venues/${A.venue.id}`, `/v1/rms/venues/${unknown}`],
      [`/v1/rms/venues/${A.venue.id}/areas/${A.area.id}`, `/v1/rms/venues/${unknown}/areas/${A.area.id}`],
    ];
    for (const [theirs, nobody] of pairs) {
      const x = await app.http.get(theirs, { token: b });
      const y = await app.http.get(nobody, { token: b });
      expect({ status: x.status, body: x.body.error.message }).toEqual({ status: y.status, body: y.body.error.message });
    }
  });

  it('[DES-032] a partner lists only its own companies, brands and venues; channels are everyone\'s [DES-036]', async () => {
    for (const [path, mine, theirs] of [
      ['/v1/rms/company', B.company.id, A.company.id],
      ['/v1/rms/brands', B.brand.id, A.brand.id],
      ['/v1/rms/venues', B.venue.id, A.venue.id],
    ]) {
      const res = await app.http.get(path, { token: b, query: { limit: 50 } });
      const ids = res.body.data.map((x: any) => x.id);
      expect(ids, path).toContain(mine);
      expect(ids, path).not.toContain(theirs);
      expect(res.body.total, path).toBe(ids.length);
    }
    const aVenues = await app.http.get('/v1/rms/venues', { token: a, query: { limit: 50 } });
    expect(aVenues.body.data.map((v: any) => v.id)).not.toContain(B.venue.id);
    const channels = await app.http.get('/v1/rms/booking-channels', { token: b, query: { limit: 50 } });
    expect(channels.body.data.map((c: any) => c.id)).toContain(A.channel.id);
  });

  it('[DES-032] a venue created by a pay-at-table partner is invisible to the content API', async () => {
    const patVenue = await app.newVenue({ name: 'PAT only' });
    const list = await app.http.get('/v1/rms/venues', { token: a, query: { 'filters[criteria]': 'PAT only' } });
    expect(list.body.total).toBe(0);
    expect((await app.http.get(`/v1/rms/venues/${patVenue}`, { token: a })).status).toBe(404);
    const link = await app.http.put(`/v1/rms/booking-channels/${A.channel.id}/link-venues`, { token: a, body: { venues: [patVenue] } });
    expect(link.status).toBe(403);
  });

  it('the matrix covers every content route that takes an id', async () => {
    const doc = (await app.http.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const routes: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/rms/') || !path.includes('{')) continue;
      for (const method of Object.keys(ops)) if (method !== 'head') routes.push(`${method.toUpperCase()} ${path}`);
    }
    const covered = new Set(cases().map((c) => c.route));
    expect(routes.filter((r) => !covered.has(r))).toEqual([]);
  });
});
