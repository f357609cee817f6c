import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newArea, newBrand, newChannel, newCompany, newVenue, rmsPartner, withRmsApp } from './builders.ts';

// The list conventions of spec 4.1 and 8 on every content list, and a property: paging through any
// filter with any page size returns each matching venue exactly once (RMS-02, RMS-03).

const N = 12;

describeEachStore('content lists', (store) => {
  let app: TestApp;
  let key: string;
  let lists: Array<{ name: string; path: string }>;

  withRmsApp(store, async (started, apiKey) => {
    app = started;
    key = apiKey;
    const company = await newCompany(app, key);
    let venueId = '';
    for (let i = 0; i < N; i++) {
      await newChannel(app, `List channel ${i % 4}`);
      if (i > 0) await newCompany(app, key, { name: `Company ${i % 3}` });
      await newBrand(app, key, company.id, { name: `Brand ${i % 3}` });
      venueId = (await newVenue(app, key, { name: `Venue ${i % 3}`, company: company.id })).id;
    }
    for (let i = 0; i < N; i++) await newArea(app, key, venueId, { name: `Area ${i % 3}` });
    lists = [
      { name: 'booking channels', path: '/v1/rms/booking-channels' },
      { name: 'companies', path: '/v1/rms/company' },
      { name: 'brands', path: '/v1/rms/brands' },
      { name: 'venues', path: '/v1/rms/venues' },
      { name: 'areas', path: `/v1/rms/venues/${venueId}/areas` },
    ];
  });

  const list = (path: string, query: Record<string, string | number> = {}) => app.http.get(path, { token: key, query });
  const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((x) => x.id);

  it('[RMS-01] [LIM-01] [LIM-02] every content list → 200 {total, data}; without limit at most 10, without offset from the first', async () => {
    for (const { name, path } of lists) {
      const res = await list(path);
      expect(res.status, name).toBe(200);
      expect(Object.keys(res.body).sort(), name).toEqual(['data', 'total']);
      expect(Number.isInteger(res.body.total), name).toBe(true);
      expect(res.body.total, name).toBeGreaterThanOrEqual(N);
      expect(res.body.data, name).toHaveLength(10);
      const explicit = await list(path, { offset: 0, limit: 10 });
      expect(ids(explicit), name).toEqual(ids(res));
    }
  });

  it('[RMS-02] [RMS-03] total does not depend on offset/limit; consecutive pages neither overlap nor skip', async () => {
    for (const { name, path } of lists) {
      const all = await list(path, { limit: 50 });
      for (const size of [1, 3, 5, 7]) {
        const seen: string[] = [];
        for (let offset = 0; offset < all.body.total; offset += size) {
          const page = await list(path, { offset, limit: size });
          expect(page.body.total, `${name} offset ${offset}`).toBe(all.body.total);
          seen.push(...ids(page));
        }
        expect(seen, `${name} pages of ${size}`).toEqual(ids(all));
      }
      const past = await list(path, { offset: all.body.total + 5 });
      expect(past.body).toEqual({ total: all.body.total, data: [] });
    }
  });

  it('[LIM-03] limit=0 → 200 with data [] and the full total', async () => {
    for (const { name, path } of lists) {
      const res = await list(path, { limit: 0 });
      expect(res.status, name).toBe(200);
      expect(res.body.data, name).toEqual([]);
      expect(res.body.total, name).toBe((await list(path, { limit: 50 })).body.total);
    }
  });

  it('[LIM-04] limit=50 is valid → 200 with up to 50 records', async () => {
    for (const { name, path } of lists) {
      const res = await list(path, { limit: 50 });
      expect(res.status, name).toBe(200);
      expect(res.body.data.length, name).toBe(Math.min(50, res.body.total));
    }
  });

  it('[LIM-05] [LIM-06] [LIM-07] [RMS-04] limit 51 or -1, offset -1, a non-integer offset or limit → 400 naming each field', async () => {
    const bad: Array<Record<string, string>> = [
      { limit: '51' },
      { limit: '-1' },
      { offset: '-1' },
      { limit: 'abc' },
      { offset: '1.5' },
      { limit: '2.0001' },
      { offset: 'x', limit: '1000' },
      { limit: '1e400' },
      { offset: '99999999999999999999999' },
    ];
    for (const { name, path } of lists) {
      for (const query of bad) {
        const res = await list(path, query);
        expect(res.status, `${name} ${JSON.stringify(query)}`).toBe(400);
        expect(res.body.error.code).toBe(400);
        expect(Object.keys(res.body.error.details).sort(), `${name} ${JSON.stringify(query)}`).toEqual(Object.keys(query).sort());
      }
    }
  });

  it('[RMS-02] venue list totals follow every write (a total is reused only while nothing changed)', async () => {
    const partner = (await rmsPartner(app)).apiKey;
    const channel = await newChannel(app);
    const total = async (query: Record<string, string | number>) => (await app.http.get('/v1/rms/venues', { token: partner, query })).body.total;
    const q = { 'filters[criteria]': 'Totals', limit: 1 };
    expect(await total(q)).toBe(0);
    const v1 = await newVenue(app, partner, { name: 'Totals one' });
    expect(await total(q)).toBe(1);
    expect(await total({ ...q, limit: 0 })).toBe(1);
    const v2 = await newVenue(app, partner, { name: 'Other' });
    expect(await total(q)).toBe(1);
    await app.http.put(`/v1/rms/venues/${v2.id}`, { token: partner, body: { name: 'Totals two' } });
    expect(await total(q)).toBe(2);
    expect(await total({ 'filters[bookingChannel]': channel.id })).toBe(0);
    await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: partner, body: { venues: [v1.id] } });
    expect(await total({ 'filters[bookingChannel]': channel.id })).toBe(1);
    expect(await total({ 'filters[notBookingChannel]': channel.id, ...q })).toBe(1);
    await app.http.put(`/v1/rms/booking-channels/${channel.id}/unlink-venues`, { token: partner, body: { venues: [v1.id] } });
    expect(await total({ 'filters[bookingChannel]': channel.id })).toBe(0);
    await app.http.put(`/v1/rms/venues/external/${v1.externalId}`, { token: partner, body: { fbInstalled: true } });
    expect(await total({ 'filters[fbInstalled]': 1 })).toBe(1);
  });

  it('[RMS-46] [RMS-03] a venue page asked again follows every write (its ids are reused only while nothing changed)', async () => {
    const partner = (await rmsPartner(app)).apiKey;
    const channel = await newChannel(app);
    const names = async (query: Record<string, string | number>) =>
      ((await app.http.get('/v1/rms/venues', { token: partner, query })).body.data as Array<{ name: string }>).map((v) => v.name);
    const q = { 'filters[criteria]': 'Paged', limit: 2 };
    const b = await newVenue(app, partner, { name: 'Paged b' });
    await newVenue(app, partner, { name: 'Paged d' });
    expect(await names(q)).toEqual(['Paged b', 'Paged d']);
    expect(await names(q)).toEqual(['Paged b', 'Paged d']);
    await newVenue(app, partner, { name: 'Paged a' });
    expect(await names(q)).toEqual(['Paged a', 'Paged b']);
    await app.http.put(`/v1/rms/venues/${b.id}`, { token: partner, body: { name: 'Paged e' } });
    expect(await names(q)).toEqual(['Paged a', 'Paged d']);
    expect(await names({ ...q, offset: 2 })).toEqual(['Paged e']);
    const cq = { ...q, 'filters[bookingChannel]': channel.id };
    expect(await names(cq)).toEqual([]);
    await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: partner, body: { venues: [b.id] } });
    expect(await names(cq)).toEqual(['Paged e']);
    await app.http.put(`/v1/rms/booking-channels/${channel.id}/unlink-venues`, { token: partner, body: { venues: [b.id] } });
    expect(await names(cq)).toEqual([]);
  });

  it('[RMS-03] records of equal names are still in one stable order (ties broken by id)', async () => {
    const first = ids(await list('/v1/rms/venues', { limit: 50 }));
    const again = ids(await list('/v1/rms/venues', { limit: 50 }));
    expect(again).toEqual(first);
  });
});

describeEachStore('content venue list paging (property)', (store) => {
  interface Seeded {
    id: string;
    name: string;
    city: string;
    countryCode: string;
    fbInstalled: boolean;
    igInstalled: boolean;
    channels: Set<string>;
  }

  let app: TestApp;
  let key: string;
  let channels: string[];
  const venues: Seeded[] = [];
  const NAMES = ['Alpha', 'alpha', 'ALPHA bar', 'Beta', 'beta', 'Gamma 50%', 'gamma_x', 'Delta'];
  const CITIES = ['Madrid', 'madrid', 'Sevilla', 'Paris', 'Lyon'];
  const COUNTRIES = ['ES', 'FR', 'PT'];

  withRmsApp(store, async (started, apiKey) => {
    app = started;
    key = apiKey;
    // Noise: another partner's venues never show up.
    await newVenue(app, (await rmsPartner(app)).apiKey, { name: 'Alpha' });
    channels = [(await newChannel(app)).id, (await newChannel(app)).id];
    const rand = fc.sample(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean(), fc.boolean(), fc.boolean(), fc.boolean()), { numRuns: 48, seed: 42 });
    for (const [n, c, k, fb, ig, ch0, ch1] of rand) {
      const name = NAMES[n % NAMES.length];
      const city = CITIES[c % CITIES.length];
      const countryCode = COUNTRIES[k % COUNTRIES.length];
      const v = await newVenue(app, key, { name, city, countryCode, fbInstalled: fb, igInstalled: ig });
      const linked = new Set<string>();
      if (ch0) linked.add(channels[0]);
      if (ch1) linked.add(channels[1]);
      for (const ch of linked) await app.http.put(`/v1/rms/booking-channels/${ch}/link-venues`, { token: key, body: { venues: [v.id] } });
      venues.push({ id: v.id, name, city, countryCode, fbInstalled: fb, igInstalled: ig, channels: linked });
    }
  });

  // Zero to three filters at a time, so that many runs match enough venues to span several pages.
  const filters = fc
    .tuple(
      fc.subarray(['criteria', 'city', 'countryCode', 'bookingChannel', 'notBookingChannel', 'fbInstalled', 'igInstalled'] as const, { maxLength: 3 }),
      fc.record({
        criteria: fc.constantFrom('a', 'ALPHA', 'beta', '%', '_', 'bar', 'zzz', 'Gamma 5'),
        city: fc.constantFrom('mad', 'MADRID', 'a', 'Lyon', 'x'),
        countryCode: fc.constantFrom('ES', 'FR', 'PT', 'DE'),
        bookingChannel: fc.constantFrom(0, 1),
        notBookingChannel: fc.constantFrom(0, 1),
        fbInstalled: fc.boolean(),
        igInstalled: fc.boolean(),
      }),
    )
    .map(([keys, values]) => Object.fromEntries(keys.map((k) => [k, values[k]])) as F);

  type F = Partial<{ criteria: string; city: string; countryCode: string; bookingChannel: number; notBookingChannel: number; fbInstalled: boolean; igInstalled: boolean }>;

  function expected(f: F): string[] {
    const has = (text: string, part: string) => text.toLowerCase().includes(part.toLowerCase());
    return venues
      .filter(
        (v) =>
          (f.criteria === undefined || has(v.name, f.criteria)) &&
          (f.city === undefined || has(v.city, f.city)) &&
          (f.countryCode === undefined || v.countryCode === f.countryCode) &&
          (f.bookingChannel === undefined || v.channels.has(channels[f.bookingChannel])) &&
          (f.notBookingChannel === undefined || !v.channels.has(channels[f.notBookingChannel])) &&
          (f.fbInstalled === undefined || v.fbInstalled === f.fbInstalled) &&
          (f.igInstalled === undefined || v.igInstalled === f.igInstalled),
      )
      .map((v) => v.id)
      .sort();
  }

  function query(f: F): Record<string, string> {
    const q: Record<string, string> = {};
    if (f.criteria !== undefined) q['filters[criteria]'] = f.criteria;
    if (f.city !== undefined) q['filters[city]'] = f.city;
    if (f.countryCode !== undefined) q['filters[countryCode]'] = f.countryCode;
    if (f.bookingChannel !== undefined) q['filters[bookingChannel]'] = channels[f.bookingChannel];
    if (f.notBookingChannel !== undefined) q['filters[notBookingChannel]'] = channels[f.notBookingChannel];
    if (f.fbInstalled !== undefined) q['filters[fbInstalled]'] = f.fbInstalled ? '1' : '0';
    if (f.igInstalled !== undefined) q['filters[igInstalled]'] = f.igInstalled ? '1' : '0';
    return q;
  }

  describe('any filter, any page size', () => {
    it('[RMS-02] [RMS-03] [RMS-46] [RMS-47] [RMS-48] [RMS-49] [RMS-50] [RMS-51] [RMS-52] paging returns each matching venue exactly once, with a constant total', async () => {
      let multiPage = 0;
      await fc.assert(
        fc.asyncProperty(filters, fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 50 })), async (f, limit) => {
          const want = expected(f);
          if (want.length > limit) multiPage++;
          const got: string[] = [];
          for (let offset = 0; ; offset += limit) {
            const res = await app.http.get('/v1/rms/venues', { token: key, query: { ...query(f), offset, limit } });
            expect(res.status).toBe(200);
            expect(res.body.total).toBe(want.length);
            got.push(...res.body.data.map((v: any) => v.id));
            if (res.body.data.length < limit) break;
          }
          expect(got.length).toBe(want.length);
          expect([...got].sort()).toEqual(want);
        }),
        { numRuns: 60, seed: 7 },
      );
      // The runs must actually page (not only hit empty or single-page results).
      expect(multiPage).toBeGreaterThan(5);
    });
  });
});
