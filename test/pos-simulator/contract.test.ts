// The simulator answers the partner contract of spec 4.6 as a conforming POS would.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, smallVenue, type SimHarness } from './sim-helpers.ts';

let h: SimHarness;
beforeEach(async () => {
  h = await harness();
  await smallVenue(h);
});
afterEach(() => h.close());

const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

describe('tables', () => {
  it('[POS-02] GET /venue/{id}/tables answers an array of {id: string, name: string}', async () => {
    const res = await h.call('GET', '/venue/v1/tables');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ id: 'T1', name: 'One' }, { id: 'T2', name: 'Two' }, { id: 'T3', name: 'Three' }, { id: 'T4', name: 'Four' }]);
    for (const t of res.body) {
      expect(typeof t.id).toBe('string');
      expect(typeof t.name).toBe('string');
    }
  });

  it('[POS-03] table ids are unique within the venue: a duplicate id is refused and the list stays unique', async () => {
    await expect(h.sim.control.setTables('v1', [{ id: 'X', name: 'a' }, { id: 'X', name: 'b' }])).rejects.toMatchObject({ statusCode: 400 });
    await h.sim.control.putTable('v1', 'T1', 'Renamed');
    await h.sim.control.putTable('v1', 'T9', 'New');
    const ids = (await h.call('GET', '/venue/v1/tables')).body.map((t: { id: string }) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(['T1', 'T2', 'T3', 'T4', 'T9']);
  });

  it('(spec 4.6) an unknown venue answers 404 JSON', async () => {
    const res = await h.call('GET', '/venue/nope/tables');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(expect.any(String));
  });
});

describe('auth (spec 4.6, 5.3)', () => {
  it('every contract route refuses a missing or wrong Bearer key with 401 JSON and no data', async () => {
    const routes: Array<['GET' | 'POST', string, unknown?]> = [
      ['GET', '/venue/v1/tables'],
      ['GET', '/venue/v1/orders'],
      ['GET', '/venue/v1/orders/1001'],
      ['POST', '/venue/v1/orders', { tables: ['T1'] }],
      ['POST', '/venue/v1/orders/1001/payments', { paymentId: 'p', type: 'full', amount: 1 }],
      ['GET', '/venue/v1/orders/1001/payments/p'],
    ];
    for (const [method, path, body] of routes) {
      for (const auth of [false, 'wrong-key']) {
        const res = await h.call(method, path, body, auth);
        expect(res.status, `${method} ${path} auth=${auth}`).toBe(401);
        expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
      }
    }
    // Nothing was created by the refused POST.
    expect((await h.call('GET', '/venue/v1/orders')).body).toEqual([]);
  });
});

describe('create order', () => {
  it('[POS-04] POST /venue/{id}/orders answers 201 {id: string, checkNumber: string}, the check of the new order', async () => {
    const res = await h.call('POST', '/venue/v1/orders', { id: 'svc-1', tables: ['T1'], guestName: 'Ada', partySize: 3, prepayment: 0 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), checkNumber: expect.any(String) });
    const order = (await h.call('GET', `/venue/v1/orders/${res.body.id}`)).body;
    expect(order.checks.map((c: { checkNumber: string }) => c.checkNumber)).toEqual([res.body.checkNumber]);
    expect(order).toMatchObject({ status: 'open', tables: ['T1'], guestName: 'Ada', partySize: 3, reservationId: 'svc-1', source: 'partner' });
  });

  it('[POS-12] a create without date is seated at the current (simulator) time; with date, at that venue-local time', async () => {
    await h.sim.control.setClock({ set: '2025-06-10T18:00:00Z', frozen: true });
    const now = (await h.call('POST', '/venue/v1/orders', { tables: ['T1'] })).body;
    const dated = (await h.call('POST', '/venue/v1/orders', { tables: ['T2'], date: '2025-03-01 19:30:00' })).body;
    const seatedNow = (await h.call('GET', `/venue/v1/orders/${now.id}`)).body.seatedAt;
    const seatedDated = (await h.call('GET', `/venue/v1/orders/${dated.id}`)).body.seatedAt;
    expect(Date.parse(seatedNow)).toBe(Date.parse('2025-06-10T18:00:00Z'));
    // Europe/Paris is UTC+1 on 1 March.
    expect(seatedDated).toBe('2025-03-01T19:30:00.000+01:00');
  });

  it('[POS-13] a venue without items support accepts a create carrying items, ignores them, and creates the order', async () => {
    await h.sim.control.putVenue('v1', { itemsSupported: false });
    const res = await h.call('POST', '/venue/v1/orders', { tables: ['T1'], items: [{ sku: 'A', quantity: 1 }, { sku: 'NOT-ON-MENU', quantity: 2 }] });
    expect(res.status).toBe(201);
    const order = (await h.call('GET', `/venue/v1/orders/${res.body.id}`)).body;
    expect(order.status).toBe('open');
    expect(order.checks.flatMap((c: { items: unknown[] }) => c.items)).toEqual([]);
  });

  it('[POS-14] with items support each resolved item is on the order: GET shows it among the check items', async () => {
    const res = await h.call('POST', '/venue/v1/orders', { tables: ['T1'], items: [{ sku: 'A', quantity: 2 }, { sku: 'B', quantity: 1, notes: 'no ice' }] });
    expect(res.status).toBe(201);
    const [check] = (await h.call('GET', `/venue/v1/orders/${res.body.id}`)).body.checks;
    expect(check.items).toEqual([
      { id: expect.any(Number), name: 'Item A', price: 2.5, quantity: 2, sku: 'A' },
      { id: expect.any(Number), name: 'Item B', price: 10, quantity: 1, sku: 'B', notes: 'no ice' },
    ]);
    expect(check.totalAmount).toBe(15);
  });

  it('[POS-15] unknown skus -> 422 {error, unknownSkus} listing exactly the unknown ones, and no order is created', async () => {
    const res = await h.call('POST', '/venue/v1/orders', {
      tables: ['T1'],
      items: [{ sku: 'A', quantity: 1 }, { sku: 'X1', quantity: 1 }, { sku: 'X2', quantity: 3 }, { sku: 'X1', quantity: 1 }],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.any(String), unknownSkus: ['X1', 'X2'] });
    expect((await h.call('GET', '/venue/v1/orders')).body).toEqual([]);
  });

  it('(spec 4.6) malformed create bodies answer 400 JSON: no tables, quantity 0, quantity "2", bad date, too many decimals', async () => {
    const bodies = [
      { guestName: 'x' },
      { tables: [] },
      { tables: ['T1'], items: [{ sku: 'A', quantity: 0 }] },
      { tables: ['T1'], items: [{ sku: 'A', quantity: '2' }] },
      { tables: ['T1'], date: '2025-03-01T19:30:00' },
      { tables: ['T1'], date: '2025-02-30 19:30:00' },
      { tables: ['T1'], prepayment: 1.005 },
    ];
    for (const body of bodies) {
      const res = await h.call('POST', '/venue/v1/orders', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
  });
});

describe('order shape (spec 2.7)', () => {
  async function splitWalkIn() {
    return h.sim.control.openOrder('v1', {
      tables: ['T3', 'T4'], partySize: 5, guestName: 'Walk-in',
      checks: [
        { items: [{ sku: 'A', quantity: 2 }, { name: 'Off-menu soup', price: 6.4, quantity: 1 }], tax: 1.2, tip: 0.5 },
        { items: [{ sku: 'B', quantity: 1, discount: 1 }], discount: 0.5 },
      ],
    });
  }

  it('[POS-20] GET /venue/{id}/orders/{orderId} answers that order with all its checks, the same as its list item', async () => {
    const created = await splitWalkIn();
    const one = await h.call('GET', `/venue/v1/orders/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.body.checks).toHaveLength(2);
    const listed = (await h.call('GET', '/venue/v1/orders')).body.find((o: { id: string }) => o.id === created.id);
    expect(one.body).toEqual(listed);
    expect((await h.call('GET', '/venue/v1/orders/999999')).status).toBe(404);
  });

  it('[POS-21] an order has id, status, tables, partySize, guestName, checks, createdAt, updatedAt, closedAt with the spec types', async () => {
    const open = await splitWalkIn();
    const toClose = await h.sim.control.openOrder('v1', { tables: ['T1'], checks: [{ items: [{ sku: 'A', quantity: 1 }] }] });
    await h.sim.control.closeOrder('v1', toClose.id, { paymentMethod: 'cash' });
    for (const id of [open.id, toClose.id]) {
      const o = (await h.call('GET', `/venue/v1/orders/${id}`)).body;
      expect(typeof o.id).toBe('string');
      expect(['open', 'closed']).toContain(o.status);
      expect(Array.isArray(o.tables) && o.tables.every((t: unknown) => typeof t === 'string')).toBe(true);
      expect(Number.isInteger(o.partySize)).toBe(true);
      expect(typeof o.guestName).toBe('string');
      expect(Array.isArray(o.checks)).toBe(true);
      expect(o.createdAt).toMatch(ISO_OFFSET);
      expect(o.updatedAt).toMatch(ISO_OFFSET);
      if (o.status === 'open') expect(o.closedAt).toBeNull();
      else expect(o.closedAt).toMatch(ISO_OFFSET);
    }
  });

  it('[POS-22] a check has checkNumber, status, totalAmount, tax, tip, discount, paymentMethod and items with the spec types', async () => {
    const order = await splitWalkIn();
    const checks = (await h.call('GET', `/venue/v1/orders/${order.id}`)).body.checks;
    const numbers = checks.map((c: { checkNumber: string }) => c.checkNumber);
    expect(new Set(numbers).size).toBe(2);
    for (const c of checks) {
      expect(typeof c.checkNumber).toBe('string');
      expect(typeof c.status).toBe('string');
      for (const k of ['totalAmount', 'tax', 'tip', 'discount']) expect(typeof c[k]).toBe('number');
      expect(typeof c.paymentMethod).toBe('string');
      expect(Array.isArray(c.items)).toBe(true);
    }
    // Line discounts are part of the check's discount.
    expect(checks[1]).toMatchObject({ totalAmount: 10, discount: 1.5 });
  });

  it('[POS-23] a check item has id (integer), name (string), price (number), quantity (integer)', async () => {
    const order = await splitWalkIn();
    const items = (await h.call('GET', `/venue/v1/orders/${order.id}`)).body.checks.flatMap((c: { items: unknown[] }) => c.items);
    expect(items).toHaveLength(3);
    for (const i of items) {
      expect(Number.isInteger(i.id)).toBe(true);
      expect(typeof i.name).toBe('string');
      expect(typeof i.price).toBe('number');
      expect(Number.isInteger(i.quantity)).toBe(true);
    }
    expect(new Set(items.map((i: { id: number }) => i.id)).size).toBe(3);
  });

  it('[POS-24] a check totalAmount equals Σ price × quantity, exact to the cent (0.10 × 3 is 0.3, not 0.30000000000000004)', async () => {
    const res = await h.call('POST', '/venue/v1/orders', { tables: ['T1'], items: [{ sku: 'C', quantity: 1 }, { sku: 'C', quantity: 1 }, { sku: 'C', quantity: 1 }] });
    const [check] = (await h.call('GET', `/venue/v1/orders/${res.body.id}`)).body.checks;
    expect(check.totalAmount).toBe(0.3);

    // Any prices and quantities: the total is the exact decimal sum.
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ cents: fc.integer({ min: 0, max: 99_999 }), quantity: fc.integer({ min: 1, max: 12 }) }), { minLength: 1, maxLength: 6 }),
        async (lines) => {
          const order = await h.sim.control.openOrder('v1', {
            tables: ['T2'],
            checks: [{ items: lines.map((l, i) => ({ name: `line ${i}`, price: l.cents / 100, quantity: l.quantity })) }],
          });
          const expectedCents = lines.reduce((s, l) => s + l.cents * l.quantity, 0);
          const got = (await h.call('GET', `/venue/v1/orders/${order.id}`)).body.checks[0].totalAmount;
          expect(got).toBe(expectedCents / 100);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('[POS-25] the settled amount of a check is totalAmount + tax + tip − discount: paying exactly that closes the order, a cent more is refused', async () => {
    const check = { items: [{ sku: 'B', quantity: 2, discount: 1 }], tax: 2, tip: 1.5, discount: 0.5 };
    const a = await h.sim.control.openOrder('v1', { tables: ['T1'], checks: [check] });
    const shown = (await h.call('GET', `/venue/v1/orders/${a.id}`)).body.checks[0];
    expect(shown).toMatchObject({ totalAmount: 20, tax: 2, tip: 1.5, discount: 1.5 });
    const settled = shown.totalAmount + shown.tax + shown.tip - shown.discount; // 22, exact in binary

    const b = await h.sim.control.openOrder('v1', { tables: ['T2'], checks: [check] });
    const over = await h.call('POST', `/venue/v1/orders/${b.id}/payments`, { paymentId: 'over', type: 'partial', amount: 22.01, tip: 0 });
    expect(over.body).toEqual({ status: 'failed', failureCode: 'pos_overpaid' });

    const exact = await h.call('POST', `/venue/v1/orders/${a.id}/payments`, { paymentId: 'exact', type: 'partial', amount: settled, tip: 0 });
    expect(exact.body).toEqual({ status: 'confirmed' });
    expect((await h.call('GET', `/venue/v1/orders/${a.id}`)).body.status).toBe('closed');
  });
});
