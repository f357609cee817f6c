import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newArea, newBrand, newCompany, newVenue, withRmsApp } from './builders.ts';

const tr = (locale: string, data: Record<string, string | null>) => ({ locale, data: Object.entries(data).map(([field, content]) => ({ field, content })) });

describeEachStore('content translations and x-locale', (store) => {
  let app: TestApp;
  let key: string;

  withRmsApp(store, (started, apiKey) => {
    app = started;
    key = apiKey;
  });

  const get = (path: string, locale?: string) => app.http.get(path, { token: key, headers: locale ? { 'x-locale': locale } : {} });

  it('[RMS-54] [VER-02] [VER-03] [DES-133] company description and bookingMessage: base values without x-locale, translations with it', async () => {
    const company = await newCompany(app, key, {
      description: 'Family restaurants',
      bookingMessage: 'Thanks for booking',
      translations: [tr('es', { description: 'Restaurantes familiares', bookingMessage: 'Gracias por reservar' }), tr('fr', { description: 'Restaurants familiaux' })],
    });
    expect(company).toMatchObject({ description: 'Family restaurants', bookingMessage: 'Thanks for booking' });
    expect((await get(`/v1/rms/company/${company.id}`)).body).toMatchObject({ description: 'Family restaurants', bookingMessage: 'Thanks for booking' });
    expect((await get(`/v1/rms/company/${company.id}`, 'es')).body).toMatchObject({ description: 'Restaurantes familiares', bookingMessage: 'Gracias por reservar' });
    // Field by field: French has no bookingMessage, so the base one is answered.
    expect((await get(`/v1/rms/company/${company.id}`, 'fr')).body).toMatchObject({ description: 'Restaurants familiaux', bookingMessage: 'Thanks for booking' });
    // A locale with no translation at all: the base values.
    expect((await get(`/v1/rms/company/${company.id}`, 'de')).body).toMatchObject({ description: 'Family restaurants', bookingMessage: 'Thanks for booking' });
    const list = await app.http.get('/v1/rms/company', { token: key, headers: { 'x-locale': 'es' }, query: { limit: 50 } });
    expect(list.body.data.find((c: any) => c.id === company.id).description).toBe('Restaurantes familiares');
  });

  it('[RMS-54] [VER-03] [DES-133] venue bookingMessage, paymentPolicy, confirmationMessage (and description): translated field by field, in the list too', async () => {
    const venue = await newVenue(app, key, {
      bookingMessage: 'Welcome',
      paymentPolicy: 'Deposit refundable',
      confirmationMessage: 'See you',
      description: 'Tapas bar',
      translations: [tr('es', { bookingMessage: 'Bienvenido', paymentPolicy: 'Depósito reembolsable', confirmationMessage: 'Hasta pronto', description: 'Bar de tapas' }), tr('it', { confirmationMessage: 'A presto' })],
    });
    expect((await get(`/v1/rms/venues/${venue.id}`)).body).toMatchObject({ bookingMessage: 'Welcome', paymentPolicy: 'Deposit refundable', confirmationMessage: 'See you' });
    expect((await get(`/v1/rms/venues/${venue.id}`, 'es')).body).toMatchObject({
      bookingMessage: 'Bienvenido',
      paymentPolicy: 'Depósito reembolsable',
      confirmationMessage: 'Hasta pronto',
      description: 'Bar de tapas',
    });
    expect((await get(`/v1/rms/venues/${venue.id}`, 'it')).body).toMatchObject({ bookingMessage: 'Welcome', paymentPolicy: 'Deposit refundable', confirmationMessage: 'A presto' });
    const list = await app.http.get('/v1/rms/venues', { token: key, headers: { 'x-locale': 'it' }, query: { 'filters[criteria]': venue.name } });
    expect(list.body.data[0].confirmationMessage).toBe('A presto');
  });

  it('[VER-04] [DES-133] GET /venues/{venueId}/areas/{areaId} honours x-locale for the area name and description', async () => {
    const venue = await newVenue(app, key);
    const area = await newArea(app, key, venue.id, { name: 'Terrace', description: 'Outdoor', translations: [tr('fr', { name: 'Terrasse', description: 'En plein air' }), tr('de', { name: 'Terrasse' })] });
    expect(area).toMatchObject({ name: 'Terrace', description: 'Outdoor' });
    const path = `/v1/rms/venues/${venue.id}/areas/${area.id}`;
    expect((await get(path)).body).toMatchObject({ name: 'Terrace', description: 'Outdoor' });
    expect((await get(path, 'fr')).body).toMatchObject({ name: 'Terrasse', description: 'En plein air' });
    expect((await get(path, 'de')).body).toMatchObject({ name: 'Terrasse', description: 'Outdoor' });
    expect((await get(`/v1/rms/venues/${venue.id}/areas`, 'fr')).body.data[0].name).toBe('Terrasse');
  });

  it('[DES-133] brand widgetLegalText takes translations (stored per locale; the widget reads them back per locale)', async () => {
    const company = await newCompany(app, key);
    const brand = await newBrand(app, key, company.id, { widgetLegalText: 'Terms', translations: [tr('pt', { widgetLegalText: 'Termos' })] });
    expect(brand).not.toHaveProperty('widgetLegalText');
    const { rows } = await sql<{ translations: unknown }>`SELECT translations FROM brands WHERE id = ${brand.id}`.execute(app.db.kysely);
    expect(rows[0].translations).toEqual({ pt: { widgetLegalText: 'Termos' } });
    const partnerId = (await sql<{ owner_partner_id: string }>`SELECT owner_partner_id FROM brands WHERE id = ${brand.id}`.execute(app.db.kysely)).rows[0].owner_partner_id;
    const brands = app.service.app.services.brands;
    expect(await brands.widgetLegalText(partnerId, brand.id, 'pt')).toBe('Termos');
    expect(await brands.widgetLegalText(partnerId, brand.id, 'es')).toBe('Terms');
    expect(await brands.widgetLegalText(partnerId, brand.id)).toBe('Terms');
    const put = await app.http.put(`/v1/rms/brands/${brand.id}`, { token: key, body: { name: brand.name, translations: [tr('pt', { widgetLegalText: 'Termos novos' })] } });
    expect(put.status).toBe(200);
    expect(await brands.widgetLegalText(partnerId, brand.id, 'pt')).toBe('Termos novos');
  });

  it('[RMS-54] an update sets the (locale, field) pairs given, removes those sent as null or "", keeps the rest', async () => {
    const venue = await newVenue(app, key, {
      bookingMessage: 'Hi',
      paymentPolicy: 'Policy',
      translations: [tr('es', { bookingMessage: 'Hola', paymentPolicy: 'Política' }), tr('fr', { bookingMessage: 'Salut' })],
    });
    await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { translations: [tr('es', { bookingMessage: 'Buenas', paymentPolicy: null })] } });
    expect((await get(`/v1/rms/venues/${venue.id}`, 'es')).body).toMatchObject({ bookingMessage: 'Buenas', paymentPolicy: 'Policy' });
    expect((await get(`/v1/rms/venues/${venue.id}`, 'fr')).body).toMatchObject({ bookingMessage: 'Salut' });
    await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { bookingMessage: 'Hello', translations: [tr('fr', { bookingMessage: '' })] } });
    expect((await get(`/v1/rms/venues/${venue.id}`, 'fr')).body).toMatchObject({ bookingMessage: 'Hello' });
    expect((await get(`/v1/rms/venues/${venue.id}`, 'es')).body).toMatchObject({ bookingMessage: 'Buenas' });
    // The base value is what a write without translations changes; company PUT answers [true] and keeps translations.
    const company = await newCompany(app, key, { description: 'Base', translations: [tr('es', { description: 'Base ES' })] });
    await app.http.put(`/v1/rms/company/${company.id}`, { token: key, body: { description: 'New base' } });
    expect((await get(`/v1/rms/company/${company.id}`, 'es')).body.description).toBe('Base ES');
    expect((await get(`/v1/rms/company/${company.id}`)).body.description).toBe('New base');
  });

  it('[RMS-55] a locale that is not ISO 639-1, or data entries without a string field or content → 400 naming the element', async () => {
    const venue = await newVenue(app, key);
    const cases: Array<[unknown, string]> = [
      [[{ locale: 'xx', data: [] }], 'translations[0].locale'],
      [[{ locale: 'FR', data: [] }], 'translations[0].locale'],
      [[{ locale: 'fra', data: [] }], 'translations[0].locale'],
      [[{ locale: 'fr-FR', data: [] }], 'translations[0].locale'],
      [[{ data: [] }], 'translations[0].locale'],
      [[{ locale: 'fr' }], 'translations[0].data'],
      [[{ locale: 'fr', data: [{ content: 'x' }] }], 'translations[0].data[0].field'],
      [[{ locale: 'fr', data: [{ field: 'bookingMessage' }] }], 'translations[0].data[0].content'],
      [[{ locale: 'fr', data: [{ field: 'bookingMessage', content: 7 }] }], 'translations[0].data[0].content'],
      [[{ locale: 'fr', data: [{ field: 3, content: 'x' }] }], 'translations[0].data[0].field'],
      [[tr('es', { bookingMessage: 'a' }), { locale: 'fr', data: [{ field: 'name', content: 'x' }] }], 'translations[1].data[0].field'],
      [[tr('es', { bookingMessage: 'a' }), tr('es', { paymentPolicy: 'b' })], 'translations[1].locale'],
      [[{ locale: 'es', data: [{ field: 'bookingMessage', content: 'a' }, { field: 'bookingMessage', content: 'b' }] }], 'translations[0].data[1].field'],
      ['es', 'translations'],
    ];
    for (const [translations, field] of cases) {
      const res = await app.http.put(`/v1/rms/venues/${venue.id}`, { token: key, body: { name: 'changed', translations } });
      expect(res.status, JSON.stringify(translations)).toBe(400);
      expect(Object.keys(res.body.error.details), JSON.stringify(translations)).toEqual([field]);
    }
    expect((await get(`/v1/rms/venues/${venue.id}`)).body.name).toBe(venue.name);
  });

  it('a translation keeps the limit of its field: an area name translation over 255 characters → 400 naming its content', async () => {
    const venue = await newVenue(app, key);
    const long = await app.http.post(`/v1/rms/venues/${venue.id}/areas`, {
      token: key,
      body: { externalId: 'long', name: 'Terrace', translations: [tr('fr', { description: 'x'.repeat(300), name: 'n'.repeat(256) })] },
    });
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual({ 'translations[0].data[1].content': ['must be at most 255 characters long (the name it translates is)'] });
    const fits = await newArea(app, key, venue.id, { translations: [tr('fr', { name: 'n'.repeat(255) })] });
    expect((await get(`/v1/rms/venues/${venue.id}/areas/${fits.id}`, 'fr')).body.name).toHaveLength(255);
  });

  it('[RMS-55] [DES-133] a field an entity does not translate → 400 (company name, area bookingMessage)', async () => {
    const bad = await app.http.post('/v1/rms/company', { token: key, body: { name: 'N', city: 'C', countryCode: 'ES', translations: [tr('fr', { name: 'Nom' })] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details['translations[0].data[0].field'][0]).toMatch(/description, bookingMessage/);
    const venue = await newVenue(app, key);
    const area = await app.http.post(`/v1/rms/venues/${venue.id}/areas`, { token: key, body: { externalId: 'a', name: 'A', translations: [tr('fr', { bookingMessage: 'x' })] } });
    expect(area.status).toBe(400);
  });

  it('[VER-03] an invalid x-locale → 400 naming the header, on every kind of content read', async () => {
    const venue = await newVenue(app, key);
    const area = await newArea(app, key, venue.id);
    for (const path of ['/v1/rms/venues', `/v1/rms/venues/${venue.id}`, '/v1/rms/company', '/v1/rms/brands', '/v1/rms/booking-channels', `/v1/rms/venues/${venue.id}/areas/${area.id}`]) {
      for (const locale of ['xx', 'english', 'EN', 'en-US']) {
        const res = await get(path, locale);
        expect(res.status, `${path} ${locale}`).toBe(400);
        expect(Object.keys(res.body.error.details)).toEqual(['x-locale']);
      }
    }
  });
});
