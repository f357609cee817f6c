// The reference RMS's control API: venue configuration and its validation, failure knobs (5xx,
// any status, hang, act-then-hang, slow, lag, garbage, forced 402, per venue or global, counted), the request log, the clock,
// broken modes, reset and the state file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { startRmsSimulator } from '../../rms-simulator/src/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { DAY, NOW, at, bookingBody, harness, smallVenue, type RmsHarness } from './helpers.ts';

let h: RmsHarness;
beforeEach(async () => {
  h = await harness();
  await h.sim.control.setClock({ set: NOW, frozen: true });
  await h.sim.control.createVenue(smallVenue());
});
afterEach(() => h.close());

const avail = (venueId = 'v1') => h.call('GET', `/availability?venueId=${venueId}&date=${DAY}&partySize=2`);

describe('venue configuration', () => {
  it('a venue is created with defaults, changed field by field, and its configuration errors are 400 naming each field', async () => {
    const created = await h.sim.control.createVenue({ id: 'v2' });
    expect(created).toMatchObject({ timezone: 'Europe/London', currency: 'GBP', slotIntervalMinutes: 15, tables: [], autoConfirm: true });
    await expect(h.sim.control.createVenue({ id: 'v2' })).rejects.toMatchObject({ statusCode: 409 });
    const changed = await h.sim.control.configureVenue('v2', { timezone: 'America/New_York', pacing: { maxCoversPerSlot: 8 } });
    expect(changed).toMatchObject({ timezone: 'America/New_York', currency: 'GBP', pacing: { maxCoversPerSlot: 8, maxBookingsPerSlot: null } });
    const bad = await h.sim.control.configureVenue('v2', {
      timezone: 'Mars/Olympus',
      tables: [{ id: 'A', minCovers: 4, maxCovers: 2 }, { id: 'A', minCovers: 1, maxCovers: 2, areaId: 'nowhere' }],
      combinations: [{ tables: ['A', 'Z'], minCovers: 2, maxCovers: 4 }],
      hours: { mon: [{ open: '20:00', close: '18:00' }] },
      currency: 'JPY',
      paymentDefinition: { deposit: { type: 'fixed_price', amount: 10.5 } },
    }).catch((e) => e);
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.body.error.details).sort()).toEqual([
      'combinations[0].tables', 'hours.mon[0]', 'paymentDefinition.deposit.amount', 'tables[0].minCovers', 'tables[1].areaId', 'tables[1].id', 'timezone',
    ]);
    expect((await h.sim.control.getVenue('v2')).timezone).toBe('America/New_York');
    const schema = await h.sim.control.configureVenue('v2', { slotIntervalMinutes: 1 } as never).catch((e) => e);
    expect(schema.body.error.details).toHaveProperty(['slotIntervalMinutes']);
  });
});

describe('failure knobs', () => {
  it('error5xx answers 503 for the operations and count given, then clears itself', async () => {
    await h.sim.control.setFailures({ mode: 'error5xx', operations: ['availability'], count: 2 });
    expect((await avail()).status).toBe(503);
    expect((await h.call('GET', '/healthcheck')).status).toBe(200);
    expect((await avail()).body).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
    expect((await avail()).status).toBe(200);
    expect((await h.sim.control.failures()).global).toBeNull();
  });

  it('venue knobs apply to that venue only and win over global ones; garbage answers 200 with a body that is not JSON', async () => {
    await h.sim.control.createVenue(smallVenue('v2'));
    await h.sim.control.setVenueFailures('v1', { mode: 'garbage' });
    await h.sim.control.setFailures({ mode: 'error5xx', operations: ['availability'] });
    const garbage = await avail('v1');
    expect(garbage.status).toBe(200);
    expect(() => JSON.parse(garbage.text)).toThrow();
    expect((await avail('v2')).status).toBe(503);
    // A booking's calls concern its venue.
    await h.sim.control.setVenueFailures('v1', {});
    await h.sim.control.setFailures({});
    const { body: { id } } = await h.book(bookingBody());
    await h.sim.control.setVenueFailures('v1', { mode: 'error5xx', operations: ['read'] });
    expect((await h.call('GET', `/booking/${id}`)).status).toBe(503);
    await h.sim.control.setVenueFailures('v1', { mode: 'none' });
    expect((await h.call('GET', `/booking/${id}`)).status).toBe(200);
  });

  it('hang never answers (until the simulator closes) while other calls are served; slowMs holds the answer back', async () => {
    await h.sim.control.setFailures({ mode: 'hang', operations: ['availability'] });
    let settled = false;
    const hanging = avail().then(() => 'answered', () => 'closed').finally(() => { settled = true; });
    await eventually(async () => expect((await h.sim.control.requests({ operation: 'availability' })).length).toBe(1));
    expect((await h.call('GET', '/healthcheck')).status).toBe(200);
    const [pending] = await h.sim.control.requests({ operation: 'availability' });
    expect(pending.status).toBeUndefined();
    expect(settled).toBe(false);

    await h.sim.control.setFailures({ slowMs: 600_000, operations: ['search'] });
    let slowSettled = false;
    const slow = h.call('GET', `/bookings/search?venueId=v1&startDate=${DAY}&endDate=${DAY}`).finally(() => { slowSettled = true; });
    await eventually(async () => expect((await h.sim.control.requests({ operation: 'search' })).length).toBe(1));
    expect((await h.call('GET', '/healthcheck')).status).toBe(200);
    expect(slowSettled).toBe(false);
    await h.sim.close();
    expect(await hanging).toBe('closed');
    await slow.catch(() => undefined);
  });

  it('lagMs answers what the call read on arrival, late: a change made meanwhile is not in it', async () => {
    const id = (await h.book(bookingBody())).body.id;
    await h.sim.control.setFailures({ lagMs: 1000, operations: ['read'], count: 1 });
    const late = h.call('GET', `/booking/${id}`);
    await eventually(async () => {
      const [read] = await h.sim.control.requests({ operation: 'read' });
      expect(read?.laggingSince).toBeDefined(); // its answer is built (what it read is fixed) and held
    });
    expect((await h.call('PUT', `/booking/${id}`, { body: { partySize: 3 } })).status).toBe(200);
    expect((await h.call('GET', `/booking/${id}`)).body.partySize).toBe(3); // count 1: the next read is on time
    expect((await late).body.partySize).toBe(2);
  });

  it('[BKG-41] status answers the status asked (408, 429 with Retry-After, 401 with WWW-Authenticate, 403) in the envelope and books nothing', async () => {
    for (const status of [408, 429, 401, 403]) {
      await h.sim.control.setFailures({ mode: 'status', status, operations: ['create'], count: 1 });
      const res = await h.book(bookingBody());
      expect([res.status, res.body], String(status)).toEqual([status, { error: { code: `http_${status}`, message: expect.any(String) } }]);
      if (status === 429) expect(res.headers['retry-after']).toBe('1');
      if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    expect(await h.sim.control.bookings('v1')).toEqual([]);
    expect((await h.book(bookingBody())).status).toBe(200); // count 1 each: the knobs are spent
  });

  it('[BKG-40] act-then-hang makes the booking, then never answers; the same key then answers that booking', async () => {
    await h.sim.control.setFailures({ mode: 'act-then-hang', operations: ['create'], count: 1 });
    const lost = h.book(bookingBody(), 'key-lost').then(() => 'answered', () => 'closed');
    const [made] = await eventually(async () => {
      const bookings = await h.sim.control.bookings('v1');
      expect(bookings).toHaveLength(1);
      return bookings;
    });
    const again = await h.book(bookingBody(), 'key-lost');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(made!.id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    await h.sim.close();
    expect(await lost).toBe('closed');
  });

  it('a forced 402 touches only create, update and cancel; reads still answer', async () => {
    await h.sim.control.setFailures({ force402: 'payment_failed' });
    expect((await avail()).status).toBe(200);
    const res = await h.book(bookingBody());
    expect(res.body).toEqual({ error: { code: 'payment_failed', message: expect.any(String) } });
    expect(await h.sim.control.bookings('v1')).toEqual([]);
  });
});

describe('request log, clock, broken modes, reset', () => {
  it('the request log shows what a client sent: Authorization, Idempotency-Key, body, status, venue and operation', async () => {
    await h.book(bookingBody(), 'key-log');
    await h.call('GET', '/healthcheck', { auth: false });
    const [create] = await h.sim.control.requests({ venueId: 'v1', operation: 'create' });
    expect(create).toMatchObject({
      method: 'POST', path: '/booking', operation: 'create', venueId: 'v1', status: 200, body: bookingBody(),
      headers: { authorization: `Bearer ${h.sim.apiKey}`, 'idempotency-key': 'key-log' },
    });
    const [health] = await h.sim.control.requests({ operation: 'healthcheck' });
    expect(health).toMatchObject({ status: 401, venueId: null });
    expect(health.headers.authorization).toBeUndefined();
    await h.sim.control.clearRequests();
    expect(await h.sim.control.requests()).toEqual([]);
  });

  it('the clock drives "now": moving it past a slot closes the slot for booking', async () => {
    expect((await avail()).body.slotData[0].openSpots).toBe(3);
    await h.sim.control.setClock({ set: '2025-06-11T17:30:00Z' });
    const slots = (await avail()).body.slotData;
    expect(slots[0].openSpots).toBe(0);
    expect(slots.at(-1).openSpots).toBe(3);
    expect((await h.book(bookingBody())).body.error.code).toBe('outside_booking_window');
    expect((await h.sim.control.clock()).now).toBe('2025-06-11T17:30:00.000Z');
  });

  it('a broken mode set through the control API takes effect and can be switched off; reset forgets everything but the key', async () => {
    await h.sim.control.setBroken('no-auth-healthcheck');
    expect((await h.call('GET', '/healthcheck', { auth: false })).status).toBe(200);
    await h.sim.control.setBroken(null);
    expect((await h.call('GET', '/healthcheck', { auth: false })).status).toBe(401);
    await h.book(bookingBody());
    await h.sim.control.reset();
    expect(await h.sim.control.listVenues()).toEqual([]);
    expect((await h.call('GET', '/healthcheck')).status).toBe(200);
  });

  it('with a state file, venues, bookings, idempotency keys and the key survive a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rms-state-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const stateFile = join(dir, 'rms.json');
    const first = await startRmsSimulator({ stateFile, seed: true });
    await first.control.setClock({ set: NOW, frozen: true });
    await first.control.createVenue(smallVenue());
    await first.close();
    const h2 = await harness({ stateFile, seed: true });
    onTestFinished(() => h2.close());
    expect(h2.sim.apiKey).toBe(first.apiKey);
    const made = await h2.book(bookingBody({ date: at('19:00') }), 'persisted-key');
    await h2.close();
    const h3 = await harness({ stateFile });
    onTestFinished(() => h3.close());
    expect((await h3.sim.control.listVenues()).map((v) => v.id)).toEqual(['rms-venue-1', 'rms-venue-2', 'rms-venue-3', 'v1']);
    expect((await h3.book(bookingBody({ date: at('19:00') }), 'persisted-key')).body.id).toBe(made.body.id);
    expect((await h3.call('GET', `/booking/${made.body.id}`)).body.status).toBe('confirmed');
  });
});
