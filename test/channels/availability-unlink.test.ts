import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { HttpClient } from '../helpers/http.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// Issue 28: whatever a process keeps in memory to answer availability sooner (the channel's
// credential, the RMS endpoint; a venue's RMS id if one day it is kept too), an unlink through one
// instance of the service is refused by every instance on the same database once it returns,
// though each had just answered that venue for that channel.

const date = '2025-06-11';
const slotTimes = (startSec: number) =>
  Array.from({ length: 3 }, (_, i) => ({ service_id: 'dining', start_sec: String(startSec + i * 900), duration_sec: '5400', resource_ids: { party_size: 2 } }));

describeEachStore('availability of a venue just unlinked, two instances on one database', (kind) => {
  let w: ChannelWorld;
  let second: TestApp;
  let http2: HttpClient;
  beforeAll(async () => {
    w = await startChannelWorld({ app: { store: kind } });
    // A second instance of the service on the same database: its own memory, the same rows.
    second = await startTestApp({ db: w.app.db, env: { ALLOW_PRIVATE_TARGETS: '1' } });
    second.service.app.services.rmsClients.trust(w.sim.ca);
    http2 = second.http;
  });
  afterAll(async () => {
    await second?.close();
    await w?.close();
  });


  const bc = (http: HttpClient, ch: TestChannel, venueId = w.venueId, on = date) =>
    http.get(`/v1/bc/venues/${venueId}/availability`, { query: { date: on, partySize: '2' }, headers: { authorization: ch.auth } });
  const v3 = (http: HttpClient, ch: TestChannel, venueId = w.venueId) =>
    http.post('/v3/BatchAvailabilityLookup', { body: { merchant_id: venueId, slot_time: slotTimes(Date.parse(`${date}T18:00:00Z`) / 1000) }, headers: { authorization: ch.auth } });

  it('[CHN-02] a venue unlinked through one instance is refused by both once the unlink returns, though each had just answered it', async () => {
    const own = await w.channel('tableside');
    const google = await w.channel('google-v3');
    for (const http of [w.app.http, http2]) {
      for (let i = 0; i < 2; i++) {
        expect((await bc(http, own)).status).toBe(200);
        expect((await v3(http, google)).status).toBe(200);
      }
    }
    for (const ch of [own, google]) {
      const res = await w.app.http.put(`/v1/rms/booking-channels/${ch.id}/unlink-venues`, { token: w.key, body: { venues: [w.venueId] } });
      expect(res.status).toBe(200);
    }
    for (const http of [http2, w.app.http]) {
      for (let i = 0; i < 2; i++) {
        expect((await bc(http, own)).status).toBe(403);
        expect((await v3(http, google)).status).toBe(403);
      }
    }
  });
});
