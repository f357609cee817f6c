import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../pos-simulator/src/index.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { startTestApp, type TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { testCertFile, testTls, type HttpResponse } from '../helpers/http.ts';
import { POS, startPatWorld, type PatWorld } from '../helpers/pat.ts';

// Pay-at-table venue discovery and creation (spec 2.8, 2.12, 2.14, 2.15, 4.7, 8), the POS-type list
// (DESIGN 6.1) and the per-venue scope (spec 5; DESIGN 5), from outside over HTTPS, against the
// reference POS simulator.

let w: PatWorld;


const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REQUIRED = ['name', 'address', 'city', 'postalCode', 'country', 'timezone', 'currency', 'posType'] as const;

function venueBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Le Bistrot', address: '12 Rue de Rivoli', city: 'Paris', postalCode: '75004', country: 'FR',
    timezone: 'Europe/Paris', currency: 'EUR', posType: POS.immediate, ...overrides,
  };
}

const createVenue = (token: string, body: Record<string, unknown>) => w.app.http.post('/v1/pat/venues', { token, body });

async function createOk(token: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await createVenue(token, venueBody(overrides));
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const list = (token: string, query: Record<string, string | number> = {}) => w.app.http.get('/v1/pat/venues', { token, query });
const features = (token: string, venueId: string) => w.app.http.get(`/v1/pat/venue/${venueId}/features`, { token });
const tables = (token: string, venueId: string) => w.app.http.get(`/v1/pat/venue/${venueId}/tables`, { token });
const newPartner = (access: Array<'pat' | 'analytics' | 'rms'> = ['pat']) => w.app.newPartner(access);

/** Every venue id of the partner, read page by page. */
async function allIds(token: string, pageSize: number, query: Record<string, string> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const page = await list(token, { ...query, offset, limit: pageSize });
    expect(page.status).toBe(200);
    ids.push(...page.body.venues.map((v: { id: string }) => v.id));
    if (page.body.venues.length < pageSize) return ids;
  }
}

function expectValidation(res: HttpResponse, field: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe(400);
  expect(typeof res.body.error.message).toBe('string');
  expect(Object.keys(res.body.error.details ?? {}), res.text).toContain(field);
  expect(Array.isArray(res.body.error.details[field])).toBe(true);
  expect(res.body.error.details[field].length).toBeGreaterThan(0);
}

async function venueCount(): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM venues`.execute(w.app.db.kysely);
  return rows[0].n;
}

describeEachStore('pay-at-table venues', (store) => {
  beforeAll(async () => {
    // A generous POS timeout: no test here is about timeouts, and the machine may be busy.
    w = await startPatWorld({ autoClose: false, store, env: { POS_TIMEOUT_MS: '10000' } });
  });

  afterAll(async () => {
    await w?.close();
  });

  describe('GET /v1/pat/pos-types', () => {
    it('[PATV-01] [DES-071] lists {code, name} of each POS type and nothing else (never baseUrl or apiKey)', async () => {
      const res = await w.app.http.get('/v1/pat/pos-types', { token: w.partner.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['posTypes']);
      for (const t of res.body.posTypes) {
        expect(Object.keys(t).sort()).toEqual(['code', 'name']);
        expect(typeof t.code).toBe('string');
        expect(typeof t.name).toBe('string');
      }
      expect(res.text).not.toContain(w.sim.apiKey);
      expect(res.text).not.toContain(w.sim.baseUrl);
      expect(res.text).not.toMatch(/baseUrl|apiKey|caFile|billRetrieval/);
    });

    it('[DES-070] lists exactly the entries of the POS_TYPES file', async () => {
      const res = await w.app.http.get('/v1/pat/pos-types', { token: w.partner.token });
      expect(res.body.posTypes).toEqual([
        { code: POS.immediate, name: 'Simulator (immediate)' },
        { code: POS.deferred, name: 'Simulator (deferred)' },
        { code: POS.stored, name: 'Simulator (stored bill)' },
        { code: POS.noForwarding, name: 'Simulator (no forwarding)' },
      ]);
    });

    it('[DES-070] an entry added to the POS_TYPES file is listed, and usable for venue creation, with no code change', async () => {
      const entry = (code: string, name: string) => ({
        code, name, baseUrl: `https://pos.${code}.example`, apiKey: `key-${code}`,
        billRetrieval: true, paymentForwarding: false, paymentConfirmation: 'immediate',
      });
      const app = await startTestApp({ store, posTypes: [entry('acme', 'Acme POS'), entry('tillco', 'TillCo'), entry('newpos', 'NewPOS Cloud')] });
      try {
        const partner = await app.newPartner(['pat']);
        const res = await app.http.get('/v1/pat/pos-types', { token: partner.token });
        expect(res.status).toBe(200);
        expect(res.body.posTypes).toEqual([
          { code: 'acme', name: 'Acme POS' },
          { code: 'tillco', name: 'TillCo' },
          { code: 'newpos', name: 'NewPOS Cloud' },
        ]);
        expect(res.text).not.toContain('key-newpos');
        const created = await app.http.post('/v1/pat/venues', { token: partner.token, body: venueBody({ posType: 'newpos' }) });
        expect(created.status, created.text).toBe(200);
        expect(created.body.posType).toBe('newpos');
        // A code of another environment's list is not one of this one's.
        const other = await app.http.post('/v1/pat/venues', { token: partner.token, body: venueBody({ posType: POS.immediate }) });
        expectValidation(other, 'posType');
      } finally {
        await app.close();
      }
    });
  });

  describe('GET /v1/pat/venues', () => {
    it('[PATV-02] [PATV-03] answers {total, venues} with summaries of exactly id, name, country, city, timezone, posCode', async () => {
      const partner = await newPartner();
      const connected = await w.connectVenue({ partner });
      await createOk(partner.token, { name: 'Unconnected' });
      // A venue granted to the partner that has no country, city or timezone on record.
      const bare = uuidv7();
      const now = new Date();
      await sql`INSERT INTO venues (id, name, created_at, updated_at) VALUES (${bare}, ${'Bare venue'}, ${now}, ${now})`.execute(w.app.db.kysely);
      await w.app.grant(partner.partnerId, bare);

      const res = await list(partner.token);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['total', 'venues']);
      expect(Number.isInteger(res.body.total)).toBe(true);
      expect(res.body.total).toBe(3);
      expect(res.body.venues).toHaveLength(3);
      for (const v of res.body.venues) {
        expect(Object.keys(v).sort()).toEqual(['city', 'country', 'id', 'name', 'posCode', 'timezone']);
        expect(typeof v.id).toBe('string');
        expect(typeof v.name).toBe('string');
        expect(v.country === null || /^[A-Z]{2}$/.test(v.country)).toBe(true);
        expect(v.city === null || typeof v.city === 'string').toBe(true);
        if (v.timezone !== null) expect(() => new Intl.DateTimeFormat('en', { timeZone: v.timezone })).not.toThrow();
        expect(v.posCode === null || typeof v.posCode === 'string').toBe(true);
      }
      const byId = new Map(res.body.venues.map((v: any) => [v.id, v]));
      expect(byId.get(connected.venueId)).toMatchObject({ country: 'ES', city: 'Madrid', timezone: 'Europe/Madrid' });
      expect(byId.get(bare)).toEqual({ id: bare, name: 'Bare venue', country: null, city: null, timezone: null, posCode: null });
    });

    it('[PATV-04] [PATV-20] posCode is the code of the active POS, and null for a venue with no active POS', async () => {
      const partner = await newPartner();
      const immediate = await w.connectVenue({ partner, posType: POS.immediate });
      const deferred = await w.connectVenue({ partner, posType: POS.deferred });
      const pending = await createOk(partner.token, { name: 'Not onboarded yet', posType: POS.deferred });
      const res = await list(partner.token, { limit: 100 });
      const posCode = (id: string) => res.body.venues.find((v: { id: string }) => v.id === id)?.posCode;
      expect(posCode(immediate.venueId)).toBe(POS.immediate);
      expect(posCode(deferred.venueId)).toBe(POS.deferred);
      expect(posCode(pending.id)).toBeNull();
      // The null case is the one where per-venue endpoints answer 404 (spec 2.8).
      expect((await features(partner.token, pending.id)).status).toBe(404);
    });

    describe('pagination', () => {
      let partner: TestPartner;
      let created: string[];

      beforeAll(async () => {
        partner = await newPartner();
        created = [];
        for (let i = 0; i < 12; i++) created.push((await createOk(partner.token, { name: `Paged venue ${String(i).padStart(2, '0')}` })).id);
      });

      it('[LIM-08] without limit at most 10 venues are returned while total counts all of them', async () => {
        const res = await list(partner.token);
        expect(res.status).toBe(200);
        expect(res.body.venues).toHaveLength(10);
        expect(res.body.total).toBe(12);
      });

      it('[LIM-09] without offset the list starts at the first venue', async () => {
        const withoutOffset = await list(partner.token, { limit: 4 });
        const first = await list(partner.token, { offset: 0, limit: 4 });
        expect(withoutOffset.body.venues).toEqual(first.body.venues);
        expect(withoutOffset.body.venues[0].id).toBe((await allIds(partner.token, 100))[0]);
      });

      it('[PATV-05] total counts the matches across all pages, whatever offset and limit', async () => {
        for (const query of [{}, { limit: 1 }, { limit: 5, offset: 5 }, { offset: 11 }, { offset: 12 }, { offset: 50, limit: 3 }, { limit: 0 }] as Array<Record<string, number>>) {
          const res = await list(partner.token, query);
          expect(res.status, JSON.stringify(query)).toBe(200);
          expect(res.body.total, JSON.stringify(query)).toBe(12);
        }
        expect((await list(partner.token, { offset: 12 })).body.venues).toEqual([]);
        const filtered = await list(partner.token, { 'filters[name]': 'venue 0', limit: 2 });
        expect(filtered.body.total).toBe(10);
        expect(filtered.body.venues).toHaveLength(2);
      });

      it('[PATV-06] consecutive pages neither overlap nor skip a venue', async () => {
        for (const size of [1, 3, 5, 7]) {
          const ids = await allIds(partner.token, size);
          expect(ids, `page size ${size}`).toHaveLength(12);
          expect(new Set(ids).size, `page size ${size}`).toBe(12);
          expect([...ids].sort()).toEqual([...created].sort());
        }
        expect(await allIds(partner.token, 5)).toEqual(await allIds(partner.token, 100));
      });
    });

    describe('filters', () => {
      let partner: TestPartner;
      const ids: Record<string, string> = {};

      beforeAll(async () => {
        partner = await newPartner();
        const venues = [
          { key: 'bistrot', name: 'Le Bistrot', city: 'Paris', country: 'FR', timezone: 'Europe/Paris' },
          { key: 'verde', name: 'Bistro Verde', city: 'Lyon', country: 'FR', timezone: 'Europe/Paris' },
          { key: 'cafe', name: 'Café Central', city: 'Madrid', country: 'ES', timezone: 'Europe/Madrid' },
          { key: 'percent', name: '100% Burger', city: 'Saint-Paris-le-Haut', country: 'BE', timezone: 'Europe/Brussels' },
          { key: 'taberna', name: 'Taberna', city: 'Parla', country: 'ES', timezone: 'Europe/Madrid' },
        ];
        for (const v of venues) ids[v.key] = (await createOk(partner.token, { name: v.name, city: v.city, country: v.country, timezone: v.timezone })).id;
      });

      const names = (res: HttpResponse) => res.body.venues.map((v: { name: string }) => v.name).sort();

      it('[PATV-07] filters[name] matches part of the name, case-insensitively ("BIST" finds "Le Bistrot")', async () => {
        const res = await list(partner.token, { 'filters[name]': 'BIST' });
        expect(res.status).toBe(200);
        expect(names(res)).toEqual(['Bistro Verde', 'Le Bistrot']);
        expect(res.body.total).toBe(2);
        expect(names(await list(partner.token, { 'filters[name]': 'bistrot' }))).toEqual(['Le Bistrot']);
        expect(names(await list(partner.token, { 'filters[name]': 'e bIsT' }))).toEqual(['Le Bistrot']);
        expect(names(await list(partner.token, { 'filters[name]': 'central' }))).toEqual(['Café Central']);
        // The text matches literally: % and _ are not wildcards.
        expect(names(await list(partner.token, { 'filters[name]': '%' }))).toEqual(['100% Burger']);
        expect((await list(partner.token, { 'filters[name]': '_' })).body.total).toBe(0);
      });

      it('[PATV-08] filters[city] matches part of the city, case-insensitively', async () => {
        expect(names(await list(partner.token, { 'filters[city]': 'PAR' }))).toEqual(['100% Burger', 'Le Bistrot', 'Taberna']);
        expect(names(await list(partner.token, { 'filters[city]': 'aris' }))).toEqual(['100% Burger', 'Le Bistrot']);
        expect(names(await list(partner.token, { 'filters[city]': 'lyon' }))).toEqual(['Bistro Verde']);
        const both = await list(partner.token, { 'filters[city]': 'paris', 'filters[name]': 'bistro' });
        expect(names(both)).toEqual(['Le Bistrot']);
        expect(both.body.total).toBe(1);
      });

      it('[PATV-09] filters[countryCode] matches the country exactly; a partial code matches nothing', async () => {
        const fr = await list(partner.token, { 'filters[countryCode]': 'FR' });
        expect(names(fr)).toEqual(['Bistro Verde', 'Le Bistrot']);
        expect(fr.body.total).toBe(2);
        expect(names(await list(partner.token, { 'filters[countryCode]': 'ES' }))).toEqual(['Café Central', 'Taberna']);
        for (const partial of ['F', 'E', 'R']) {
          const res = await list(partner.token, { 'filters[countryCode]': partial });
          expect(res.status).toBe(200);
          expect(res.body).toEqual({ total: 0, venues: [] });
        }
      });

      it('[PATV-07] [PATV-08] [PATV-09] a filter with a NUL character → 400 naming it, never a 500', async () => {
        for (const f of ['filters[name]', 'filters[city]', 'filters[countryCode]']) expectValidation(await list(partner.token, { [f]: 'a\u0000' }), f);
      });

      it('[PATV-10] a valid token with no matching venue → 200 {total: 0, venues: []}', async () => {
        const none = await list(partner.token, { 'filters[name]': 'no such venue anywhere' });
        expect(none.status).toBe(200);
        expect(none.body).toEqual({ total: 0, venues: [] });
        const empty = await newPartner();
        const res = await list(empty.token);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ total: 0, venues: [] });
      });
    });

    it('[AUTH-10] lists only the venues in the token’s scope: another partner’s venues never appear nor count', async () => {
      const a = await newPartner();
      const b = await newPartner();
      const aVenues = [await createOk(a.token, { name: 'Shared Name' }), await createOk(a.token, { name: 'Only A' })].map((v) => v.id);
      const bConnected = await w.connectVenue({ partner: b });
      const bVenue = (await createOk(b.token, { name: 'Shared Name' })).id;

      const res = await list(a.token, { limit: 100 });
      expect(res.body.total).toBe(2);
      expect(res.body.venues.map((v: { id: string }) => v.id).sort()).toEqual([...aVenues].sort());
      const filtered = await list(a.token, { 'filters[name]': 'shared' });
      expect(filtered.body.total).toBe(1);
      expect(filtered.body.venues.map((v: { id: string }) => v.id)).toEqual([aVenues[0]]);
      const resB = await list(b.token, { limit: 100 });
      expect(resB.body.total).toBe(2);
      expect(resB.body.venues.map((v: { id: string }) => v.id).sort()).toEqual([bConnected.venueId, bVenue].sort());
    });

    describe('page size limits', () => {
      let partner: TestPartner;

      beforeAll(async () => {
        partner = await newPartner();
        // 105 venues in the partner's scope (bare rows granted to it: the list is what is tested).
        const now = new Date();
        const rows = Array.from({ length: 105 }, (_, i) => ({ id: uuidv7(), name: `Bulk venue ${String(i).padStart(3, '0')}` }));
        await w.app.db.kysely.transaction().execute(async (tx) => {
          for (const r of rows) {
            await sql`INSERT INTO venues (id, name, country_code, city, timezone, currency, created_at, updated_at)
                      VALUES (${r.id}, ${r.name}, 'ES', 'Madrid', 'Europe/Madrid', 'EUR', ${now}, ${now})`.execute(tx);
            await sql`INSERT INTO partner_venues (partner_id, venue_id, granted_at) VALUES (${partner.partnerId}, ${r.id}, ${now})`.execute(tx);
          }
        });
      });

      it('[LIM-10] limit=100 returns 100 venues', async () => {
        const res = await list(partner.token, { limit: 100 });
        expect(res.status).toBe(200);
        expect(res.body.venues).toHaveLength(100);
        expect(res.body.total).toBe(105);
        const rest = await list(partner.token, { limit: 100, offset: 100 });
        expect(rest.body.venues).toHaveLength(5);
      });

      it('[LIM-11] [DES-118] never more than 100 in a page: limit 101 → 400 naming limit; offset -1 → 400 naming offset', async () => {
        for (const limit of [101, 1000]) expectValidation(await list(partner.token, { limit }), 'limit');
        for (const limit of ['abc', -1, 2.5]) expectValidation(await list(partner.token, { limit }), 'limit');
        expectValidation(await list(partner.token, { offset: -1 }), 'offset');
        expectValidation(await list(partner.token, { offset: 'x' }), 'offset');
        // An offset beyond what the database can hold is a 400 too, never a 500; a large valid one is an empty page.
        for (const offset of ['100000000000000000000', '9223372036854775807']) expectValidation(await list(partner.token, { offset }), 'offset');
        const far = await list(partner.token, { offset: 1_000_000 });
        expect(far.status).toBe(200);
        expect(far.body).toEqual({ total: 105, venues: [] });
        expect((await list(partner.token, { limit: 100 })).body.venues.length).toBeLessThanOrEqual(100);
      });
    });
  });

  describe('POST /v1/pat/venues', () => {
    it('[PATV-11] [PATV-12] every required field valid → 200 with the venue and its onboarding {requestId, url, status}', async () => {
      const body = venueBody({ name: 'Chez Test', phoneNumber: '+33 1 23 45 67 89', email: 'chef@chez-test.example' });
      const res = await createVenue(w.partner.token, body);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(
        ['address', 'city', 'country', 'currency', 'id', 'name', 'onboarding', 'posType', 'postalCode', 'timezone'],
      );
      expect(res.body).toMatchObject({
        name: 'Chez Test', address: '12 Rue de Rivoli', city: 'Paris', postalCode: '75004', country: 'FR',
        timezone: 'Europe/Paris', currency: 'EUR', posType: POS.immediate,
      });
      expect(typeof res.body.id).toBe('string');
      expect(Object.keys(res.body.onboarding).sort()).toEqual(['requestId', 'status', 'url']);
      expect(res.body.onboarding.requestId).toMatch(UUID);
      expect(() => new URL(res.body.onboarding.url)).not.toThrow();
      expect(res.body.onboarding.status).toBe('rms_activation');
    });

    it('[PATV-13] a missing required field → 400 with details naming it, and nothing is created', async () => {
      const before = await venueCount();
      for (const field of REQUIRED) {
        const body = venueBody();
        delete body[field];
        expectValidation(await createVenue(w.partner.token, body), field);
      }
      // Every missing field is named at once.
      const empty = await createVenue(w.partner.token, {});
      expect(empty.status).toBe(400);
      expect(Object.keys(empty.body.error.details).sort()).toEqual([...REQUIRED].sort());
      // Present but empty, or of the wrong type, is as good as missing.
      expectValidation(await createVenue(w.partner.token, venueBody({ name: '' })), 'name');
      expectValidation(await createVenue(w.partner.token, venueBody({ city: 42 })), 'city');
      expect(await venueCount()).toBe(before);
    });

    it('[PATV-13] text with a NUL character → 400 naming the field, never a 500', async () => {
      const before = await venueCount();
      for (const field of ['name', 'address', 'city', 'postalCode', 'phoneNumber']) {
        expectValidation(await createVenue(w.partner.token, venueBody({ [field]: 'bad\u0000text' })), field);
      }
      expect(await venueCount()).toBe(before);
    });

    it('[PATV-14] a country that is not ISO 3166-1 alpha-2 → 400 naming country', async () => {
      for (const country of ['ESP', 'XX', 'E', 'Spain', '12']) expectValidation(await createVenue(w.partner.token, venueBody({ country })), 'country');
    });

    it('[PATV-15] a timezone that is not an IANA zone → 400 naming timezone', async () => {
      for (const timezone of ['Mars/Olympus', 'Europe/Atlantis', 'Paris', '']) {
        expectValidation(await createVenue(w.partner.token, venueBody({ timezone })), 'timezone');
      }
    });

    it('[PATV-16] a currency that is not ISO 4217 → 400 naming currency', async () => {
      for (const currency of ['EURO', 'ZZZ', 'E', '€']) expectValidation(await createVenue(w.partner.token, venueBody({ currency })), 'currency');
    });

    it('[PATV-17] a posType that is not a code of the POS-type list → 400 naming posType', async () => {
      for (const posType of ['oracle-micros', 'SIM', 'Simulator (immediate)']) {
        const res = await createVenue(w.partner.token, venueBody({ posType }));
        expectValidation(res, 'posType');
      }
    });

    it('[PATV-18] phoneNumber and email are optional', async () => {
      const without = venueBody();
      expect(without).not.toHaveProperty('phoneNumber');
      expect(without).not.toHaveProperty('email');
      expect((await createVenue(w.partner.token, without)).status).toBe(200);
      expect((await createVenue(w.partner.token, venueBody({ phoneNumber: '+34 910 000 000' }))).status).toBe(200);
      expect((await createVenue(w.partner.token, venueBody({ email: 'hola@example.es' }))).status).toBe(200);
      // Optional, but checked when given.
      expectValidation(await createVenue(w.partner.token, venueBody({ email: 'not an e-mail' })), 'email');
    });

    it('[PATV-19] [DES-037] the created venue is in the caller’s scope at once: listed, and per-venue calls never answer 403', async () => {
      const partner = await newPartner();
      const venue = await createOk(partner.token, { name: 'Brand new' });
      const listed = await list(partner.token);
      expect(listed.body.total).toBe(1);
      expect(listed.body.venues[0]).toEqual({ id: venue.id, name: 'Brand new', country: 'FR', city: 'Paris', timezone: 'Europe/Paris', posCode: null });
      for (const res of [await features(partner.token, venue.id), await tables(partner.token, venue.id)]) {
        expect(res.status).not.toBe(403);
        expect(res.status).toBe(404);
      }
    });

    it('[PATV-22] creating a venue succeeds whenever validation passes: a second venue of the same posType → 200', async () => {
      const partner = await newPartner();
      const connected = await w.connectVenue({ partner, posType: POS.immediate });
      const first = await createVenue(partner.token, venueBody({ posType: POS.immediate }));
      const second = await createVenue(partner.token, venueBody({ posType: POS.immediate }));
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(new Set([connected.venueId, first.body.id, second.body.id]).size).toBe(3);
      expect(first.body.onboarding.requestId).not.toBe(second.body.onboarding.requestId);
      expect(first.body.onboarding.url).not.toBe(second.body.onboarding.url);
      // Another partner on the same POS type too.
      expect((await createVenue(w.partner.token, venueBody({ posType: POS.immediate }))).status).toBe(200);
    });

    it('[AUTH-08] a token without active pay-at-table access → 403, and no venue is created', async () => {
      const analyticsOnly = await newPartner(['analytics']);
      const inactive = await newPartner(['pat']);
      await sql`UPDATE partners SET active = false WHERE id = ${inactive.partnerId}`.execute(w.app.db.kysely);
      const before = await venueCount();
      for (const partner of [analyticsOnly, inactive]) {
        const res = await createVenue(partner.token, venueBody({ name: 'Should not exist' }));
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe(403);
      }
      expect(await venueCount()).toBe(before);
      const { rows } = await sql`SELECT id FROM venues WHERE name = 'Should not exist'`.execute(w.app.db.kysely);
      expect(rows).toEqual([]);
    });
  });

  describe('GET /v1/pat/venue/{venueId}/features', () => {
    it('[PATV-25] answers {venueId, posCode, payAtTable: {billRetrieval, paymentForwarding, paymentConfirmation}}', async () => {
      const venue = await w.connectVenue();
      const res = await features(w.partner.token, venue.venueId);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['payAtTable', 'posCode', 'venueId']);
      expect(res.body.venueId).toBe(venue.venueId);
      expect(typeof res.body.posCode).toBe('string');
      expect(Object.keys(res.body.payAtTable).sort()).toEqual(['billRetrieval', 'paymentConfirmation', 'paymentForwarding']);
      expect(typeof res.body.payAtTable.billRetrieval).toBe('boolean');
      expect(typeof res.body.payAtTable.paymentForwarding).toBe('boolean');
      expect(['immediate', 'deferred']).toContain(res.body.payAtTable.paymentConfirmation);
    });

    it('[PATV-26] a venue with no active POS connection → 404 saying no POS connection was found', async () => {
      const venue = await createOk(w.partner.token);
      const res = await features(w.partner.token, venue.id);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(404);
      expect(res.body.error.message).toMatch(/no POS connection found/i);
      // A venue granted to the partner that was never connected answers the same.
      const granted = await w.app.newVenue();
      await w.app.grant(w.partner.partnerId, granted);
      const grantedRes = await features(w.partner.token, granted);
      expect(grantedRes.status).toBe(404);
      expect(grantedRes.body.error.message).toMatch(/no POS connection found/i);
    });

    it('[PATV-27] features.posCode equals the venue’s posCode in GET /v1/pat/venues', async () => {
      const partner = await newPartner();
      const venues = [];
      for (const posType of Object.values(POS)) venues.push(await w.connectVenue({ partner, posType }));
      const listed = await list(partner.token, { limit: 100 });
      for (const venue of venues) {
        const f = await features(partner.token, venue.venueId);
        const summary = listed.body.venues.find((v: { id: string }) => v.id === venue.venueId);
        expect(f.body.posCode).toBe(summary.posCode);
        expect(f.body.posCode).toBe(venue.posType);
      }
    });

    it('[DES-072] payAtTable is the capabilities of the venue’s POS type entry', async () => {
      const expected = {
        [POS.immediate]: { billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate' },
        [POS.deferred]: { billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'deferred' },
        [POS.stored]: { billRetrieval: false, paymentForwarding: true, paymentConfirmation: 'immediate' },
        [POS.noForwarding]: { billRetrieval: true, paymentForwarding: false, paymentConfirmation: 'immediate' },
      };
      for (const posType of Object.values(POS)) {
        const venue = await w.connectVenue({ posType });
        const res = await features(w.partner.token, venue.venueId);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ venueId: venue.venueId, posCode: posType, payAtTable: expected[posType] });
      }
    });
  });

  describe('per-venue scope', () => {
    it('[AUTH-09] a venue outside the token’s scope → 403, never 404, on features and tables', async () => {
      const other = await newPartner();
      const theirsConnected = await w.connectVenue({ partner: other });
      const theirsPending = (await createOk(other.token)).id;
      const unknown = uuidv7();
      for (const venueId of [theirsConnected.venueId, theirsPending, unknown, 'not-a-uuid']) {
        for (const res of [await features(w.partner.token, venueId), await tables(w.partner.token, venueId)]) {
          expect(res.status, `${venueId}: ${res.text}`).toBe(403);
          expect(res.body.error.code).toBe(403);
          expect(res.text).not.toMatch(/no POS connection/i);
        }
      }
      // The owner is answered.
      expect((await features(other.token, theirsConnected.venueId)).status).toBe(200);
    });

    it('[DES-037] the scope is the venues the partner created plus those granted to it; any other → 403', async () => {
      const owner = await newPartner();
      const partner = await newPartner();
      const created = await w.connectVenue({ partner });
      const grantedVenue = await w.connectVenue({ partner: owner });
      const notGranted = await w.connectVenue({ partner: owner });
      await w.app.grant(partner.partnerId, grantedVenue.venueId);
      for (const venueId of [created.venueId, grantedVenue.venueId]) {
        expect((await features(partner.token, venueId)).status).toBe(200);
        expect((await tables(partner.token, venueId)).status).toBe(200);
      }
      expect((await features(partner.token, notGranted.venueId)).status).toBe(403);
      expect((await tables(partner.token, notGranted.venueId)).status).toBe(403);
      const listed = await list(partner.token);
      expect(listed.body.venues.map((v: { id: string }) => v.id).sort()).toEqual([created.venueId, grantedVenue.venueId].sort());
    });

    it('[DES-056] granting a venue to a partner makes its per-venue calls stop answering 403', async () => {
      const partner = await newPartner();
      const venue = await w.connectVenue();
      expect((await features(partner.token, venue.venueId)).status).toBe(403);
      expect((await tables(partner.token, venue.venueId)).status).toBe(403);
      await w.app.grant(partner.partnerId, venue.venueId);
      const f = await features(partner.token, venue.venueId);
      expect(f.status).toBe(200);
      expect(f.body.venueId).toBe(venue.venueId);
      const t = await tables(partner.token, venue.venueId);
      expect(t.status).toBe(200);
      expect(t.body.tables).toHaveLength(4);
      expect((await list(partner.token)).body.venues.map((v: { id: string }) => v.id)).toEqual([venue.venueId]);
      // The original partner keeps it.
      expect((await features(w.partner.token, venue.venueId)).status).toBe(200);
    });
  });

  describe('the POS type’s credentials', () => {
    it('[DES-073] the service calls the venue’s POS with its type’s apiKey', async () => {
      const venue = await w.connectVenue();
      await w.sim.control.clearRequests(venue.posVenueId);
      await w.openOrder(venue.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
      expect((await w.bill(venue, '1')).status).toBe(200);
      const requests = await w.sim.control.requests(venue.posVenueId);
      expect(requests.length).toBeGreaterThan(0);
      for (const r of requests) expect(r.headers.authorization).toBe(`Bearer ${w.sim.apiKey}`);
    });

    it('[DES-073] two POS types at one POS host: each type’s own baseUrl and apiKey are used', async () => {
      const tls = testTls();
      const sim = await startSimulator({ tls: { key: tls.key, cert: tls.cert } });
      const entry = (code: string, apiKey: string) => ({
        code, name: code, baseUrl: sim.baseUrl, apiKey, caFile: testCertFile(),
        billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate',
      });
      const app = await startTestApp({ store, posTypes: [entry('good', sim.apiKey), entry('stale', 'a-revoked-key')], env: { AUTH_FAILURE_LIMIT_PER_MIN: '1000000' } });
      try {
        const partner = await app.newPartner(['pat']);
        await sim.control.createVenue({ id: 'loc-key-test', name: 'Key test', timezone: 'Europe/Madrid', currency: 'EUR', tables: [{ id: '1', name: 'Table 1' }] });
        const onboard = async (posType: string) => {
          const created = await app.http.post('/v1/pat/venues', { token: partner.token, body: venueBody({ posType }) });
          const url = new URL(created.body.onboarding.url);
          const page = await app.http.post(`${url.pathname}${url.search}`, {
            body: new URLSearchParams({ posVenueId: 'loc-key-test' }).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          });
          return { venueId: created.body.id as string, page };
        };
        const stale = await onboard('stale');
        let log = await sim.control.requests('loc-key-test');
        expect(log.map((r) => r.headers.authorization)).toEqual(['Bearer a-revoked-key']);
        expect(log[0].status).toBe(401);
        expect(stale.page.text).toContain('refused our credentials');
        expect((await app.http.get(`/v1/pat/venue/${stale.venueId}/features`, { token: partner.token })).status).toBe(404);

        const good = await onboard('good');
        expect(good.page.status).toBe(200);
        log = await sim.control.requests('loc-key-test');
        expect(log.slice(1).every((r) => r.headers.authorization === `Bearer ${sim.apiKey}`)).toBe(true);
        expect(log.at(-1)).toMatchObject({ method: 'GET', path: '/venue/loc-key-test/tables', status: 200 });
      } finally {
        await app.close();
        await sim.close();
      }
    });
  });
});

describe('blank text fields', () => {
  it('[PATV-13] a name, address or city of only spaces → 400 naming the field, nothing created', async () => {
    const { startPatWorld: start } = await import('../helpers/pat.ts');
    const w = await start();
    const body = { name: '   ', address: ' ', city: '\t', postalCode: '28001', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType: 'sim' };
    const res = await w.app.http.post('/v1/pat/venues', { token: w.partner.token, body });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual(['address', 'city', 'name']);
    expect((await w.app.http.get('/v1/pat/venues', { token: w.partner.token })).body.total).toBe(0);
  });
});
