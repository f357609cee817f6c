import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newCompany, newVenue, rmsPartner, unique, withRmsApp } from './builders.ts';

const FULL = {
  legalName: 'Casa Lucio S.L.',
  address: 'Cava Baja 35',
  postalCode: '28005',
  description: 'Traditional Castilian cooking',
  minAdvanceBooking: 3600,
  minAdvanceBookingCancelling: 7200,
  includeSourceInNotes: true,
  sdkKey: 'sdk_live_123',
  bookingMessage: 'Please arrive on time.',
};

const COMPANY_SHAPE = {
  id: expect.any(String),
  name: expect.any(String),
  legalName: expect.any(String),
  address: expect.any(String),
  postalCode: expect.any(String),
  city: expect.any(String),
  countryCode: expect.stringMatching(/^[A-Z]{2}$/),
  description: expect.any(String),
  minAdvanceBooking: expect.any(Number),
  minAdvanceBookingCancelling: expect.any(Number),
  includeSourceInNotes: expect.any(Boolean),
  sdkKey: expect.any(String),
  fbInstallLink: expect.stringMatching(/^https:\/\//),
  bookingMessage: expect.any(String),
};

describeEachStore('content companies', (store) => {
  let app: TestApp;
  let key: string;

  withRmsApp(store, (started, apiKey) => {
    app = started;
    key = apiKey;
  });

  it('[RMS-17] [RMS-15] POST /company with name, city and countryCode → 200 with a new id and the values; GET /company/{id} returns it', async () => {
    const res = await app.http.post('/v1/rms/company', { token: key, body: { name: 'Grupo Lucio', city: 'Madrid', countryCode: 'ES' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: expect.any(String), name: 'Grupo Lucio', city: 'Madrid', countryCode: 'ES' });
    const got = await app.http.get(`/v1/rms/company/${res.body.id}`, { token: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const other = await newCompany(app, key);
    expect(other.id).not.toBe(res.body.id);
  });

  it('[RMS-18] [RMS-14] [RMS-05] POST /company accepts every optional field and answers them, each with its type', async () => {
    const res = await app.http.post('/v1/rms/company', { token: key, body: { name: 'Full', city: 'Madrid', countryCode: 'ES', ...FULL } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(FULL);
    expect(res.body).toEqual(COMPANY_SHAPE);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(COMPANY_SHAPE).sort());
  });

  it('[RMS-14] a company with only the mandatory fields: optional texts null, seconds 0, includeSourceInNotes false', async () => {
    const company = await newCompany(app, key);
    expect(company).toMatchObject({
      legalName: null,
      address: null,
      postalCode: null,
      description: null,
      sdkKey: null,
      bookingMessage: null,
      minAdvanceBooking: 0,
      minAdvanceBookingCancelling: 0,
      includeSourceInNotes: false,
    });
  });

  it('[RMS-19] [DES-016] POST /company missing name, city or countryCode → 400 naming each missing field, in the nested envelope', async () => {
    for (const missing of ['name', 'city', 'countryCode']) {
      const body: Record<string, unknown> = { name: 'N', city: 'C', countryCode: 'ES' };
      delete body[missing];
      const res = await app.http.post('/v1/rms/company', { token: key, body });
      expect(res.status, missing).toBe(400);
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String), details: { [missing]: ['is required'] } } });
    }
    const none = await app.http.post('/v1/rms/company', { token: key, body: {} });
    expect(Object.keys(none.body.error.details).sort()).toEqual(['city', 'countryCode', 'name']);
  });

  it('[RMS-20] a countryCode that is not ISO 3166-1 alpha-2 → 400 on POST and PUT', async () => {
    const company = await newCompany(app, key);
    for (const countryCode of ['ESP', 'es', 'XX', 'UK', '', 34]) {
      const post = await app.http.post('/v1/rms/company', { token: key, body: { name: 'N', city: 'C', countryCode } });
      expect(post.status, `POST ${countryCode}`).toBe(400);
      expect(post.body.error.details).toHaveProperty('countryCode');
      const put = await app.http.put(`/v1/rms/company/${company.id}`, { token: key, body: { countryCode } });
      expect(put.status, `PUT ${countryCode}`).toBe(400);
      expect(put.body.error.details).toHaveProperty('countryCode');
    }
    expect((await app.http.get(`/v1/rms/company/${company.id}`, { token: key })).body.countryCode).toBe('ES');
  });

  it('[RMS-21] [DES-024] a company field of the wrong type → 400 naming it', async () => {
    const company = await newCompany(app, key);
    const cases: Array<[string, unknown]> = [
      ['minAdvanceBooking', '3600'],
      ['minAdvanceBooking', 1.5],
      ['minAdvanceBooking', -1],
      ['minAdvanceBookingCancelling', 'soon'],
      ['minAdvanceBookingCancelling', 99999999999],
      ['includeSourceInNotes', 'true'],
      ['includeSourceInNotes', 1],
      ['name', 42],
      ['description', { text: 'x' }],
    ];
    for (const [field, value] of cases) {
      const post = await app.http.post('/v1/rms/company', { token: key, body: { name: 'N', city: 'C', countryCode: 'ES', [field]: value } });
      expect(post.status, `POST ${field}=${JSON.stringify(value)}`).toBe(400);
      expect(Object.keys(post.body.error.details)).toEqual([field]);
      const put = await app.http.put(`/v1/rms/company/${company.id}`, { token: key, body: { [field]: value } });
      expect(put.status, `PUT ${field}=${JSON.stringify(value)}`).toBe(400);
    }
  });

  it('[RMS-22] [RMS-23] PUT /company/{id} → 200 with exactly [true]; GET shows the fields sent changed and the others unchanged', async () => {
    const company = await newCompany(app, key, FULL);
    const res = await app.http.put(`/v1/rms/company/${company.id}`, { token: key, body: { name: 'Renamed', minAdvanceBooking: 60, legalName: null } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([true]);
    expect(res.text).toBe('[true]');
    const got = (await app.http.get(`/v1/rms/company/${company.id}`, { token: key })).body;
    expect(got).toEqual({ ...company, name: 'Renamed', minAdvanceBooking: 60, legalName: null });
  });

  it('[RMS-24] PUT /company/{id} with an empty body {} → 200 [true] and nothing changes', async () => {
    const company = await newCompany(app, key, FULL);
    const res = await app.http.put(`/v1/rms/company/${company.id}`, { token: key, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([true]);
    expect((await app.http.get(`/v1/rms/company/${company.id}`, { token: key })).body).toEqual(company);
  });

  it('[RMS-16] [RMS-25] GET and PUT /company/{id} for an unknown id → 404 (a malformed id too, never a 5xx)', async () => {
    for (const id of ['0198a5c4-1111-7222-8333-444455556666', 'not-a-uuid', '1', "'; DROP TABLE companies; --"]) {
      const path = `/v1/rms/company/${encodeURIComponent(id)}`;
      const get = await app.http.get(path, { token: key });
      expect(get.status, `GET ${id}`).toBe(404);
      expect(get.body).toEqual({ error: { code: 404, message: expect.any(String), details: null } });
      const put = await app.http.put(path, { token: key, body: { name: 'x' } });
      expect(put.status, `PUT ${id}`).toBe(404);
    }
  });

  it('[RMS-26] fbInstallLink is read-only: a value sent on POST or PUT is not taken', async () => {
    const res = await app.http.post('/v1/rms/company', {
      token: key,
      body: { name: 'N', city: 'C', countryCode: 'ES', fbInstallLink: 'https://evil.example.com/x' },
    });
    expect(res.status).toBe(200);
    expect(res.body.fbInstallLink).not.toBe('https://evil.example.com/x');
    expect(res.body.fbInstallLink).toContain(res.body.id);
    await app.http.put(`/v1/rms/company/${res.body.id}`, { token: key, body: { fbInstallLink: 'https://evil.example.com/y' } });
    const got = await app.http.get(`/v1/rms/company/${res.body.id}`, { token: key });
    expect(got.body.fbInstallLink).toBe(res.body.fbInstallLink);
  });

  it('[RMS-27] a venue created without a company gets one generated from its details, listed by GET /company', async () => {
    const partner = await rmsPartner(app);
    const venue = await newVenue(app, partner.apiKey, { name: 'Casa Generada', address: 'Calle Mayor 1', postalCode: '28013', city: 'Madrid', countryCode: 'ES' });
    expect(venue.company).toEqual({ id: expect.any(String), name: 'Casa Generada' });
    const list = await app.http.get('/v1/rms/company', { token: partner.apiKey });
    expect(list.body.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({
      id: venue.company.id,
      name: 'Casa Generada',
      address: 'Calle Mayor 1',
      postalCode: '28013',
      city: 'Madrid',
      countryCode: 'ES',
    });
  });

  it('[RMS-28] venues created naming the same company all belong to it, and no further company is generated', async () => {
    const partner = await rmsPartner(app);
    const company = await newCompany(app, partner.apiKey);
    const venues = [];
    for (let i = 0; i < 3; i++) venues.push(await newVenue(app, partner.apiKey, { company: company.id }));
    for (const v of venues) expect(v.company).toEqual({ id: company.id, name: company.name });
    const list = await app.http.get('/v1/rms/company', { token: partner.apiKey });
    expect(list.body).toMatchObject({ total: 1, data: [{ id: company.id }] });
  });

  it('[DES-023] unknown JSON fields are ignored', async () => {
    const res = await app.http.post('/v1/rms/company', { token: key, body: { name: unique('N'), city: 'C', countryCode: 'ES', colour: 'blue' } });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('colour');
  });

  it('PUT /company also accepts bookingMessage (an addition to the spec, docs/decisions.md)', async () => {
    const company = await newCompany(app, key, { bookingMessage: 'old' });
    await app.http.put(`/v1/rms/company/${company.id}`, { token: key, body: { bookingMessage: 'new' } });
    expect((await app.http.get(`/v1/rms/company/${company.id}`, { token: key })).body.bookingMessage).toBe('new');
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM companies WHERE id = ${company.id}`.execute(app.db.kysely);
    expect(rows[0].n).toBe(1);
  });
});
