import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { newChannel, newVenue, rmsPartner, withRmsApp } from './builders.ts';

describeEachStore('content booking channels', (store) => {
  let app: TestApp;
  let key: string;

  withRmsApp(store, (started, apiKey) => {
    app = started;
    key = apiKey;
  });

  const inChannel = async (channelId: string, token = key) =>
    (await app.http.get('/v1/rms/venues', { token, query: { 'filters[bookingChannel]': channelId, limit: 50 } })).body.data.map((v: any) => v.id).sort();
  const notInChannel = async (channelId: string, token = key) =>
    (await app.http.get('/v1/rms/venues', { token, query: { 'filters[notBookingChannel]': channelId, limit: 50 } })).body.data.map((v: any) => v.id).sort();

  it('[RMS-06] [DES-036] each channel has id, name and logo (URL) strings, and every content partner sees the operator channels', async () => {
    const channel = await newChannel(app, 'Reserve with Search');
    for (const token of [key, (await rmsPartner(app)).apiKey]) {
      const res = await app.http.get('/v1/rms/booking-channels', { token, query: { limit: 50 } });
      expect(res.status).toBe(200);
      expect(res.body.data).toContainEqual({ id: channel.id, name: 'Reserve with Search', logo: 'https://cdn.example.com/logo.png' });
      for (const c of res.body.data) {
        expect(c).toEqual({ id: expect.any(String), name: expect.any(String), logo: expect.stringMatching(/^https?:\/\//) });
      }
    }
  });

  it('a channel is created only within the limits its schema documents (name <= 255, logo <= 2048, no NUL)', async () => {
    const channels = app.service.app.services.channels;
    await expect(channels.create({ name: 'n'.repeat(256) })).rejects.toThrow(/name must be at most 255/);
    await expect(channels.create({ name: 'a\u0000b' })).rejects.toThrow(/without NUL/);
    await expect(channels.create({ name: 'Long logo', logo: `https://cdn.example.com/${'l'.repeat(2048)}` })).rejects.toThrow(/logo must be at most 2048/);
    expect((await channels.create({ name: 'n'.repeat(255) })).name).toHaveLength(255);
  });

  it('[RMS-07] filters[criteria] returns only channels whose name contains the text (case-insensitive), total counts only those', async () => {
    await newChannel(app, 'Zeta Booking Portal');
    await newChannel(app, 'zeta widgets');
    await newChannel(app, 'Other');
    const res = await app.http.get('/v1/rms/booking-channels', { token: key, query: { 'filters[criteria]': 'ZETA' } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.data.map((c: any) => c.name).sort()).toEqual(['Zeta Booking Portal', 'zeta widgets']);
  });

  it('[RMS-08] [RMS-09] link-venues → 200 {venues: [ids]}; the venues are then listed under filters[bookingChannel]', async () => {
    const channel = await newChannel(app);
    const a = await newVenue(app, key);
    const b = await newVenue(app, key);
    const res = await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: key, body: { venues: [a.id, b.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ venues: [a.id, b.id] });
    expect(await inChannel(channel.id)).toEqual([a.id, b.id].sort());
    // Linking again is harmless; ids are answered once each.
    const again = await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: key, body: { venues: [a.id, a.id] } });
    expect(again.body).toEqual({ venues: [a.id] });
    expect(await inChannel(channel.id)).toEqual([a.id, b.id].sort());
  });

  it('[RMS-10] [RMS-11] unlink-venues → 200 {venues: [ids]}; the venues leave filters[bookingChannel] and appear under filters[notBookingChannel]', async () => {
    const channel = await newChannel(app);
    const a = await newVenue(app, key);
    const b = await newVenue(app, key);
    await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: key, body: { venues: [a.id, b.id] } });
    const res = await app.http.put(`/v1/rms/booking-channels/${channel.id}/unlink-venues`, { token: key, body: { venues: [a.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ venues: [a.id] });
    expect(await inChannel(channel.id)).toEqual([b.id]);
    expect(await notInChannel(channel.id)).toContain(a.id);
    expect(await notInChannel(channel.id)).not.toContain(b.id);
    // Unlinking a venue that is not linked changes nothing and is not an error.
    const again = await app.http.put(`/v1/rms/booking-channels/${channel.id}/unlink-venues`, { token: key, body: { venues: [a.id] } });
    expect(again.status).toBe(200);
  });

  it('[RMS-08] an empty venues array is valid and changes nothing', async () => {
    const channel = await newChannel(app);
    const res = await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, { token: key, body: { venues: [] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ venues: [] });
  });

  it('[RMS-12] link-venues / unlink-venues without venues or with venues not an array of strings → 400', async () => {
    const channel = await newChannel(app);
    for (const op of ['link-venues', 'unlink-venues']) {
      for (const body of [{}, { venues: 'id' }, { venues: [1] }, { venues: [['a']] }, { venues: null }, { vennues: [] }]) {
        const res = await app.http.put(`/v1/rms/booking-channels/${channel.id}/${op}`, { token: key, body });
        expect(res.status, `${op} ${JSON.stringify(body)}`).toBe(400);
        expect(res.body).toEqual({ error: { code: 400, message: expect.any(String), details: expect.any(Object) } });
        expect(Object.keys(res.body.error.details)[0]).toMatch(/^venues/);
      }
      const noBody = await app.http.request('PUT', `/v1/rms/booking-channels/${channel.id}/${op}`, { token: key });
      expect(noBody.status).toBe(400);
    }
  });

  it('[RMS-13] link-venues / unlink-venues on an unknown bookingChannelId → 404, nothing linked', async () => {
    const venue = await newVenue(app, key);
    for (const id of ['0198a5c4-1111-7222-8333-444455556666', 'nope']) {
      for (const op of ['link-venues', 'unlink-venues']) {
        const res = await app.http.put(`/v1/rms/booking-channels/${id}/${op}`, { token: key, body: { venues: [venue.id] } });
        expect(res.status, `${op} ${id}`).toBe(404);
        expect(res.body.error.code).toBe(404);
      }
    }
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM venue_booking_channels WHERE venue_id = ${venue.id}`.execute(app.db.kysely);
    expect(rows[0].n).toBe(0);
  });

  it('[DES-034] an unknown or malformed venue id in the body → 403 and nothing is linked (the others neither)', async () => {
    const channel = await newChannel(app);
    const mine = await newVenue(app, key);
    const res = await app.http.put(`/v1/rms/booking-channels/${channel.id}/link-venues`, {
      token: key,
      body: { venues: [mine.id, '0198a5c4-1111-7222-8333-444455556666', 'garbage'] },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.details).toEqual({ 'venues[1]': ['is not one of your venues'], 'venues[2]': ['is not one of your venues'] });
    expect(await inChannel(channel.id)).toEqual([]);
  });
});
