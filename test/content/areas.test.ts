import { expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newArea, newVenue, withRmsApp } from './builders.ts';

describeEachStore('content venue areas', (store) => {
  let app: TestApp;
  let key: string;

  withRmsApp(store, (started, apiKey) => {
    app = started;
    key = apiKey;
  });

  it('POST /venues/{venueId}/areas → 200 with the area; GET /venues/{venueId}/areas/{areaId} reads it; the first area is the default', async () => {
    const venue = await newVenue(app, key);
    const res = await app.http.post(`/v1/rms/venues/${venue.id}/areas`, {
      token: key,
      body: { externalId: 'terrace', name: 'Terrace', description: 'Outdoor, heated' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(String), venueId: venue.id, externalId: 'terrace', name: 'Terrace', description: 'Outdoor, heated', isDefault: true });
    const got = await app.http.get(`/v1/rms/venues/${venue.id}/areas/${res.body.id}`, { token: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const second = await newArea(app, key, venue.id);
    expect(second.isDefault).toBe(false);
  });

  it('[RMS-01] GET /venues/{venueId}/areas lists the venue areas as {total, data}, paged', async () => {
    const venue = await newVenue(app, key);
    const areas = [];
    for (let i = 0; i < 3; i++) areas.push(await newArea(app, key, venue.id, { name: `Area ${i}` }));
    const all = await app.http.get(`/v1/rms/venues/${venue.id}/areas`, { token: key });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.data.map((a: any) => a.name)).toEqual(['Area 0', 'Area 1', 'Area 2']);
    const page = await app.http.get(`/v1/rms/venues/${venue.id}/areas`, { token: key, query: { offset: 1, limit: 1 } });
    expect(page.body).toEqual({ total: 3, data: [all.body.data[1]] });
    expect((await app.http.get(`/v1/rms/venues/${venue.id}/areas`, { token: key, query: { limit: 51 } })).status).toBe(400);
  });

  it('one default per venue: making another area the default clears the previous one', async () => {
    const venue = await newVenue(app, key);
    const a = await newArea(app, key, venue.id);
    const b = await newArea(app, key, venue.id, { isDefault: true });
    expect(b.isDefault).toBe(true);
    expect((await app.http.get(`/v1/rms/venues/${venue.id}/areas/${a.id}`, { token: key })).body.isDefault).toBe(false);
    const c = await newArea(app, key, venue.id);
    const res = await app.http.put(`/v1/rms/venues/${venue.id}/areas/${c.id}`, { token: key, body: { isDefault: true } });
    expect(res.body.isDefault).toBe(true);
    const list = (await app.http.get(`/v1/rms/venues/${venue.id}/areas`, { token: key })).body.data;
    expect(list.filter((x: any) => x.isDefault).map((x: any) => x.id)).toEqual([c.id]);
    const off = await app.http.put(`/v1/rms/venues/${venue.id}/areas/${c.id}`, { token: key, body: { isDefault: false } });
    expect(off.body.isDefault).toBe(false);
  });

  it('concurrent writes making different areas the default end with exactly one default', async () => {
    const venue = await newVenue(app, key);
    const areas = [];
    for (let i = 0; i < 4; i++) areas.push(await newArea(app, key, venue.id));
    const results = await Promise.all(areas.map((a) => app.http.put(`/v1/rms/venues/${venue.id}/areas/${a.id}`, { token: key, body: { isDefault: true } })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const list = (await app.http.get(`/v1/rms/venues/${venue.id}/areas`, { token: key })).body.data;
    expect(list.filter((x: any) => x.isDefault)).toHaveLength(1);
  });

  it('PUT /venues/{venueId}/areas/{areaId} changes the fields given and keeps the others', async () => {
    const venue = await newVenue(app, key);
    const area = await newArea(app, key, venue.id, { description: 'Inside' });
    const res = await app.http.put(`/v1/rms/venues/${venue.id}/areas/${area.id}`, { token: key, body: { name: 'Main room' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...area, name: 'Main room' });
    const cleared = await app.http.put(`/v1/rms/venues/${venue.id}/areas/${area.id}`, { token: key, body: { description: null } });
    expect(cleared.body).toEqual({ ...area, name: 'Main room', description: null });
  });

  it('externalId is unique within a venue (409), free across venues', async () => {
    const venue = await newVenue(app, key);
    const other = await newVenue(app, key);
    const a = await newArea(app, key, venue.id, { externalId: 'bar' });
    const dup = await app.http.post(`/v1/rms/venues/${venue.id}/areas`, { token: key, body: { externalId: 'bar', name: 'Bar 2' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details.areaId).toBe(a.id);
    expect((await app.http.post(`/v1/rms/venues/${other.id}/areas`, { token: key, body: { externalId: 'bar', name: 'Bar' } })).status).toBe(200);
    const b = await newArea(app, key, venue.id, { externalId: 'patio' });
    const clash = await app.http.put(`/v1/rms/venues/${venue.id}/areas/${b.id}`, { token: key, body: { externalId: 'bar' } });
    expect(clash.status).toBe(409);
  });

  it('an unknown venue or area, or an area of another venue → 404; bad input → 400', async () => {
    const venue = await newVenue(app, key);
    const other = await newVenue(app, key);
    const area = await newArea(app, key, other.id);
    const unknown = '0198a5c4-1111-7222-8333-444455556666';
    expect((await app.http.get(`/v1/rms/venues/${unknown}/areas`, { token: key })).status).toBe(404);
    expect((await app.http.get(`/v1/rms/venues/x/areas`, { token: key })).status).toBe(404);
    expect((await app.http.post(`/v1/rms/venues/${unknown}/areas`, { token: key, body: { externalId: 'a', name: 'A' } })).status).toBe(404);
    expect((await app.http.get(`/v1/rms/venues/${venue.id}/areas/${area.id}`, { token: key })).status).toBe(404);
    expect((await app.http.put(`/v1/rms/venues/${venue.id}/areas/${area.id}`, { token: key, body: { name: 'x' } })).status).toBe(404);
    expect((await app.http.get(`/v1/rms/venues/${venue.id}/areas/nope`, { token: key })).status).toBe(404);
    const bad = await app.http.post(`/v1/rms/venues/${venue.id}/areas`, { token: key, body: { name: '', isDefault: 'yes' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(['externalId', 'isDefault', 'name']);
  });
});
