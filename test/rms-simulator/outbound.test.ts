// What the reference RMS sends Tableside (DESIGN 8.3), received by a real HTTPS server started in
// the test: update notices on every booking change, the availability feed in shards, seated events;
// failed deliveries retried with the same webhook-id, never crashing the simulator.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { selfSignedLocalhost } from '../../pos-simulator/src/tls.ts';
import { eventually } from '../helpers/eventually.ts';
import { DAY, NOW, at, bookingBody, harness, smallVenue, type RmsHarness } from './helpers.ts';

interface Received { path: string; headers: Record<string, string | string[] | undefined>; body: any }

/** A Tableside stand-in: records every POST; answers `failFirst` requests with 500, then 202. */
async function receiver() {
  const tls = await selfSignedLocalhost();
  const received: Received[] = [];
  const state = { failFirst: 0 };
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    let text = '';
    req.on('data', (c) => { text += c; });
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
      const fail = state.failFirst > 0;
      if (fail) state.failFirst -= 1;
      res.writeHead(fail ? 500 : 202, { 'content-type': 'application/json' }).end(fail ? '{"error":"down"}' : '{"status":"accepted"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, ca: tls.cert, received, state,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

let h: RmsHarness;
let tableside: Awaited<ReturnType<typeof receiver>>;
beforeEach(async () => {
  tableside = await receiver();
  h = await harness({ tableside: { tablesideUrl: tableside.url, apiKey: 'ts-key', ca: tableside.ca }, outbound: { retryDelaysMs: [20, 40] } });
  await h.sim.control.setClock({ set: NOW, frozen: true });
  await h.sim.control.createVenue(smallVenue('v1', { currency: 'GBP', paymentDefinition: { requireCreditCard: false, deposit: { type: 'fixed_price', amount: 12.5 } } }));
});
afterEach(async () => {
  await h.close();
  await tableside.close();
});

const notices = () => tableside.received.filter((r) => r.path === '/v1/rms/notifications');

describe('update notices (8.3a)', () => {
  it('a notice {entity, entityId, action} with the Bearer key and a unique webhook-id is sent when a booking is created, changed, paid, handled by staff and cancelled', async () => {
    const { body: { id } } = await h.book(bookingBody({ paymentToken: 'tok_visa' }));
    await h.call('PUT', `/booking/${id}`, { body: { partySize: 1 } });
    await h.sim.control.seat(id);
    const second = (await h.book(bookingBody({ date: at('19:00') }))).body.id;
    await h.sim.control.markDepositPaid(second);
    await h.call('PUT', `/booking/${second}/cancel`);
    const got = await eventually(() => {
      expect(notices()).toHaveLength(6);
      return notices();
    });
    const ids = got.map((n) => n.headers['webhook-id']);
    expect(new Set(ids).size).toBe(6);
    for (const n of got) {
      expect(n.headers.authorization).toBe('Bearer ts-key');
      expect(n.headers['content-type']).toBe('application/json');
      expect(n.headers['webhook-id']).toMatch(/^msg_/);
    }
    const bodies = got.map((n) => n.body).sort((a, b) => a.entityId.localeCompare(b.entityId) || a.action.localeCompare(b.action));
    expect(bodies.filter((b) => b.entityId === id)).toEqual([{ entity: 'booking', entityId: id, action: 'update' }, { entity: 'booking', entityId: id, action: 'update' }, { entity: 'booking', entityId: id, action: 'update' }]);
    expect(bodies.filter((b) => b.entityId === second).map((b) => b.action).sort()).toEqual(['cancel', 'update', 'update']);
    // A replayed create (same key) changes nothing and sends nothing.
    const log = await h.sim.control.outbound();
    expect(log.every((e) => e.state === 'delivered')).toBe(true);
  });

  it('a notice Tableside refuses is retried with the same webhook-id until accepted; one never accepted is given up, and the simulator keeps serving', async () => {
    tableside.state.failFirst = 2;
    const { body: { id } } = await h.book(bookingBody());
    const tries = await eventually(() => {
      expect(notices()).toHaveLength(3);
      return notices();
    });
    expect(new Set(tries.map((t) => t.headers['webhook-id'])).size).toBe(1);
    expect(tries.every((t) => t.body.entityId === id)).toBe(true);
    const [entry] = await h.sim.control.outbound();
    expect(entry).toMatchObject({ kind: 'notice', state: 'delivered', attempts: [{ status: 500 }, { status: 500 }, { status: 202 }] });

    await tableside.close();
    await h.sim.control.clearOutbound();
    await h.call('PUT', `/booking/${id}/cancel`);
    const failed = await eventually(async () => {
      const [e] = await h.sim.control.outbound();
      expect(e.state).toBe('failed');
      return e;
    });
    expect(failed.attempts).toHaveLength(3);
    expect(failed.attempts.every((a) => a.error !== undefined)).toBe(true);
    expect((await h.call('GET', '/healthcheck')).status).toBe(200);
  });

  it('the control API sends a notice on request (to replay or reorder them), with the action from the booking status', async () => {
    const { body: { id } } = await h.book(bookingBody());
    await eventually(() => expect(notices()).toHaveLength(1));
    await h.call('PUT', `/booking/${id}/cancel`);
    await eventually(() => expect(notices()).toHaveLength(2));
    const sent = await h.sim.control.notify(id);
    expect(sent.body).toEqual({ entity: 'booking', entityId: id, action: 'cancel' });
    await h.sim.control.notify(id, 'update');
    await eventually(() => expect(notices().slice(2).map((n) => n.body.action)).toEqual(['cancel', 'update']));
    expect(notices()[2].headers['webhook-id']).toBe(sent.webhookId);
  });
});

describe('availability feed (8.3b)', () => {
  it('pushes venues x days x party sizes as 8.2 records in shards numbered from 0 under one nonce, in the order asked', async () => {
    await h.sim.control.createVenue(smallVenue('v2', { timezone: 'America/New_York', currency: 'USD' }));
    await h.book(bookingBody());
    const result = await h.sim.control.pushFeed({ startDate: DAY, days: 3, partySizes: [1, 2, 4], shardSize: 4, order: 'desc' });
    expect(result).toMatchObject({ totalShards: 5, records: 2 * 3 * 3 });
    expect(result.shards.map((s) => s.shardNumber)).toEqual([4, 3, 2, 1, 0]);
    expect(result.shards.every((s) => s.status === 202)).toBe(true);
    const shards = tableside.received.filter((r) => r.path === '/v1/rms/availability-feed');
    expect(shards).toHaveLength(5);
    for (const s of shards) {
      expect(s.headers.authorization).toBe('Bearer ts-key');
      expect(s.body.metadata).toEqual({ total_shards: 5, shard_number: expect.any(Number), nonce: result.nonce, date: '2025-06-10T09:00:00.000Z' });
    }
    const records = shards.sort((a, b) => a.body.metadata.shard_number - b.body.metadata.shard_number).flatMap((s) => s.body.data);
    expect(records).toHaveLength(18);
    expect(records[0]).toEqual({ venueId: 'v1', date: DAY, partySize: 1, duration: 5400, slotData: expect.any(Array) });
    const v1Day1Two = records.find((r) => r.venueId === 'v1' && r.date === DAY && r.partySize === 2);
    expect(v1Day1Two.slotData[0]).toEqual({ startSec: Date.parse('2025-06-11T17:00:00Z') / 1000, totalSpots: 3, openSpots: 2, deposit: true, depositAmount: 1250, requiresCc: false });
    const ny = records.find((r) => r.venueId === 'v2' && r.date === DAY && r.partySize === 4);
    expect(new Date(ny.slotData[0].startSec * 1000).toISOString()).toBe('2025-06-11T22:00:00.000Z');
  });

  it('can send only some shards (an incomplete nonce); without a target the push is refused', async () => {
    const partial = await h.sim.control.pushFeed({ startDate: DAY, days: 2, partySizes: [2], shardSize: 1, onlyShards: [1] });
    expect(partial).toMatchObject({ totalShards: 2, shards: [{ shardNumber: 1, records: 1 }] });
    await h.sim.control.clearTableside();
    await expect(h.sim.control.pushFeed({ days: 1 })).rejects.toMatchObject({ statusCode: 409 });
  });
});

describe('seated events (8.3c)', () => {
  it('seating sends {bookingId, venueId, status:"seated", partySize, tables (POS ids), date, prepayment (decimal), guest…} to /v1/rms/pos/reservations', async () => {
    const { body: { id } } = await h.book(bookingBody({ paymentToken: 'tok_visa' }));
    await h.sim.control.seat(id, { items: [{ sku: 'BURGER', quantity: 2 }] });
    const seated = await eventually(() => {
      const s = tableside.received.find((r) => r.path === '/v1/rms/pos/reservations');
      expect(s).toBeDefined();
      return s!;
    });
    expect(seated.headers.authorization).toBe('Bearer ts-key');
    expect(seated.body).toEqual({
      bookingId: id, venueId: 'v1', status: 'seated', partySize: 2, tables: ['pos-A'], date: '2025-06-11T18:00:00.000+01:00',
      prepayment: 12.5, guestName: 'Ada Lovelace', guestEmail: 'ada@example.com', guestTelephone: '+44 20 7946 0001',
      items: [{ sku: 'BURGER', quantity: 2 }],
    });
  });

  it('POS table ids given by staff are sent as given; a table with no POS id and none given sends no seated event; no deposit means no prepayment', async () => {
    await h.sim.control.configureVenue('v1', { paymentDefinition: { deposit: null } });
    const four = (await h.book(bookingBody({ partySize: 4 }))).body.id; // table C has no POS id
    const two = (await h.book(bookingBody({ partySize: 2, date: at('19:00') }))).body.id;
    await h.sim.control.seat(four);
    await h.sim.control.seat(two, { posTableIds: ['301', '302'] });
    const seated = await eventually(() => {
      const s = tableside.received.filter((r) => r.path === '/v1/rms/pos/reservations');
      expect(s).toHaveLength(1);
      return s[0];
    });
    expect(seated.body).toMatchObject({ bookingId: two, tables: ['301', '302'] });
    expect(seated.body).not.toHaveProperty('prepayment');
    expect((await h.sim.control.outbound()).filter((e) => e.kind === 'seated')).toHaveLength(1);
  });
});
