import { beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newBrand, newChannel, newCompany, newVenue, rmsPartner, unique, venueBody, withRmsApp } from './builders.ts';

const FULL = {
  address: 'Cava Baja 35',
  postalCode: '28005',
  phoneNumber: '+34 913 65 32 52',
  email: 'hola@example.com',
  timezone: 'Europe/Madrid',
  description: 'Since 1974',
  latitude: 40.4125,
  longitude: -3.7089,
  capacity: 120,
  url: 'https://casalucio.example.com',
  minAdvanceBooking: 1800,
  minAdvanceOnlineCancelling: 86400,
  minCovers: 2,
  maxCovers: 12,
  paymentDefinition: {
    requireCreditCard: true,
    deposit: { type: 'fixed_price', amount: 20.5 },
    noShowFee: { type: 'per_cover', amount: 15 },
  },
  paymentGateway: { gateway: 'stripe', sdkVersion: '2024-06', publishKey: 'pk_live_abc', merchantId: null },
  fbInstalled: true,
  igInstalled: false,
  bookableAreas: true,
  bookingMessage: 'Welcome',
  paymentPolicy: 'Deposit refunded up to 24 h before',
  confirmationMessage: 'See you soon',
};

const VENUE_SHAPE = {
  id: expect.any(String),
  externalId: expect.any(String),
  company: { id: expect.any(String), name: expect.any(String) },
  brand: { id: expect.any(String), name: expect.any(String) },
  name: expect.any(String),
  countryCode: expect.stringMatching(/^[A-Z]{2}$/),
  address: expect.any(String),
  city: expect.any(String),
  postalCode: expect.any(String),
  phoneNumber: expect.any(String),
  email: expect.any(String),
  timezone: expect.any(String),
  description: expect.any(String),
  latitude: expect.any(Number),
  longitude: expect.any(Number),
  capacity: expect.any(Number),
  url: expect.any(String),
  minAdvanceBooking: expect.any(Number),
  minAdvanceOnlineCancelling: expect.any(Number),
  minCovers: expect.any(Number),
  maxCovers: expect.any(Number),
  currency: expect.stringMatching(/^[A-Z]{3}$/),
  paymentDefinition: {
    requireCreditCard: expect.any(Boolean),
    deposit: { type: expect.any(String), amount: expect.any(Number) },
    noShowFee: { type: expect.any(String), amount: expect.any(Number) },
  },
  paymentGateway: { gateway: expect.any(String), sdkVersion: expect.any(String), publishKey: expect.any(String), merchantId: null },
  fbInstalled: expect.any(Boolean),
  igInstalled: expect.any(Boolean),
  fbInstallLink: expect.stringMatching(/^https:\/\//),
  bookableAreas: expect.stringMatching(/^(true|false)$/),
  bookingMessage: expect.any(String),
  paymentPolicy: expect.any(String),
  confirmationMessage: expect.any(String),
};

describeEachStore('content venues', (store) => {
  let app: TestApp;
  let key: string;

  withRmsApp(store, (started, apiKey) => {
    app = started;
    key = apiKey;
  });

  describe('create, get, update', () => {
    it('[DES-132] POST /v1/rms/venues → 200 with the venue and its id; GET /v1/rms/venues/{id} reads it', async () => {
      const body = venueBody({ name: 'Casa Lucio', externalId: 'rms-1' });
      const res = await app.http.post('/v1/rms/venues', { token: key, body });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: expect.any(String), externalId: 'rms-1', name: 'Casa Lucio', countryCode: 'ES', city: 'Madrid', currency: 'EUR' });
      const got = await app.http.get(`/v1/rms/venues/${res.body.id}`, { token: key });
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
    });

    it('[RMS-43] [RMS-44] [RMS-45] [RMS-05] a venue has every field of spec 2.4 with its type, in the list too', async () => {
      const partner = await rmsPartner(app);
      const company = await newCompany(app, partner.apiKey);
      const brand = await newBrand(app, partner.apiKey, company.id);
      const venue = await newVenue(app, partner.apiKey, { ...FULL, company: company.id, brand: brand.id });
      expect(venue).toEqual(VENUE_SHAPE);
      expect(venue).toMatchObject({ ...FULL, bookableAreas: 'true', company: { id: company.id, name: company.name }, brand: { id: brand.id, name: brand.name } });
      expect(Object.keys(venue).sort()).toEqual(Object.keys(VENUE_SHAPE).sort());
      const list = await app.http.get('/v1/rms/venues', { token: partner.apiKey });
      expect(list.body.data).toEqual([venue]);
    });

    it('[RMS-43] [RMS-44] defaults of a venue created with the required fields only', async () => {
      const venue = await newVenue(app, key);
      expect(venue).toMatchObject({
        brand: null,
        address: null,
        postalCode: null,
        phoneNumber: null,
        latitude: null,
        longitude: null,
        capacity: null,
        url: null,
        minAdvanceBooking: 0,
        minAdvanceOnlineCancelling: 0,
        minCovers: 1,
        maxCovers: null,
        paymentDefinition: { requireCreditCard: false, deposit: { type: 'fixed_price', amount: 0 }, noShowFee: { type: 'fixed_price', amount: 0 } },
        paymentGateway: null,
        fbInstalled: false,
        igInstalled: false,
        bookableAreas: 'false',
      });
    });

    it('[DES-132] PUT /v1/rms/venues/{id} changes the fields given and keeps the others', async () => {
      const venue = await newVenue(app, key, FULL);
      const res = await app.http.put(`/v1/rms/venues/${venue.id}`, {
        token: key,
        body: { name: 'Renamed', capacity: 80, paymentDefinition: { requireCreditCard: false }, url: null },
      });
      expect(res.status).toBe(200);
      const expected = {
        ...venue,
        name: 'Renamed',
        capacity: 80,
        url: null,
        paymentDefinition: { ...venue.paymentDefinition, requireCreditCard: false },
      };
      expect(res.body).toEqual(expected);
      expect((await app.http.get(`/v1/rms/venues/${venue.id}`, { token: key })).body).toEqual(expected);
      const empty = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: {} });
      expect(empty.body).toEqual(expected);
    });

    it('[DES-132] [ERR-06] GET and PUT of an unknown or malformed venue id → 404 (a NUL in it: 400 naming venueId), never a 5xx', async () => {
      for (const id of ['0198a5c4-1111-7222-8333-444455556666', 'abc']) {
        expect((await app.http.get(`/v1/rms/venues/${id}`, { token: key })).status, id).toBe(404);
        expect((await app.http.put(`/v1/rms/venues/${id}`, { token: key, body: { name: 'x' } })).status, id).toBe(404);
      }
      for (const res of [await app.http.get('/v1/rms/venues/%00', { token: key }), await app.http.put('/v1/rms/venues/%00', { token: key, body: { name: 'x' } })]) {
        expect(res.status).toBe(400);
        expect(res.body.error.details).toHaveProperty('venueId');
      }
    });

    it('[RMS-43] POST without a required field → 400 naming each', async () => {
      const res = await app.http.post('/v1/rms/venues', { token: key, body: {} });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details).sort()).toEqual(['city', 'countryCode', 'currency', 'externalId', 'name']);
    });

    it('[RMS-26] fbInstallLink is read-only on venues', async () => {
      const venue = await newVenue(app, key, { fbInstallLink: 'https://evil.example.com' });
      expect(venue.fbInstallLink).not.toContain('evil');
      const res = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { fbInstallLink: 'https://evil.example.com' } });
      expect(res.body.fbInstallLink).toBe(venue.fbInstallLink);
    });
  });

  describe('externalId', () => {
    it('POST with an externalId the partner already uses → 409 naming the existing venue; nothing is created', async () => {
      const venue = await newVenue(app, key, { externalId: 'dup-1' });
      const res = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ externalId: 'dup-1' }) });
      expect(res.status).toBe(409);
      expect(res.body.error.details.venueId).toBe(venue.id);
      const list = await app.http.get('/v1/rms/venues', { token: key, query: { 'filters[criteria]': venue.name } });
      expect(list.body.total).toBe(1);
    });

    it('two partners may use the same externalId', async () => {
      const other = await rmsPartner(app);
      await newVenue(app, key, { externalId: 'shared-ext' });
      const res = await app.http.post('/v1/rms/venues', { token: other.apiKey, body: venueBody({ externalId: 'shared-ext' }) });
      expect(res.status).toBe(200);
    });

    it('PUT /venues/external/{externalId} creates the venue, then updates it in place (x-venue-created tells which)', async () => {
      const ext = unique('sync');
      const { externalId: _, ...body } = venueBody({ name: 'Synced' });
      const first = await app.http.put(`/v1/rms/venues/external/${ext}`, { token: key, body });
      expect(first.status).toBe(200);
      expect(first.headers['x-venue-created']).toBe('true');
      expect(first.body).toMatchObject({ externalId: ext, name: 'Synced' });
      const second = await app.http.put(`/v1/rms/venues/external/${ext}`, { token: key, body: { capacity: 40 } });
      expect(second.status).toBe(200);
      expect(second.headers['x-venue-created']).toBe('false');
      expect(second.body).toEqual({ ...first.body, capacity: 40 });
      const byExt = await app.http.get(`/v1/rms/venues/external/${ext}`, { token: key });
      expect(byExt.body).toEqual(second.body);
      const companies = await app.http.get('/v1/rms/company', { token: key, query: { limit: 50 } });
      expect(companies.body.data.filter((c: any) => c.id === first.body.company.id)).toHaveLength(1);
    });

    it('PUT /venues/external/{externalId} creating without the required fields → 400; a different body externalId → 400', async () => {
      const missing = await app.http.put(`/v1/rms/venues/external/${unique('x')}`, { token: key, body: { name: 'Only name' } });
      expect(missing.status).toBe(400);
      expect(Object.keys(missing.body.error.details).sort()).toEqual(['city', 'countryCode', 'currency']);
      const mismatch = await app.http.put('/v1/rms/venues/external/a', { token: key, body: { externalId: 'b' } });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.error.details).toHaveProperty('externalId');
    });

    it('concurrent upserts of one new externalId end as one venue', async () => {
      const ext = unique('race');
      const { externalId: _, ...body } = venueBody();
      const results = await Promise.all(Array.from({ length: 6 }, () => app.http.put(`/v1/rms/venues/external/${ext}`, { token: key, body })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect(results.filter((r) => r.headers['x-venue-created'] === 'true')).toHaveLength(1);
    });

    it('PUT /venues/{id} to an externalId of another of the partner venues → 409, nothing changes', async () => {
      const a = await newVenue(app, key);
      const b = await newVenue(app, key);
      const res = await app.http.put(`/v1/rms/venues/${b.id}`, { token: key, body: { externalId: a.externalId, name: 'changed' } });
      expect(res.status).toBe(409);
      expect(res.body.error.details.venueId).toBe(a.id);
      expect((await app.http.get(`/v1/rms/venues/${b.id}`, { token: key })).body).toEqual(b);
    });
  });

  describe('company and brand of a venue', () => {
    it('[RMS-28] naming a company the partner does not own → 400 on company, nothing created', async () => {
      const other = await rmsPartner(app);
      const theirs = await newCompany(app, other.apiKey);
      for (const company of [theirs.id, '0198a5c4-1111-7222-8333-444455556666', 'x']) {
        const res = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ company }) });
        expect(res.status).toBe(400);
        expect(res.body.error.details).toEqual({ company: ['is not one of your companies'] });
      }
    });

    it('naming a brand puts the venue under the brand company; a brand of another company than the one named → 400', async () => {
      const c1 = await newCompany(app, key);
      const c2 = await newCompany(app, key);
      const brand = await newBrand(app, key, c1.id);
      const venue = await newVenue(app, key, { brand: brand.id });
      expect(venue.company).toEqual({ id: c1.id, name: c1.name });
      const res = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ brand: brand.id, company: c2.id }) });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toHaveProperty('brand');
      const move = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { company: c2.id } });
      expect(move.status).toBe(400);
      expect(move.body.error.details).toHaveProperty('brand');
      const moved = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { company: c2.id, brand: null } });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ company: { id: c2.id }, brand: null });
    });
  });

  describe('validation', () => {
    it('[DES-130] bookableAreas answers the string "true"/"false"; writes accept a boolean or either string', async () => {
      const venue = await newVenue(app, key);
      for (const [value, answer] of [
        [true, 'true'],
        [false, 'false'],
        ['true', 'true'],
        ['false', 'false'],
      ] as const) {
        const res = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { bookableAreas: value } });
        expect(res.status).toBe(200);
        expect(res.body.bookableAreas).toBe(answer);
      }
      for (const value of ['yes', 1, 'TRUE', null]) {
        const res = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { bookableAreas: value } });
        expect(res.status, JSON.stringify(value)).toBe(400);
        expect(res.body.error.details).toHaveProperty('bookableAreas');
      }
      expect((await newVenue(app, key, { bookableAreas: 'true' })).bookableAreas).toBe('true');
    });

    it('minCovers greater than maxCovers → 400 naming both; also against the stored value on update', async () => {
      const res = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ minCovers: 6, maxCovers: 4 }) });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details).sort()).toEqual(['maxCovers', 'minCovers']);
      const venue = await newVenue(app, key, { minCovers: 2, maxCovers: 4 });
      const up = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { minCovers: 5 } });
      expect(up.status).toBe(400);
      expect(Object.keys(up.body.error.details).sort()).toEqual(['maxCovers', 'minCovers']);
      expect((await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { minCovers: 4 } })).status).toBe(200);
    });

    it('advance-booking fields are non-negative integers of seconds; covers and capacity integers in range', async () => {
      for (const [field, value] of [
        ['minAdvanceBooking', -1],
        ['minAdvanceBooking', 1.5],
        ['minAdvanceBooking', '60'],
        ['minAdvanceOnlineCancelling', -60],
        ['minAdvanceOnlineCancelling', 3e10],
        ['minCovers', 0],
        ['maxCovers', 0],
        ['capacity', -1],
        ['capacity', 2.5],
      ] as const) {
        const res = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ [field]: value }) });
        expect(res.status, `${field}=${value}`).toBe(400);
        expect(Object.keys(res.body.error.details)).toEqual([field]);
      }
    });

    it('ISO codes, URLs, e-mail, time zone and coordinates are checked, each naming its field', async () => {
      for (const [field, value] of [
        ['countryCode', 'Spain'],
        ['countryCode', 'es'],
        ['currency', 'EURO'],
        ['currency', 'eur'],
        ['url', 'casalucio.es'],
        ['url', 'ftp://casalucio.es'],
        ['email', 'not-an-email'],
        ['timezone', 'Madrid'],
        ['latitude', 91],
        ['longitude', -181],
        ['latitude', 'north'],
      ] as const) {
        const res = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ [field]: value, latitude: 1, longitude: 1, ...{ [field]: value } }) });
        expect(res.status, `${field}=${value}`).toBe(400);
        expect(Object.keys(res.body.error.details), `${field}=${value}`).toEqual([field]);
      }
      const half = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ latitude: 40.1 }) });
      expect(half.status).toBe(400);
      expect(half.body.error.details).toHaveProperty('longitude');
    });

    it('latitude and longitude are given together (dependentRequired): one alone → 400 naming the other, on create, update and upsert', async () => {
      const lone = [
        [{ latitude: 40.1 }, 'longitude', 'is required when latitude is given'],
        [{ longitude: -3.7 }, 'latitude', 'is required when longitude is given'],
        [{ latitude: null }, 'longitude', 'is required when latitude is given'],
      ] as const;
      for (const [coordinates, missing, problem] of lone) {
        const created = await app.http.post('/v1/rms/venues', { token: key, body: venueBody(coordinates) });
        expect(created.status, JSON.stringify(coordinates)).toBe(400);
        expect(created.body.error.details).toEqual({ [missing]: [problem] });
      }
      const venue = await newVenue(app, key, { latitude: 40.4125, longitude: -3.7089 });
      for (const [coordinates, missing, problem] of lone) {
        const updated = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: coordinates });
        expect(updated.status, JSON.stringify(coordinates)).toBe(400);
        expect(updated.body.error.details).toEqual({ [missing]: [problem] });
        const upserted = await app.http.put(`/v1/rms/venues/external/${encodeURIComponent(venue.externalId)}`, { token: key, body: coordinates });
        expect(upserted.status).toBe(400);
        expect(upserted.body.error.details).toEqual({ [missing]: [problem] });
      }
      // A number paired with null is refused by the service, naming the null one; both given move the venue.
      const mixed = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { latitude: 41, longitude: null } });
      expect(mixed.status).toBe(400);
      expect(Object.keys(mixed.body.error.details)).toEqual(['longitude']);
      const moved = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { latitude: 41.5, longitude: 2.1 } });
      expect(moved.status).toBe(200);
      expect([moved.body.latitude, moved.body.longitude]).toEqual([41.5, 2.1]);
      const cleared = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { latitude: null, longitude: null } });
      expect([cleared.body.latitude, cleared.body.longitude]).toEqual([null, null]);
    });

    it('[RMS-44] deposit and noShowFee: fixed_price and per_cover accepted; other types, negative amounts and too many decimals → 400', async () => {
      const ok = await newVenue(app, key, {
        currency: 'JPY',
        paymentDefinition: { deposit: { type: 'fixed_price', amount: 3000 }, noShowFee: { type: 'per_cover', amount: 1500 } },
      });
      expect(ok.paymentDefinition).toEqual({ requireCreditCard: false, deposit: { type: 'fixed_price', amount: 3000 }, noShowFee: { type: 'per_cover', amount: 1500 } });
      const kwd = await newVenue(app, key, { currency: 'KWD', paymentDefinition: { deposit: { type: 'fixed_price', amount: 1.234 } } });
      expect(kwd.paymentDefinition.deposit.amount).toBe(1.234);
      for (const [currency, fee, field] of [
        ['EUR', { type: 'percentage', amount: 10 }, 'paymentDefinition.deposit.type'],
        ['EUR', { type: 'fixed_price', amount: -1 }, 'paymentDefinition.deposit.amount'],
        ['EUR', { type: 'fixed_price', amount: 10.005 }, 'paymentDefinition.deposit.amount'],
        ['JPY', { type: 'fixed_price', amount: 10.5 }, 'paymentDefinition.deposit.amount'],
        ['EUR', { type: 'fixed_price', amount: '10' }, 'paymentDefinition.deposit.amount'],
        ['EUR', { type: 'fixed_price' }, 'paymentDefinition.deposit.amount'],
      ] as const) {
        const res = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ currency, paymentDefinition: { deposit: fee } }) });
        expect(res.status, JSON.stringify(fee)).toBe(400);
        expect(Object.keys(res.body.error.details)).toEqual([field]);
      }
    });

    it('changing the currency re-reads stored amounts in the new one, and refuses amounts it cannot hold', async () => {
      const venue = await newVenue(app, key, { currency: 'EUR', paymentDefinition: { deposit: { type: 'fixed_price', amount: 10 }, noShowFee: { type: 'fixed_price', amount: 2.5 } } });
      const refused = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { currency: 'JPY' } });
      expect(refused.status).toBe(400);
      expect(Object.keys(refused.body.error.details)).toEqual(['paymentDefinition.noShowFee.amount']);
      const changed = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { currency: 'USD' } });
      expect(changed.body.paymentDefinition).toMatchObject({ deposit: { amount: 10 }, noShowFee: { amount: 2.5 } });
      const jpy = await app.http.put(`/v1/rms/venues/${venue.id}`, {
        token: key,
        body: { currency: 'JPY', paymentDefinition: { noShowFee: { type: 'fixed_price', amount: 500 } } },
      });
      expect(jpy.status).toBe(200);
      expect(jpy.body.paymentDefinition).toMatchObject({ deposit: { amount: 10 }, noShowFee: { amount: 500 } });
    });

    it('[DES-021] a NUL character in a text → 400, never a database error', async () => {
      const res = await app.http.post('/v1/rms/venues', { token: key, body: venueBody({ name: 'Bad\u0000name', city: 'x\u0000' }) });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details).sort()).toEqual(['city', 'name']);
      const q = await app.http.get('/v1/rms/venues', { token: key, query: { 'filters[criteria]': 'a\u0000b' } });
      expect(q.status).toBe(400);
    });
  });

  describe('list filters', () => {
    let partner: string;
    let channel: { id: string };
    let v: Record<string, any>;

    beforeAll(async () => {
      partner = (await rmsPartner(app)).apiKey;
      channel = await newChannel(app);
      v = {
        madrid: await newVenue(app, partner, { name: 'Casa Lucio', city: 'Madrid', countryCode: 'ES', fbInstalled: true, igInstalled: true }),
        sevilla: await newVenue(app, partner, { name: 'El Rinconcillo', city: 'Sevilla', countryCode: 'ES', fbInstalled: false, igInstalled: true }),
        paris: await newVenue(app, partner, { name: 'Chez Lucie 100%', city: 'Paris', countryCode: 'FR', fbInstalled: true, igInstalled: false }),
        lyon: await newVenue(app, partner, { name: 'Le_Bouchon', city: 'Lyon', countryCode: 'FR' }),
      };
      await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: partner, body: { venues: [v.madrid.id, v.paris.id] } });
    });

    const names = async (query: Record<string, string | number>) => {
      const res = await app.http.get('/v1/rms/venues', { token: partner, query: { limit: 50, ...query } });
      expect(res.status, JSON.stringify(query)).toBe(200);
      expect(res.body.total).toBe(res.body.data.length);
      return res.body.data.map((x: any) => x.name).sort();
    };

    it('[RMS-46] [DES-129] filters[criteria] matches a part of the name, case-insensitively; % and _ are literal', async () => {
      expect(await names({ 'filters[criteria]': 'luci' })).toEqual(['Casa Lucio', 'Chez Lucie 100%']);
      expect(await names({ 'filters[criteria]': 'LUCIO' })).toEqual(['Casa Lucio']);
      expect(await names({ 'filters[criteria]': '100%' })).toEqual(['Chez Lucie 100%']);
      expect(await names({ 'filters[criteria]': '%' })).toEqual(['Chez Lucie 100%']);
      expect(await names({ 'filters[criteria]': '_' })).toEqual(['Le_Bouchon']);
      expect(await names({ 'filters[criteria]': 'madrid' })).toEqual([]);
    });

    it('[RMS-47] [DES-129] filters[city] matches the city, also a part of it, case-insensitively', async () => {
      expect(await names({ 'filters[city]': 'Madrid' })).toEqual(['Casa Lucio']);
      expect(await names({ 'filters[city]': 'sEvIl' })).toEqual(['El Rinconcillo']);
      expect(await names({ 'filters[city]': 'y' })).toEqual(['Le_Bouchon']);
    });

    it('[RMS-48] filters[countryCode] is exact; a code that is not ISO 3166-1 alpha-2 → 400', async () => {
      expect(await names({ 'filters[countryCode]': 'FR' })).toEqual(['Chez Lucie 100%', 'Le_Bouchon']);
      expect(await names({ 'filters[countryCode]': 'PT' })).toEqual([]);
      for (const bad of ['F', 'fr', 'FRA']) {
        const res = await app.http.get('/v1/rms/venues', { token: partner, query: { 'filters[countryCode]': bad } });
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.error.details)).toEqual(['filters[countryCode]']);
      }
    });

    it('[RMS-49] [RMS-50] filters[bookingChannel] and filters[notBookingChannel] split the venues by the channel', async () => {
      expect(await names({ 'filters[bookingChannel]': channel.id })).toEqual(['Casa Lucio', 'Chez Lucie 100%']);
      expect(await names({ 'filters[notBookingChannel]': channel.id })).toEqual(['El Rinconcillo', 'Le_Bouchon']);
      const unknown = '0198a5c4-1111-7222-8333-444455556666';
      expect(await names({ 'filters[bookingChannel]': unknown })).toEqual([]);
      expect(await names({ 'filters[notBookingChannel]': unknown })).toHaveLength(4);
      expect((await app.http.get('/v1/rms/venues', { token: partner, query: { 'filters[bookingChannel]': 'x' } })).status).toBe(400);
    });

    it('[RMS-51] [RMS-52] filters[fbInstalled] and filters[igInstalled] 1/0', async () => {
      expect(await names({ 'filters[fbInstalled]': 1 })).toEqual(['Casa Lucio', 'Chez Lucie 100%']);
      expect(await names({ 'filters[fbInstalled]': 0 })).toEqual(['El Rinconcillo', 'Le_Bouchon']);
      expect(await names({ 'filters[igInstalled]': 1 })).toEqual(['Casa Lucio', 'El Rinconcillo']);
      expect(await names({ 'filters[igInstalled]': 0 })).toEqual(['Chez Lucie 100%', 'Le_Bouchon']);
      expect(await names({ 'filters[igInstalled]': 1, 'filters[fbInstalled]': 1 })).toEqual(['Casa Lucio']);
    });

    it('[RMS-53] filters[fbInstalled] or filters[igInstalled] other than 0 or 1 → 400 naming the filter', async () => {
      for (const name of ['filters[fbInstalled]', 'filters[igInstalled]']) {
        for (const value of ['2', 'true', 'yes', '-1', '01', '']) {
          const res = await app.http.get('/v1/rms/venues', { token: partner, query: { [name]: value } });
          expect(res.status, `${name}=${value}`).toBe(400);
          expect(Object.keys(res.body.error.details)).toEqual([name]);
        }
      }
    });

    it('filters combine (AND)', async () => {
      expect(await names({ 'filters[countryCode]': 'ES', 'filters[bookingChannel]': channel.id })).toEqual(['Casa Lucio']);
      expect(await names({ 'filters[criteria]': 'c', 'filters[notBookingChannel]': channel.id, 'filters[igInstalled]': 1 })).toEqual(['El Rinconcillo']);
    });
  });
});
