// The simulator's control API: what staff do on the POS, and the test levers (DESIGN 6.4).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient, ControlError, DEMO_VENUE_IDS } from '../../pos-simulator/src/index.ts';
import { harness, smallVenue, type SimHarness } from './sim-helpers.ts';

let h: SimHarness;
beforeEach(async () => { h = await harness(); });
afterEach(() => h.close());

describe('venues and staff actions', () => {
  it('(DESIGN 6.4) the control API needs the Bearer key', async () => {
    const stranger = new ControlClient(h.sim.baseUrl, 'wrong', h.sim.ca);
    await expect(stranger.listVenues()).rejects.toMatchObject({ statusCode: 401 });
    await stranger.close();
  });

  it('(DESIGN 6.4) a venue can be created without an id, updated, and its tables renamed and removed', async () => {
    const v = await h.sim.control.createVenue({ name: 'Anon', currency: 'jpy', timezone: 'Asia/Tokyo' });
    expect(v).toMatchObject({ id: expect.any(String), currency: 'JPY', itemsSupported: true, behaviour: { payment: 'immediate' } });
    await expect(h.sim.control.createVenue({ id: v.id })).rejects.toBeInstanceOf(ControlError);
    await expect(h.sim.control.putVenue(v.id, { timezone: 'Mars/Base' })).rejects.toMatchObject({ statusCode: 400 });
    await h.sim.control.setTables(v.id, [{ id: '1', name: 'A' }, { id: '2', name: 'B' }]);
    await h.sim.control.putTable(v.id, '1', 'A (window)');
    await h.sim.control.removeTable(v.id, '2');
    expect((await h.call('GET', `/venue/${v.id}/tables`)).body).toEqual([{ id: '1', name: 'A (window)' }]);
    // JPY has no minor unit: 1.5 yen is not a price.
    await expect(h.sim.control.setMenu(v.id, [{ sku: 'S', name: 'Sushi', price: 1.5 }])).rejects.toMatchObject({ statusCode: 400 });
    expect(await h.sim.control.setMenu(v.id, [{ sku: 'S', name: 'Sushi', price: 1200 }])).toEqual([{ sku: 'S', name: 'Sushi', price: 1200 }]);
  });

  it('(DESIGN 6.4) staff open a split walk-in, add items, void one check, and close the rest with a payment method', async () => {
    await smallVenue(h);
    const o = await h.sim.control.openOrder('v1', {
      tables: ['T1'], partySize: 2, guestName: 'Walk-in',
      checks: [{ checkNumber: '7', items: [{ sku: 'A', quantity: 1 }] }, { checkNumber: '8' }],
    });
    expect(o.source).toBe('pos');
    await expect(h.sim.control.addItems('v1', o.id, { checkNumber: '8', items: [{ sku: 'NOPE', quantity: 1 }] }))
      .rejects.toMatchObject({ statusCode: 422, body: { unknownSkus: ['NOPE'] } });
    await h.sim.control.addItems('v1', o.id, { checkNumber: '8', items: [{ sku: 'B', quantity: 3 }] });
    await h.sim.control.voidOrder('v1', o.id, { checkNumber: '7' });
    let read = (await h.call('GET', `/venue/v1/orders/${o.id}`)).body;
    expect(read.status).toBe('open');
    expect(read.checks.map((c: { status: string }) => c.status)).toEqual(['void', 'open']);
    await h.sim.control.closeOrder('v1', o.id, { paymentMethod: 'amex' });
    read = (await h.call('GET', `/venue/v1/orders/${o.id}`)).body;
    expect(read).toMatchObject({ status: 'closed', checks: [{ status: 'void', paymentMethod: '' }, { status: 'closed', paymentMethod: 'amex', totalAmount: 30 }] });
    await expect(h.sim.control.closeOrder('v1', o.id)).rejects.toMatchObject({ statusCode: 409 });
  });

  it('(DESIGN 6.4) two orders of a venue may share a checkNumber: it is unique within an order only', async () => {
    await smallVenue(h);
    await h.sim.control.openOrder('v1', { tables: ['T1'], checks: [{ checkNumber: '1' }] });
    await h.sim.control.openOrder('v1', { tables: ['T2'], checks: [{ checkNumber: '1' }] });
    await expect(h.sim.control.openOrder('v1', { tables: ['T3'], checks: [{ checkNumber: '2' }, { checkNumber: '2' }] })).rejects.toMatchObject({ statusCode: 400 });
    const numbers = (await h.call('GET', '/venue/v1/orders')).body.map((o: { checks: Array<{ checkNumber: string }> }) => o.checks[0].checkNumber);
    expect(numbers).toEqual(['1', '1']);
  });
});

describe('test levers', () => {
  it('(DESIGN 6.4) the request log shows what was sent to a venue, authorization header included, and can be cleared', async () => {
    await smallVenue(h);
    await h.call('POST', '/venue/v1/orders', { tables: ['T1'], prepayment: 0 });
    await h.call('GET', '/venue/v1/orders?status=open', undefined, 'bad-key');
    const log = await h.sim.control.requests('v1');
    expect(log).toEqual([
      expect.objectContaining({ method: 'POST', path: '/venue/v1/orders', body: { tables: ['T1'], prepayment: 0 }, status: 201, receivedAt: expect.any(String) }),
      expect.objectContaining({ method: 'GET', path: '/venue/v1/orders', query: { status: 'open' }, status: 401 }),
    ]);
    expect(log[0].headers.authorization).toBe(`Bearer ${h.sim.apiKey}`);
    expect(log[0].headers['content-type']).toBe('application/json');
    expect(log[1].headers.authorization).toBe('Bearer bad-key');
    await h.sim.control.clearRequests('v1');
    expect(await h.sim.control.requests('v1')).toEqual([]);
  });

  it('(DESIGN 6.4) the clock can be set, frozen and advanced, and timestamps follow it', async () => {
    await smallVenue(h);
    expect(await h.sim.control.setClock({ set: '2030-01-01T00:00:00Z', frozen: true })).toEqual({ now: '2030-01-01T00:00:00.000Z', frozen: true });
    expect(await h.sim.control.advanceClock(90_000)).toEqual({ now: '2030-01-01T00:01:30.000Z', frozen: true });
    const o = await h.sim.control.openOrder('v1', { tables: ['T1'] });
    expect(o.createdAt).toBe('2030-01-01T01:01:30.000+01:00');
  });

  it('(DESIGN 6.4) broken modes are selectable and cleared through the control API; reset forgets everything but the key', async () => {
    await smallVenue(h);
    await expect(h.sim.control.setBroken('nonsense' as never)).rejects.toMatchObject({ statusCode: 400 });
    await h.sim.control.setBroken('tables-numeric-ids');
    await h.sim.control.setTables('v1', [{ id: '12', name: 'x' }]);
    expect((await h.call('GET', '/venue/v1/tables')).body).toEqual([{ id: 12, name: 'x' }]);
    await h.sim.control.setBroken(null);
    expect((await h.call('GET', '/venue/v1/tables')).body).toEqual([{ id: '12', name: 'x' }]);
    await h.sim.control.reset();
    expect(await h.sim.control.listVenues()).toEqual([]);
    expect((await h.call('GET', '/venue/v1/tables')).status).toBe(404);
  });

  it('(DESIGN 6.4) seed creates two venues with tables, a menu, open orders (split, merged) and closed orders', async () => {
    const { seedDemo } = await import('../../pos-simulator/src/index.ts');
    await seedDemo(h.sim.control);
    await seedDemo(h.sim.control); // idempotent
    const venues = await h.sim.control.listVenues();
    expect(venues.map((v) => v.id)).toEqual([...DEMO_VENUE_IDS]);
    expect(venues[1].behaviour).toEqual({ payment: 'deferred', delayMs: 2000, outcome: 'confirmed' });
    for (const v of venues) {
      expect(v.tables.length).toBeGreaterThanOrEqual(6);
      expect(v.menu.length).toBeGreaterThanOrEqual(8);
      const orders = (await h.call('GET', `/venue/${v.id}/orders`)).body;
      const open = orders.filter((o: { status: string }) => o.status === 'open');
      expect(open).toHaveLength(2);
      expect(open.some((o: { checks: unknown[] }) => o.checks.length === 2)).toBe(true);
      expect(open.some((o: { tables: unknown[] }) => o.tables.length === 2)).toBe(true);
      expect(orders.filter((o: { status: string }) => o.status === 'closed')).toHaveLength(2);
    }
  });
});
