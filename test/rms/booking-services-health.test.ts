import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { RmsError } from '../../src/rms/rms-client.ts';
import { describeEachStore } from '../helpers/db.ts';
import { startRmsWorld, type RmsWorld } from './world.ts';

// DESIGN 8.1: GET /v1/rms/booking-services answers the last healthcheck, and it tells the truth: a
// booking-services call that finds the RMS unreachable, failing or refusing the key records
// {at, ok: false, message}; the next call that gets an answer records ok: true. Successful calls
// write nothing while the record already says ok. Against the reference RMS over HTTPS.

const T0 = '2025-06-10T09:00:00.000Z';

describeEachStore('[BKG-02] lastHealthCheck tells the truth', (store) => {
  let w: RmsWorld;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock(T0);
    w = await startRmsWorld({ app: { store, clock } });
    await w.sim.control.setClock({ set: T0, frozen: true });
  });
  afterAll(async () => w?.close());

  const health = async () => {
    const res = await w.app.http.get('/v1/rms/booking-services', { token: w.key });
    expect(res.status).toBe(200);
    return res.body.lastHealthCheck;
  };
  const client = async () => (await w.app.service.app.services.bookingServices.client(w.partnerId))!;

  it('[BKG-02] a call that finds the RMS failing records ok:false with what happened; the next answered call records ok:true', async () => {
    expect(await health()).toEqual({ at: T0, ok: true, message: expect.stringMatching(/healthcheck answered 200/) });
    await w.sim.control.setFailures({ mode: 'error5xx' });
    clock.advance(60_000);
    const err = await (await client()).getBooking('bk-none').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmsError);
    const failing = await health();
    expect(failing).toEqual({ at: clock.now().toISOString(), ok: false, message: expect.stringMatching(/GET \/booking\/bk-none: the RMS answered 503/) });

    await w.sim.control.setFailures({ mode: 'none' });
    clock.advance(60_000);
    // A 404 is an answer: the RMS is there and took the key.
    expect(await (await client()).getBooking('bk-none').catch((e: RmsError) => e.kind)).toBe('not_found');
    expect(await health()).toEqual({ at: clock.now().toISOString(), ok: true, message: 'GET /booking/{id} answered' });
  });

  it('[BKG-02] successful calls write nothing: the record keeps the time of the call that found the RMS well', async () => {
    await w.sim.control.setFailures({ mode: 'none' });
    const before = await health();
    expect(before.ok).toBe(true);
    for (let i = 0; i < 3; i++) {
      clock.advance(10 * 60_000);
      await (await client()).healthcheck();
      await w.app.service.app.services.availability.forVenue(w.venueId, '2025-06-11', 2);
    }
    expect(await health()).toEqual(before);
  });

  it('[BKG-02] an RMS that cannot be reached, seen by a real caller (a venue\'s availability), records ok:false', async () => {
    await w.sim.close();
    clock.advance(60_000);
    const err = await w.app.service.app.services.availability.forVenue(w.venueId, '2025-06-11', 2).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmsError);
    expect((err as RmsError).kind).toBe('unreachable');
    expect(await health()).toEqual({ at: clock.now().toISOString(), ok: false, message: expect.stringMatching(/could not be reached/) });
  });
});
