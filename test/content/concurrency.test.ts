import { expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newArea, newBrand, newChannel, newCompany, newVenue, withRmsApp } from './builders.ts';

// Writes that lock the same rows in different orders must neither deadlock nor fail: venue updates
// naming a brand, brand and channel links of the same venues, area writes, all at once
// (on PostgreSQL they really run concurrently; PGlite serializes them).

describeEachStore('content concurrent writes', (store) => {
  let app: TestApp;
  let key: string;

  withRmsApp(store, (started, apiKey) => {
    app = started;
    key = apiKey;
  });

  it('[DES-021] overlapping venue, brand, channel and area writes all succeed, and the final state is coherent', async () => {
    const company = await newCompany(app, key);
    const brands = [await newBrand(app, key, company.id), await newBrand(app, key, company.id)];
    const channel = await newChannel(app);
    const venues = [];
    for (let i = 0; i < 6; i++) venues.push(await newVenue(app, key, { company: company.id }));
    const ids = venues.map((v) => v.id);
    const areas = await Promise.all(venues.slice(0, 2).map((v) => newArea(app, key, v.id)));
    const calls: Array<Promise<{ status: number; body: any }>> = [];
    for (let round = 0; round < 4; round++) {
      calls.push(app.http.put(`/v1/rms/brands/${brands[round % 2].id}/link-venues`, { token: key, body: { venues: [...ids].reverse() } }));
      calls.push(app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: key, body: { venues: ids } }));
      calls.push(app.http.put(`/v1/rms/booking-channels/${channel.id}/unlink-venues`, { token: key, body: { venues: ids.slice(0, 3) } }));
      for (const v of venues) calls.push(app.http.put(`/v1/rms/venues/${v.id}`, { token: key, body: { brand: brands[(round + 1) % 2].id, capacity: round } }));
      calls.push(app.http.put(`/v1/rms/venues/${venues[0].id}/areas/${areas[0].id}`, { token: key, body: { name: `Area ${round}`, isDefault: true } }));
      calls.push(app.http.put(`/v1/rms/brands/${brands[0].id}/unlink-venues`, { token: key, body: { venues: ids.slice(2) } }));
    }
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
    const list = await app.http.get('/v1/rms/venues', { token: key, query: { limit: 50 } });
    for (const v of list.body.data.filter((x: any) => ids.includes(x.id))) {
      expect(v.company.id).toBe(company.id);
      expect([null, brands[0].id, brands[1].id]).toContain(v.brand?.id ?? null);
    }
    const linked = await app.http.get('/v1/rms/venues', { token: key, query: { 'filters[bookingChannel]': channel.id, limit: 50 } });
    const notLinked = await app.http.get('/v1/rms/venues', { token: key, query: { 'filters[notBookingChannel]': channel.id, limit: 50 } });
    expect(linked.body.total + notLinked.body.total).toBe(list.body.total);
  });
});
