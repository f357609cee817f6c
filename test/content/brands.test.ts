import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newBrand, newCompany, newVenue, withRmsApp } from './builders.ts';

const UNKNOWN = '0198a5c4-1111-7222-8333-444455556666';

describeEachStore('content brands', (store) => {
  let app: TestApp;
  let key: string;
  let company: { id: string; name: string };

  withRmsApp(store, async (started, apiKey) => {
    app = started;
    key = apiKey;
    company = await newCompany(app, key);
  });

  const venueBrand = async (venueId: string) => (await app.http.get(`/v1/rms/venues/${venueId}`, { token: key })).body.brand;

  it('[RMS-35] [RMS-32] [RMS-05] POST /brands with name and a company id → 200 with the brand, company as {id, name}', async () => {
    const res = await app.http.post('/v1/rms/brands', { token: key, body: { name: 'Lucio', company: company.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Lucio',
      company: { id: company.id, name: company.name },
      logo: null,
      fbInstalled: null,
      igInstalled: null,
      fbInstallLink: expect.stringMatching(/^https:\/\/.+/),
    });
  });

  it('[RMS-37] [RMS-32] POST /brands accepts logo and the write fields widgetLegalText and bookingApproach, which are never answered', async () => {
    const res = await app.http.post('/v1/rms/brands', {
      token: key,
      body: { name: 'With logo', company: company.id, logo: 'https://cdn.example.com/b.png', widgetLegalText: 'Terms apply', bookingApproach: 'request' },
    });
    expect(res.status).toBe(200);
    expect(res.body.logo).toBe('https://cdn.example.com/b.png');
    expect(res.body).not.toHaveProperty('widgetLegalText');
    expect(res.body).not.toHaveProperty('bookingApproach');
    const got = await app.http.get(`/v1/rms/brands/${res.body.id}`, { token: key });
    expect(got.body).toEqual(res.body);
    const { rows } = await sql<{ widget_legal_text: string; booking_approach: string }>`
      SELECT widget_legal_text, booking_approach FROM brands WHERE id = ${res.body.id}`.execute(app.db.kysely);
    expect(rows[0]).toEqual({ widget_legal_text: 'Terms apply', booking_approach: 'request' });
  });

  it('[RMS-37] brand write fields are validated: bookingApproach instant|request, logo an http(s) URL', async () => {
    for (const body of [
      { bookingApproach: 'whenever' },
      { logo: 'not a url' },
      { logo: 'javascript:alert(1)' },
      { widgetLegalText: 5 },
    ]) {
      const res = await app.http.post('/v1/rms/brands', { token: key, body: { name: 'B', company: company.id, ...body } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(Object.keys(body));
    }
  });

  it('[RMS-33] GET /brands/{brandId} → 200 with that brand', async () => {
    const brand = await newBrand(app, key, company.id);
    const res = await app.http.get(`/v1/rms/brands/${brand.id}`, { token: key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(brand);
  });

  it('[RMS-36] POST /brands missing name or company → 400 naming it', async () => {
    for (const [body, field] of [
      [{ company: company.id }, 'name'],
      [{ name: 'B' }, 'company'],
    ] as const) {
      const res = await app.http.post('/v1/rms/brands', { token: key, body });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ [field]: ['is required'] });
    }
  });

  it('[RMS-36] [DES-035] POST /brands naming an unknown company id → 400 on company, no brand created', async () => {
    const before = (await app.http.get('/v1/rms/brands', { token: key })).body.total;
    for (const id of [UNKNOWN, 'nope']) {
      const res = await app.http.post('/v1/rms/brands', { token: key, body: { name: 'B', company: id } });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ company: ['is not one of your companies'] });
    }
    expect((await app.http.get('/v1/rms/brands', { token: key })).body.total).toBe(before);
  });

  it('[RMS-38] PUT /brands/{id} with name and logo → 200 with the updated brand; logo optional', async () => {
    const brand = await newBrand(app, key, company.id, { logo: 'https://cdn.example.com/1.png' });
    const res = await app.http.put(`/v1/rms/brands/${brand.id}`, { token: key, body: { name: 'Renamed', logo: 'https://cdn.example.com/2.png' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...brand, name: 'Renamed', logo: 'https://cdn.example.com/2.png' });
    const nameOnly = await app.http.put(`/v1/rms/brands/${brand.id}`, { token: key, body: { name: 'Again' } });
    expect(nameOnly.body).toEqual({ ...brand, name: 'Again', logo: 'https://cdn.example.com/2.png' });
    expect((await app.http.get(`/v1/rms/brands/${brand.id}`, { token: key })).body).toEqual(nameOnly.body);
    const cleared = await app.http.put(`/v1/rms/brands/${brand.id}`, { token: key, body: { name: 'Again', logo: null } });
    expect(cleared.body.logo).toBeNull();
  });

  it('[RMS-39] PUT /brands/{id} without name → 400, nothing changes', async () => {
    const brand = await newBrand(app, key, company.id);
    const res = await app.http.put(`/v1/rms/brands/${brand.id}`, { token: key, body: { logo: 'https://cdn.example.com/x.png' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ name: ['is required'] });
    expect((await app.http.get(`/v1/rms/brands/${brand.id}`, { token: key })).body).toEqual(brand);
  });

  it('[RMS-34] GET, PUT, link-venues and unlink-venues on an unknown brandId → 404', async () => {
    const venue = await newVenue(app, key, { company: company.id });
    for (const id of [UNKNOWN, 'garbage']) {
      expect((await app.http.get(`/v1/rms/brands/${id}`, { token: key })).status).toBe(404);
      expect((await app.http.put(`/v1/rms/brands/${id}`, { token: key, body: { name: 'x' } })).status).toBe(404);
      expect((await app.http.put(`/v1/rms/brands/${id}/link-venues`, { token: key, body: { venues: [venue.id] } })).status).toBe(404);
      expect((await app.http.put(`/v1/rms/brands/${id}/unlink-venues`, { token: key, body: { venues: [venue.id] } })).status).toBe(404);
    }
    expect(await venueBrand(venue.id)).toBeNull();
  });

  it('[RMS-40] PUT /brands/{id}/link-venues → 200 with the brand; each venue then shows brand {id, name} in GET /venues', async () => {
    const brand = await newBrand(app, key, company.id);
    const a = await newVenue(app, key, { company: company.id });
    const b = await newVenue(app, key, { company: company.id });
    const res = await app.http.put(`/v1/rms/brands/${brand.id}/link-venues`, { token: key, body: { venues: [a.id, b.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(brand);
    const list = await app.http.get('/v1/rms/venues', { token: key, query: { limit: 50 } });
    for (const id of [a.id, b.id]) {
      expect(list.body.data.find((v: any) => v.id === id).brand).toEqual({ id: brand.id, name: brand.name });
    }
  });

  it('[RMS-40] linking a venue of another company of the partner puts it under the brand company', async () => {
    const brand = await newBrand(app, key, company.id);
    const venue = await newVenue(app, key); // generated company
    expect(venue.company.id).not.toBe(company.id);
    await app.http.put(`/v1/rms/brands/${brand.id}/link-venues`, { token: key, body: { venues: [venue.id] } });
    const got = (await app.http.get(`/v1/rms/venues/${venue.id}`, { token: key })).body;
    expect(got.brand).toEqual({ id: brand.id, name: brand.name });
    expect(got.company).toEqual({ id: company.id, name: company.name });
  });

  it('[RMS-41] PUT /brands/{id}/unlink-venues → 200 with the brand; the venues no longer show it (others are left alone)', async () => {
    const brand = await newBrand(app, key, company.id);
    const other = await newBrand(app, key, company.id);
    const a = await newVenue(app, key, { company: company.id, brand: brand.id });
    const b = await newVenue(app, key, { company: company.id, brand: other.id });
    expect(a.brand).toEqual({ id: brand.id, name: brand.name });
    const res = await app.http.put(`/v1/rms/brands/${brand.id}/unlink-venues`, { token: key, body: { venues: [a.id, b.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(brand);
    expect(await venueBrand(a.id)).toBeNull();
    expect(await venueBrand(b.id)).toEqual({ id: other.id, name: other.name });
  });

  it('[RMS-42] brand link-venues / unlink-venues without venues, or venues not an array of strings → 400', async () => {
    const brand = await newBrand(app, key, company.id);
    for (const op of ['link-venues', 'unlink-venues']) {
      for (const body of [{}, { venues: 'abc' }, { venues: [1, 2] }, { venues: [null] }, { venues: { a: 1 } }]) {
        const res = await app.http.put(`/v1/rms/brands/${brand.id}/${op}`, { token: key, body });
        expect(res.status, `${op} ${JSON.stringify(body)}`).toBe(400);
        expect(res.body.error.code).toBe(400);
        expect(Object.keys(res.body.error.details)[0]).toMatch(/^venues/);
      }
    }
  });
});
