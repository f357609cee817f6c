import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newArea, newBrand, newChannel, newCompany, newVenue, withRmsApp } from './builders.ts';

// Bad input is always a 4xx with the envelope, never a 5xx (DESIGN 5); every content route is
// under /v1/rms and fully described in the OpenAPI document.

describeEachStore('content API robustness', (store) => {
  let app: TestApp;
  let key: string;
  let paths: Array<{ method: string; path: string }>;

  withRmsApp(store, async (started, apiKey) => {
    app = started;
    key = apiKey;
    const company = await newCompany(app, key);
    const brand = await newBrand(app, key, company.id);
    const venue = await newVenue(app, key, { company: company.id });
    const area = await newArea(app, key, venue.id);
    const channel = await newChannel(app);
    const doc = (await app.http.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    paths = [];
    for (const [template, ops] of Object.entries(doc.paths)) {
      if (!template.startsWith('/v1/rms/')) continue;
      const path = template
        .replace('{companyId}', company.id)
        .replace('{brandId}', brand.id)
        .replace('{venueId}', venue.id)
        .replace('{areaId}', area.id)
        .replace('{bookingChannelId}', channel.id)
        .replace('{externalId}', venue.externalId);
      for (const method of Object.keys(ops)) if (method !== 'head') paths.push({ method: method.toUpperCase(), path });
    }
  }, { env: { AUTH_FAILURE_LIMIT_PER_MIN: '1000000' } });

  it('[VER-01] [DES-010] every content route is under /v1/rms, with operationId, summary, the content tag, API-key security and error responses', async () => {
    const doc = (await app.http.get('/openapi.json')).body as { paths: Record<string, Record<string, any>> };
    const content = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op?.tags?.includes('content'))
        .map(([method, op]) => ({ path, method, op })),
    );
    expect(content.length).toBeGreaterThanOrEqual(19);
    for (const { path, method, op } of content) {
      const where = `${method} ${path}`;
      expect(path, where).toMatch(/^\/v1\/rms\//);
      expect(op.operationId, where).toBeTruthy();
      expect(op.summary, where).toBeTruthy();
      expect(op.security, where).toEqual([{ apiKey: [] }]);
      expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
      // An id in the path may be unknown (404); the upsert by externalId creates instead.
      if (path.includes('{') && where !== 'put /v1/rms/venues/external/{externalId}') expect(Object.keys(op.responses), where).toContain('404');
    }
    const ids = content.map((c) => c.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('[DES-016] [DES-021] [DES-024] random bodies on every content write → a 2xx or a 4xx with the nested envelope, never a 5xx', async () => {
    const writes = paths.filter((p) => p.method !== 'GET');
    const json = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(
        fc.constantFrom('name', 'city', 'countryCode', 'currency', 'externalId', 'company', 'brand', 'venues', 'translations', 'minCovers', 'maxCovers', 'paymentDefinition', 'latitude', 'bookableAreas', 'isDefault', 'logo', 'url'),
        fc.jsonValue({ maxDepth: 3 }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), json, async ({ method, path }, body) => {
        const res = await app.http.request(method, path, { token: key, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        if (res.status >= 400) expect(res.body).toEqual({ error: { code: res.status, message: expect.any(String), details: expect.anything() } });
      }),
      { numRuns: 250, seed: 11 },
    );
  });

  it('[DES-021] garbage query strings, headers and path ids on every content read → 4xx or 2xx, never a 5xx', async () => {
    const reads = paths.filter((p) => p.method === 'GET');
    const text = fc.oneof(fc.string(), fc.constantFrom('\u0000', '%', "'", '1e400', '-0', '99999999999999999999', 'NaN', ''));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...reads),
        fc.dictionary(fc.constantFrom('offset', 'limit', 'filters[criteria]', 'filters[city]', 'filters[countryCode]', 'filters[bookingChannel]', 'filters[notBookingChannel]', 'filters[fbInstalled]', 'filters[igInstalled]'), text),
        fc.option(fc.constantFrom('fr', 'xx', 'ES', '', 'zh-Hant', '\t')),
        async ({ path }, query, locale) => {
          const headers: Record<string, string> = locale === null ? {} : { 'x-locale': locale };
          const res = await app.http.get(path, { token: key, query, headers });
          expect(res.status, `${path} ${JSON.stringify(query)} ${locale}`).toBeLessThan(500);
        },
      ),
      { numRuns: 200, seed: 12 },
    );
    for (const id of ['%00', '..', '%E2%82%AC', 'a'.repeat(300), '00000000-0000-0000-0000-00000000000g']) {
      for (const prefix of ['/v1/rms/company/', '/v1/rms/brands/', '/v1/rms/venues/', '/v1/rms/venues/external/']) {
        const res = await app.http.get(prefix + id, { token: key });
        expect(res.status, prefix + id).toBeLessThan(500);
        expect(res.status, prefix + id).toBeGreaterThanOrEqual(400);
      }
    }
  });
});
