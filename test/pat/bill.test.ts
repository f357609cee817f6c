import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PosClient, type CreateOrderInput } from '../../src/pos/pos-client.ts';
import { startTestApp } from '../helpers/app.ts';
import { testCertFile, testTls } from '../helpers/http.ts';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';

// GET /v1/pat/venue/{venueId}/table/{tableId}/bill (spec 2.10, 4.7; DESIGN 6.2, 6.3, 9) over HTTPS,
// against the reference POS simulator (and, for POS item ids the simulator never omits, a small fake
// POS). Each test gets its own simulator location, so orders never collide.

let w: PatWorld;

beforeAll(async () => {
  // Tables refresh from the POS on every read (TTL 0), so a rename on the POS shows at once (BILL-03).
  // The simulator runs in this process next to PGlite, which blocks the event loop while it works: on
  // a loaded machine a POS answer can take over the helper's 2 s, so these tests allow the default 10 s.
  w = await startPatWorld({ autoClose: false, env: { POS_TABLES_TTL_S: '0', POS_TIMEOUT_MS: '10000' } });
});
afterAll(async () => {
  await w?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOTAL_KEYS = ['discount', 'paid', 'prepayment', 'subtotal', 'tax', 'tip', 'total', 'totalDue'];
const CHECK_TOTAL_KEYS = ['discount', 'subtotal', 'tax', 'tip', 'total'];
const ITEM_KEYS = ['id', 'name', 'price', 'quantity', 'total', 'unitPrice'];

let refs = 0;
const ref = (label = 'bill') => `${label}-${process.pid}-${++refs}`;

/** The service's POS client on the simulator, to create orders through the contract (spec 4.6). */
async function createThroughContract(posVenueId: string, input: CreateOrderInput): Promise<string> {
  const client = new PosClient({ code: 'sim', baseUrl: w.sim.baseUrl, apiKey: w.sim.apiKey, ca: w.sim.ca }, { timeoutMs: 5000 });
  try {
    const created = await client.createOrder(posVenueId, input);
    if (!created.ok) throw new Error(`create order refused: ${created.error}`);
    return created.id;
  } finally {
    await client.close();
  }
}

/** Every key path of a JSON value, arrays collapsed (`checks[].items[].id`), to compare shapes. */
function shapeOf(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((v) => shapeOf(v, `${path}[]`)))].sort();
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [`${path}.${k}`, ...shapeOf(v, `${path}.${k}`)]).sort();
  }
  return [];
}

const storedOrder = async (orderId: string) =>
  (await sql<{ status: string; party_size: number | null; prepayment_minor: number; pos_tables: string[] }>`
    SELECT status, party_size, prepayment_minor, pos_tables FROM orders WHERE id = ${orderId}`.execute(w.app.db.kysely)).rows[0];
const storedChecks = async (orderId: string) =>
  (await sql<{ check_number: string; status: string; subtotal_minor: number; tax_minor: number; items: Array<{ id: string | null; name: string; quantity: number }> }>`
    SELECT check_number, status, subtotal_minor, tax_minor, items FROM order_checks WHERE order_id = ${orderId} ORDER BY check_number`.execute(w.app.db.kysely)).rows;

describe('shape of the bill', () => {
  it('[BILL-01] [BILL-02] [BILL-03] [BILL-07] [BILL-17] [BILL-18] [BILL-20] an open order gives 200 with the bill fields, status open, the requested venue and table', async () => {
    const v = await w.connectVenue();
    await w.openOrder(v.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }, { sku: 'ESP', quantity: 1, notes: 'no sugar' }], tax: 3.15 }] });
    const res = await w.bill(v, '2');
    expect(res.status).toBe(200);
    const bill = res.body;
    expect(Object.keys(bill).sort()).toEqual(['checks', 'orderId', 'partySize', 'status', 'tableId', 'tableName', 'totals', 'venueId']);
    expect(bill.orderId).toMatch(UUID);
    expect(bill).toMatchObject({ venueId: v.venueId, tableId: v.tableIds['2'], tableName: 'Table 2', status: 'open', partySize: null });
    expect(Object.keys(bill.totals).sort()).toEqual(TOTAL_KEYS);
    for (const key of TOTAL_KEYS) expect(typeof bill.totals[key]).toBe('number');
    expect(bill.totals).toEqual({ subtotal: 31.5, tax: 3.15, tip: 0, discount: 0, total: 34.65, prepayment: 0, paid: 0, totalDue: 34.65 });
    expect(bill.checks).toHaveLength(1);
    const [check] = bill.checks;
    expect(Object.keys(check).sort()).toEqual(['checkNumber', 'items', 'paymentMethod', 'status', 'totals']);
    expect(typeof check.checkNumber).toBe('string');
    expect(check.status).toBe('open');
    // The simulator reports "" until the check is paid: that is no payment method, so null.
    expect(check.paymentMethod).toBeNull();
    expect(Object.keys(check.totals).sort()).toEqual(CHECK_TOTAL_KEYS);
    expect(check.totals).toEqual({ subtotal: 31.5, tax: 3.15, tip: 0, discount: 0, total: 34.65 });
    // The POS sends sku and notes with its items; the bill item has exactly six fields.
    for (const item of check.items) {
      expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
      expect(typeof item.name).toBe('string');
      expect(Number.isInteger(item.quantity)).toBe(true);
      expect(item.price).toBe(item.unitPrice);
    }
    expect(check.items).toEqual([
      { id: expect.any(String), name: 'Classic burger', quantity: 2, unitPrice: 14.5, price: 14.5, total: 29 },
      { id: expect.any(String), name: 'Espresso', quantity: 1, unitPrice: 2.5, price: 2.5, total: 2.5 },
    ]);
  });

  it('[BILL-03] tableName is the table’s current name: a table renamed on the POS keeps its id and shows the new name', async () => {
    const v = await w.connectVenue();
    await w.openOrder(v.posVenueId, { tables: ['3'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
    expect((await w.bill(v, '3')).body.tableName).toBe('Table 3');
    await w.sim.control.putTable(v.posVenueId, '3', 'Window seat');
    const res = await w.bill(v, '3');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tableId: v.tableIds['3'], tableName: 'Window seat' });
  });

  it('[BILL-19] [DES-131] a simulator item id (an integer on the POS) is its decimal string', async () => {
    const v = await w.connectVenue();
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'WINE', quantity: 2 }, { name: 'Corkage', price: 5, quantity: 1 }] }] });
    const posIds = pos.checks[0].items.map((i) => i.id);
    expect(posIds.every((id) => Number.isInteger(id))).toBe(true);
    const bill = (await w.bill(v, '1')).body;
    expect(bill.checks[0].items.map((i: { id: unknown }) => i.id)).toEqual(posIds.map((id) => String(id)));
  });

  it('[BILL-28] the bill is its own shape: no externalId, openAt, closedAt or totalAmount anywhere; checks carry a totals object', async () => {
    const v = await w.connectVenue();
    await w.openOrder(v.posVenueId, { tables: ['1'], guestName: 'Ada', checks: [{ items: [{ sku: 'CAKE', quantity: 1 }] }, { items: [{ sku: 'ESP', quantity: 2 }] }] });
    const bill = (await w.bill(v, '1')).body;
    const keys = shapeOf(bill).map((p) => p.split('.').pop());
    for (const banned of ['externalId', 'openAt', 'closedAt', 'voidedAt', 'totalAmount', 'createdAt', 'updatedAt', 'tables', 'guestName', 'payments', 'source', 'reservationId', 'sku']) {
      expect(keys).not.toContain(banned);
    }
    for (const check of bill.checks) expect(Object.keys(check.totals).sort()).toEqual(CHECK_TOTAL_KEYS);
  });
});

describe('party size', () => {
  it('[BILL-04] a walk-in opened on the POS has partySize null, even when the POS reports 4', async () => {
    const v = await w.connectVenue();
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], partySize: 4, checks: [{ items: [{ sku: 'ESP', quantity: 4 }] }] });
    expect(pos.partySize).toBe(4);
    const res = await w.bill(v, '1');
    expect(res.status).toBe(200);
    expect(res.body.partySize).toBeNull();
    expect((await storedOrder(res.body.orderId)).party_size).toBeNull();
  });

  it('[BILL-05] an order created through the contract’s create-order (a seated reservation) shows its party size', async () => {
    const v = await w.connectVenue();
    await createThroughContract(v.posVenueId, { id: 'booking-7f3a', tables: ['1'], partySize: 6, guestName: 'Grace', prepayment: 0, items: [{ sku: 'WINE', quantity: 2 }] });
    // The same without the service's own id (a POS that does not echo it): still a reservation order.
    await createThroughContract(v.posVenueId, { tables: ['2'], partySize: 3, prepayment: 0 });
    const first = await w.bill(v, '1');
    expect(first.status).toBe(200);
    expect(first.body.partySize).toBe(6);
    expect(first.body.totals.subtotal).toBe(13.8);
    const second = await w.bill(v, '2');
    expect(second.status).toBe(200);
    expect(second.body.partySize).toBe(3);
  });
});

describe('checks and totals', () => {
  it('[BILL-06] [BILL-08] [BILL-09] a split order lists every open check; order totals sum all of them', async () => {
    const v = await w.connectVenue();
    await w.openOrder(v.posVenueId, {
      tables: ['1'],
      checks: [
        { checkNumber: 'A', items: [{ sku: 'BURGER', quantity: 1 }, { sku: 'WINE', quantity: 1 }], tax: 2.14, tip: 1, discount: 0.5 },
        { checkNumber: 'B', items: [{ sku: 'CAKE', quantity: 2 }], tax: 1.45 },
        { checkNumber: 'C', items: [{ sku: 'ESP', quantity: 3 }], tip: 0.3 },
      ],
    });
    const bill = (await w.bill(v, '1')).body;
    expect(bill.checks.map((c: { checkNumber: string }) => c.checkNumber).sort()).toEqual(['A', 'B', 'C']);
    const byNumber = Object.fromEntries(bill.checks.map((c: { checkNumber: string; totals: unknown }) => [c.checkNumber, c.totals]));
    expect(byNumber.A).toEqual({ subtotal: 21.4, tax: 2.14, tip: 1, discount: 0.5, total: 24.04 });
    expect(byNumber.B).toEqual({ subtotal: 14.5, tax: 1.45, tip: 0, discount: 0, total: 15.95 });
    expect(byNumber.C).toEqual({ subtotal: 7.5, tax: 0, tip: 0.3, discount: 0, total: 7.8 });
    // 21.40 + 14.50 + 7.50 = 43.40; + 3.59 tax + 1.30 tip − 0.50 discount = 47.79
    expect(bill.totals).toMatchObject({ subtotal: 43.4, tax: 3.59, tip: 1.3, discount: 0.5, total: 47.79, totalDue: 47.79 });
  });

  it('[BILL-06] a check voided on the POS leaves the bill; the other open checks stay', async () => {
    const v = await w.connectVenue();
    const pos = await w.openOrder(v.posVenueId, {
      tables: ['1'],
      checks: [{ checkNumber: '1', items: [{ sku: 'BURGER', quantity: 1 }] }, { checkNumber: '2', items: [{ sku: 'CAKE', quantity: 1 }] }],
    });
    await w.sim.control.voidOrder(v.posVenueId, pos.id, { checkNumber: '2' });
    const bill = (await w.bill(v, '1')).body;
    expect(bill.checks.map((c: { checkNumber: string }) => c.checkNumber)).toEqual(['1']);
    expect(bill.totals).toMatchObject({ subtotal: 14.5, total: 14.5, totalDue: 14.5 });
  });

  it('[BILL-21] [BILL-09] item total = unitPrice × quantity − the line discount the POS reports; the check discount counts it once', async () => {
    const v = await w.connectVenue();
    await w.openOrder(v.posVenueId, {
      tables: ['1'],
      checks: [{ items: [{ sku: 'BURGER', quantity: 2, discount: 3 }, { name: 'Water', price: 0.1, quantity: 3 }], discount: 1, tax: 0.5 }],
    });
    const bill = (await w.bill(v, '1')).body;
    const [check] = bill.checks;
    expect(check.items).toEqual([
      { id: expect.any(String), name: 'Classic burger', quantity: 2, unitPrice: 14.5, price: 14.5, total: 26 },
      // 0.10 × 3 is 0.30 exactly, not 0.30000000000000004.
      { id: expect.any(String), name: 'Water', quantity: 3, unitPrice: 0.1, price: 0.1, total: 0.3 },
    ]);
    // subtotal 29.30 before discounts; discount = 1.00 check + 3.00 line; total = 29.30 + 0.50 − 4.00
    expect(check.totals).toEqual({ subtotal: 29.3, tax: 0.5, tip: 0, discount: 4, total: 25.8 });
    expect(bill.totals).toMatchObject({ subtotal: 29.3, discount: 4, total: 25.8, totalDue: 25.8 });
  });

  it('[BILL-10] [BILL-15] prepayment from a create-order with prepayment reduces totalDue', async () => {
    const v = await w.connectVenue();
    await createThroughContract(v.posVenueId, { id: 'booking-prep', tables: ['1'], partySize: 2, prepayment: 20, items: [{ sku: 'BURGER', quantity: 2 }, { sku: 'WINE', quantity: 2 }] });
    const bill = (await w.bill(v, '1')).body;
    // 29.00 + 13.80 = 42.80; − 20.00 prepayment
    expect(bill.totals).toEqual({ subtotal: 42.8, tax: 0, tip: 0, discount: 0, total: 42.8, prepayment: 20, paid: 0, totalDue: 22.8 });
  });

  it('[BILL-11] [BILL-12] prepayment and paid are 0.00 when there are none', async () => {
    const v = await w.connectVenue();
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'CAKE', quantity: 1 }] }] });
    const bill = (await w.bill(v, '1')).body;
    expect(bill.totals.prepayment).toBe(0);
    expect(bill.totals.paid).toBe(0);
    expect(bill.totals.totalDue).toBe(7.25);
  });

  it('[BILL-16] totalDue is 0, never negative, when the prepayment exceeds the total', async () => {
    const v = await w.connectVenue();
    await createThroughContract(v.posVenueId, { id: 'booking-deposit', tables: ['1'], partySize: 2, prepayment: 50, items: [{ sku: 'BURGER', quantity: 1 }] });
    const bill = (await w.bill(v, '1')).body;
    expect(bill.totals).toMatchObject({ total: 14.5, prepayment: 50, paid: 0, totalDue: 0 });
  });
});

describe('payments in the bill', () => {
  it('[BILL-12] [BILL-15] a confirmed partial payment counts amount − tip in paid, and totalDue drops by it', async () => {
    const v = await w.connectVenue({ posType: POS.immediate });
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }, { sku: 'WINE', quantity: 1 }] }] });
    const before = (await w.bill(v, '1')).body;
    expect(before.totals).toMatchObject({ total: 35.9, paid: 0, totalDue: 35.9 });
    const paid = await w.pay(v, before.orderId, { externalReference: ref(), amount: 12, tip: 2, type: 'partial' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'confirmed', orderStatus: 'open' });
    const after = (await w.bill(v, '1')).body;
    expect(after.orderId).toBe(before.orderId);
    expect(after.totals).toMatchObject({ total: 35.9, prepayment: 0, paid: 10, totalDue: 25.9 });
    // A second one accumulates.
    expect((await w.pay(v, before.orderId, { externalReference: ref(), amount: 5.45, type: 'partial' })).status).toBe(200);
    expect((await w.bill(v, '1')).body.totals).toMatchObject({ paid: 15.45, totalDue: 20.45 });
  });

  it('[BILL-13] a pending payment (deferred venue, no confirmation yet) does not count in paid', async () => {
    const v = await w.connectVenue({ posType: POS.deferred, behaviour: { payment: 'deferred', delayMs: null, outcome: 'confirmed' } });
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] });
    const { orderId } = (await w.bill(v, '1')).body;
    const res = await w.pay(v, orderId, { externalReference: ref(), amount: 29, type: 'full' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'pending', orderStatus: 'open' });
    const bill = await w.bill(v, '1');
    expect(bill.status).toBe(200);
    expect(bill.body.orderId).toBe(orderId);
    expect(bill.body.totals).toMatchObject({ total: 29, paid: 0, totalDue: 29 });
  });

  it('[BILL-14] a failed payment (deferred venue, the POS refuses) does not count in paid', async () => {
    const v = await w.connectVenue({ posType: POS.deferred, behaviour: { payment: 'reject', failureCode: 'pos_check_not_found' } });
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'CAKE', quantity: 2 }] }] });
    const { orderId } = (await w.bill(v, '1')).body;
    const res = await w.pay(v, orderId, { externalReference: ref(), amount: 10, type: 'partial' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', failureCode: 'pos_check_not_found' });
    expect((await w.bill(v, '1')).body.totals).toMatchObject({ total: 14.5, paid: 0, totalDue: 14.5 });
  });

  it('[BILL-12] [BILL-13] [BILL-14] on one order: confirmed counts, failed and pending do not', async () => {
    const v = await w.connectVenue({ posType: POS.deferred, behaviour: { payment: 'deferred', delayMs: 0, outcome: 'confirmed' } });
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 4 }] }] });
    const { orderId } = (await w.bill(v, '1')).body;
    const confirmed = await w.pay(v, orderId, { externalReference: ref(), amount: 11, tip: 1, type: 'partial' });
    expect(confirmed.body.status).toBe('confirmed');
    await w.sim.control.setBehaviour(v.posVenueId, { payment: 'reject', failureCode: 'pos_overpaid' });
    const failed = await w.pay(v, orderId, { externalReference: ref(), amount: 20, type: 'partial' });
    expect(failed.body).toMatchObject({ status: 'failed', failureCode: 'pos_overpaid' });
    await w.sim.control.setBehaviour(v.posVenueId, { payment: 'deferred', delayMs: null, outcome: 'confirmed' });
    const pending = await w.pay(v, orderId, { externalReference: ref(), amount: 30, type: 'partial' });
    expect(pending.status).toBe(202);
    expect((await w.bill(v, '1')).body.totals).toMatchObject({ total: 58, paid: 10, totalDue: 48 });
  });

  it('[DES-041] partials of 0.10, 0.20 and 0.30 against a 0.60 total: paid is exactly 0.60 and the order closes', async () => {
    const v = await w.connectVenue({ posType: POS.immediate });
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ name: 'Mint', price: 0.2, quantity: 3 }] }] });
    const { orderId, totals } = (await w.bill(v, '1')).body;
    expect(totals.total).toBe(0.6);
    const first = await w.pay(v, orderId, { externalReference: ref(), amount: 0.1, type: 'partial' });
    const second = await w.pay(v, orderId, { externalReference: ref(), amount: 0.2, type: 'partial' });
    expect([first.body.orderStatus, second.body.orderStatus]).toEqual(['open', 'open']);
    // 0.1 + 0.2 in floating point is 0.30000000000000004; the bill says 0.3.
    expect((await w.bill(v, '1')).body.totals).toMatchObject({ paid: 0.3, totalDue: 0.3 });
    const last = await w.pay(v, orderId, { externalReference: ref(), amount: 0.3, type: 'partial' });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
    const sum = await sql<{ paid: number }>`SELECT sum(amount_minor - coalesce(tip_minor, 0))::bigint AS paid FROM payments
                                            WHERE order_id = ${orderId} AND status = 'confirmed'`.execute(w.app.db.kysely);
    expect(Number(sum.rows[0].paid)).toBe(60);
    expect((await storedOrder(orderId)).status).toBe('closed');
    expect((await w.bill(v, '1')).status).toBe(404);
  });
});

describe('not found', () => {
  it('[BILL-22] [BILL-23] an unknown table and a table with no open order are both 404, with different messages', async () => {
    const v = await w.connectVenue();
    const unknown = await w.app.http.get(`/v1/pat/venue/${v.venueId}/table/0193c2d4-8a1e-7cc3-9d6b-2f1f5a7e0b11/bill`, { token: w.partner.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe(404);
    expect(unknown.body.error.message).toMatch(/table/i);
    expect(unknown.body.error.message).toMatch(/unknown|not found/i);
    // A table id that is not even a UUID is unknown too (not a 400 or 500).
    const malformed = await w.app.http.get(`/v1/pat/venue/${v.venueId}/table/not-a-uuid/bill`, { token: w.partner.token });
    expect(malformed.status).toBe(404);
    expect(malformed.body.error.message).toBe(unknown.body.error.message);

    const empty = await w.bill(v, '1');
    expect(empty.status).toBe(404);
    expect(empty.body.error.code).toBe(404);
    expect(empty.body.error.message).toMatch(/no open order/i);
    expect(empty.body.error.message).not.toBe(unknown.body.error.message);
  });

  it('[BILL-24] once a confirmed full payment closes the order, GET bill for its table is 404 no open order', async () => {
    const v = await w.connectVenue({ posType: POS.immediate });
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] });
    const { orderId } = (await w.bill(v, '1')).body;
    const paid = await w.pay(v, orderId, { externalReference: ref(), amount: 8.9, tip: 2, type: 'full' });
    expect(paid.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
    const res = await w.bill(v, '1');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/no open order/i);
  });

  it('[BILL-24] with no forwarding the POS still shows the order open, yet the service closed it: 404 no open order', async () => {
    const v = await w.connectVenue({ posType: POS.noForwarding });
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] });
    const { orderId } = (await w.bill(v, '1')).body;
    expect((await w.pay(v, orderId, { externalReference: ref(), amount: 6.9, type: 'full' })).body.orderStatus).toBe('closed');
    expect((await w.sim.control.getOrder(v.posVenueId, pos.id)).status).toBe('open');
    const res = await w.bill(v, '1');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/no open order/i);
  });

  it('[BILL-24] an order closed by staff on the POS leaves the bill: 404 no open order', async () => {
    const v = await w.connectVenue();
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] });
    expect((await w.bill(v, '1')).status).toBe(200);
    await w.sim.control.closeOrder(v.posVenueId, pos.id, { paymentMethod: 'cash' });
    const res = await w.bill(v, '1');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/no open order/i);
  });

  it('[BILL-29] a venue with no active POS (onboarding not completed) → 404 no POS connection found', async () => {
    const created = await w.app.http.post('/v1/pat/venues', {
      token: w.partner.token,
      body: { name: 'Not onboarded', address: '2 Calle Mayor', city: 'Madrid', postalCode: '28013', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType: POS.immediate },
    });
    expect(created.status).toBe(200);
    const res = await w.app.http.get(`/v1/pat/venue/${created.body.id}/table/0193c2d4-8a1e-7cc3-9d6b-2f1f5a7e0b11/bill`, { token: w.partner.token });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/no POS connection found/i);
  });

  it('[AUTH-09] a venue outside the token’s scope → 403 on GET bill, never 404; an unknown venue id also 403', async () => {
    const v = await w.connectVenue();
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
    const other = await w.app.newPartner(['pat'], 'Other partner');
    const out = await w.bill(v, '1', other.token);
    expect(out.status).toBe(403);
    expect(out.body.error.code).toBe(403);
    // The whole bill stays hidden: not even the table's existence leaks.
    const unknownTable = await w.app.http.get(`/v1/pat/venue/${v.venueId}/table/0193c2d4-8a1e-7cc3-9d6b-2f1f5a7e0b11/bill`, { token: other.token });
    expect(unknownTable.status).toBe(403);
    const unknownVenue = await w.app.http.get(`/v1/pat/venue/0193c2d4-8a1e-7cc3-9d6b-2f1f5a7e0b12/table/${v.tableIds['1']}/bill`, { token: w.partner.token });
    expect(unknownVenue.status).toBe(403);
    expect((await w.bill(v, '1')).status).toBe(200);
  });
});

describe('live bill (billRetrieval true)', () => {
  it('[DES-082] every table of a merged order gets that order’s bill, with the same orderId', async () => {
    const v = await w.connectVenue();
    await w.openOrder(v.posVenueId, { tables: ['2', '3'], checks: [{ items: [{ sku: 'BURGER', quantity: 3 }] }] });
    const a = await w.bill(v, '2');
    const b = await w.bill(v, '3');
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.orderId).toBe(a.body.orderId);
    expect(a.body).toMatchObject({ tableId: v.tableIds['2'], tableName: 'Table 2' });
    expect(b.body).toMatchObject({ tableId: v.tableIds['3'], tableName: 'Table 3' });
    expect(b.body.totals).toEqual(a.body.totals);
    expect(b.body.checks).toEqual(a.body.checks);
    expect((await storedOrder(a.body.orderId)).pos_tables).toEqual(['2', '3']);
    // A table not in the merge has no bill.
    expect((await w.bill(v, '1')).status).toBe(404);
  });

  it('[DES-082] the bill of a table is the open order on it, not a closed earlier one', async () => {
    const v = await w.connectVenue();
    const first = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
    const firstBill = (await w.bill(v, '1')).body;
    await w.sim.control.closeOrder(v.posVenueId, first.id);
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'CAKE', quantity: 1 }] }] });
    const second = (await w.bill(v, '1')).body;
    expect(second.orderId).not.toBe(firstBill.orderId);
    expect(second.totals.total).toBe(7.25);
  });

  it('[DES-082] [BILL-24] an order paid through pay-at-table that a non-forwarding POS still lists open does not hide the table’s next order', async () => {
    const v = await w.connectVenue({ posType: POS.noForwarding });
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] });
    const first = (await w.bill(v, '1')).body;
    expect((await w.pay(v, first.orderId, { externalReference: ref(), amount: 6.9, type: 'full' })).body.orderStatus).toBe('closed');
    expect((await w.bill(v, '1')).status).toBe(404);
    // Staff seat the next guests at the same table before closing the paid order at the till.
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'CAKE', quantity: 1 }] }] });
    const next = await w.bill(v, '1');
    expect(next.status).toBe(200);
    expect(next.body.orderId).not.toBe(first.orderId);
    expect(next.body.totals).toMatchObject({ total: 7.25, paid: 0, totalDue: 7.25 });
  });

  it('[DES-084] [BILL-25] the orderId is stable across GET bill calls, also after the order changes on the POS', async () => {
    const v = await w.connectVenue();
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add((await w.bill(v, '1')).body.orderId);
    await w.sim.control.addItems(v.posVenueId, pos.id, { items: [{ sku: 'CAKE', quantity: 1 }] });
    ids.add((await w.bill(v, '1')).body.orderId);
    expect(ids.size).toBe(1);
    const [orderId] = [...ids];
    const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM orders WHERE venue_id = ${v.venueId} AND pos_order_id = ${pos.id}`.execute(w.app.db.kysely);
    expect(rows.rows[0].n).toBe(1);
    expect(orderId).toMatch(UUID);
  });

  it('[DES-084] concurrent first reads of a new POS order give one stored order and one orderId', async () => {
    const v = await w.connectVenue();
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 2 }] }] });
    const bills = await Promise.all(Array.from({ length: 6 }, () => w.bill(v, '1')));
    expect(bills.map((b) => [b.status, b.status === 200 ? '' : b.text])).toEqual(Array(6).fill([200, '']));
    expect(new Set(bills.map((b) => b.body.orderId)).size).toBe(1);
    const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM orders WHERE venue_id = ${v.venueId} AND pos_order_id = ${pos.id}`.execute(w.app.db.kysely);
    expect(rows.rows[0].n).toBe(1);
  });

  it('[BILL-25] a change made on the POS shows in the next GET bill', async () => {
    const v = await w.connectVenue();
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 1 }] }] });
    expect((await w.bill(v, '1')).body.totals.total).toBe(14.5);
    await w.sim.control.clearRequests(v.posVenueId);
    await w.sim.control.addItems(v.posVenueId, pos.id, { items: [{ sku: 'WINE', quantity: 2 }] });
    const bill = (await w.bill(v, '1')).body;
    expect(bill.totals).toMatchObject({ subtotal: 28.3, total: 28.3, totalDue: 28.3 });
    expect(bill.checks[0].items.map((i: { name: string }) => i.name)).toEqual(['Classic burger', 'House red']);
    // It was read from the POS at request time.
    const reads = (await w.sim.control.requests(v.posVenueId)).filter((r) => r.method === 'GET' && r.path.includes('/orders'));
    expect(reads.length).toBeGreaterThanOrEqual(1);
  });

  it('[BILL-26] the live read refreshes the stored record of the order and its checks', async () => {
    const v = await w.connectVenue();
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ checkNumber: '1', items: [{ sku: 'BURGER', quantity: 1 }] }] });
    const { orderId } = (await w.bill(v, '1')).body;
    expect((await storedChecks(orderId)).map((c) => c.subtotal_minor)).toEqual([1450]);
    await w.sim.control.addItems(v.posVenueId, pos.id, { checkNumber: '1', items: [{ sku: 'CAKE', quantity: 2 }] });
    // Nothing reads the POS in between: the store still has the old state.
    expect((await storedChecks(orderId)).map((c) => c.subtotal_minor)).toEqual([1450]);
    expect((await w.bill(v, '1')).status).toBe(200);
    const checks = await storedChecks(orderId);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ check_number: '1', status: 'open', subtotal_minor: 2900 });
    expect(checks[0].items.map((i) => [i.name, i.quantity])).toEqual([['Classic burger', 1], ['Cheesecake', 2]]);
    expect((await storedOrder(orderId)).status).toBe('open');
  });
});

describe('stored bill (billRetrieval false)', () => {
  it('[DES-137] an order opened on the POS appears in the bill after the next order sync run; before it, 404', async () => {
    const v = await w.connectVenue({ posType: POS.stored });
    const pos = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 1 }] }] });
    const before = await w.bill(v, '1');
    expect(before.status).toBe(404);
    expect(before.body.error.message).toMatch(/no open order/i);
    // The sync job scheduled at onboarding is due: the runner runs it.
    await w.app.service.runner.runDue();
    const after = await w.bill(v, '1');
    expect(after.status).toBe(200);
    expect(after.body.totals.total).toBe(14.5);

    // A change on the POS shows after the next sync, not before.
    await w.sim.control.addItems(v.posVenueId, pos.id, { items: [{ sku: 'ESP', quantity: 2 }] });
    expect((await w.bill(v, '1')).body.totals.total).toBe(14.5);
    await w.app.service.app.services.orderSync.syncVenue(v.venueId);
    const changed = await w.bill(v, '1');
    expect(changed.body.totals.total).toBe(19.5);
    expect(changed.body.orderId).toBe(after.body.orderId);

    // And a close on the POS takes the bill away after the next sync.
    await w.sim.control.closeOrder(v.posVenueId, pos.id);
    expect((await w.bill(v, '1')).status).toBe(200);
    await w.app.service.app.services.orderSync.syncVenue(v.venueId);
    expect((await w.bill(v, '1')).status).toBe(404);
  });

  it('[BILL-27] [BILL-01] the stored bill has the same shape as the live one', async () => {
    const live = await w.connectVenue({ posType: POS.immediate });
    const stored = await w.connectVenue({ posType: POS.stored });
    const order = { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2, discount: 1 }, { sku: 'ESP', quantity: 1 }], tax: 1, tip: 0.5, discount: 0.25 }, { items: [{ sku: 'CAKE', quantity: 1 }] }] };
    await w.openOrder(live.posVenueId, order);
    await w.openOrder(stored.posVenueId, order);
    await w.app.service.app.services.orderSync.syncVenue(stored.venueId);
    const a = (await w.bill(live, '1')).body;
    const b = (await w.bill(stored, '1')).body;
    expect(shapeOf(b)).toEqual(shapeOf(a));
    expect(b.totals).toEqual(a.totals);
    const strip = (bill: typeof a) => bill.checks.map((c: { items: Array<Record<string, unknown>> }) => ({ ...c, items: c.items.map(({ id: _id, ...rest }) => rest) }));
    expect(strip(b)).toEqual(strip(a));
  });

  it('[BILL-27] the stored state answers while the POS is down, without a live read', async () => {
    const own = await startPatWorld({ env: { POS_TIMEOUT_MS: '10000' } });
    const v = await own.connectVenue({ posType: POS.stored });
    await own.openOrder(v.posVenueId, { tables: ['1'], partySize: 2, checks: [{ items: [{ sku: 'WINE', quantity: 3 }], tax: 2.07 }] });
    await own.app.service.app.services.orderSync.syncVenue(v.venueId);
    const up = await own.bill(v, '1');
    expect(up.status).toBe(200);
    await own.sim.close();
    const down = await own.bill(v, '1');
    expect(down.status).toBe(200);
    expect(down.body).toEqual(up.body);
    expect(down.body.totals).toMatchObject({ subtotal: 20.7, tax: 2.07, total: 22.77, totalDue: 22.77 });
    // The other answers come from the store too: a table with no stored open order is 404 as usual.
    const other = await own.bill(v, '2');
    expect(other.status).toBe(404);
    expect(other.body.error.message).toMatch(/no open order/i);
  });
});

describe('currencies with 0 and 3 decimals', () => {
  it('[BILL-07] [BILL-09] [BILL-15] a JPY venue (0 decimals): whole-yen totals, exact after a partial payment', async () => {
    const v = await w.connectVenue({ currency: 'JPY', timezone: 'Asia/Tokyo' });
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ name: 'Ramen', price: 1200, quantity: 2 }, { sku: 'ESP', quantity: 1 }], tax: 265, tip: 0, discount: 100 }] });
    const bill = (await w.bill(v, '1')).body;
    // 2400 + 250 = 2650; + 265 − 100 = 2815
    expect(bill.totals).toEqual({ subtotal: 2650, tax: 265, tip: 0, discount: 100, total: 2815, prepayment: 0, paid: 0, totalDue: 2815 });
    expect(bill.checks[0].items[0]).toMatchObject({ unitPrice: 1200, price: 1200, total: 2400 });
    expect((await w.pay(v, bill.orderId, { externalReference: ref(), amount: 1100, tip: 100, type: 'partial' })).status).toBe(200);
    expect((await w.bill(v, '1')).body.totals).toMatchObject({ paid: 1000, totalDue: 1815 });
    for (const value of Object.values((await w.bill(v, '1')).body.totals)) expect(Number.isInteger(value)).toBe(true);
  });

  it('[BILL-07] [BILL-09] [BILL-15] [BILL-21] a KWD venue (3 decimals): fils-exact totals, exact after a partial payment', async () => {
    const v = await w.connectVenue({ currency: 'KWD', timezone: 'Asia/Kuwait' });
    await w.openOrder(v.posVenueId, {
      tables: ['1'],
      checks: [{ items: [{ name: 'Machboos', price: 1.125, quantity: 3 }, { name: 'Tea', price: 0.1, quantity: 3, discount: 0.05 }], tax: 0.169, tip: 0.5, discount: 0.001 }],
    });
    const bill = (await w.bill(v, '1')).body;
    expect(bill.checks[0].items.map((i: { total: number }) => i.total)).toEqual([3.375, 0.25]);
    // 3.375 + 0.300 = 3.675; discount 0.001 + 0.050 = 0.051; total 3.675 + 0.169 + 0.500 − 0.051 = 4.293
    expect(bill.totals).toEqual({ subtotal: 3.675, tax: 0.169, tip: 0.5, discount: 0.051, total: 4.293, prepayment: 0, paid: 0, totalDue: 4.293 });
    expect((await w.pay(v, bill.orderId, { externalReference: ref(), amount: 0.333, tip: 0.111, type: 'partial' })).status).toBe(200);
    expect((await w.bill(v, '1')).body.totals).toMatchObject({ paid: 0.222, totalDue: 4.071 });
  });
});

// ---- a POS whose items may carry no id (the simulator always gives one) ----

/** A minimal POS on the partner contract: one location, tables, and one fixed open order. */
async function startFakePos(order: Record<string, unknown>): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const tls = testTls();
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://fake');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/venue/fake-1/tables') return send(200, [{ id: 't1', name: 'Patio' }]);
    if (url.pathname === '/venue/fake-1/orders') {
      const status = url.searchParams.get('status');
      return send(200, status === null || status === 'open' ? [order] : []);
    }
    if (url.pathname === `/venue/fake-1/orders/${String(order.id)}`) return send(200, order);
    return send(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `https://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('a POS other than the simulator', () => {
  it('[BILL-17] [BILL-18] [BILL-19] [DES-131] items with an integer id, a string id, no id and a null id: "7", "A-1", null, null; six fields each', async () => {
    const now = new Date().toISOString();
    const fake = await startFakePos({
      id: 'ord-9',
      status: 'open',
      tables: ['t1'],
      partySize: 5,
      guestName: 'Walk-in',
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      checks: [
        {
          checkNumber: '001',
          status: 'open',
          totalAmount: 19.5,
          tax: 0,
          tip: 0,
          discount: 0,
          paymentMethod: null,
          items: [
            { id: 7, name: 'Burger', price: 12, quantity: 1, modifiers: ['no onion'], plu: '1001' },
            { id: 'A-1', name: 'Fries', price: 3.5, quantity: 1 },
            { name: 'Open food', price: 2, quantity: 1 },
            { id: null, name: 'Water', price: 2, quantity: 1 },
          ],
        },
        // A POS that names the payment method on an open check (a card pre-authorised, say).
        { checkNumber: '002', status: 'open', totalAmount: 4, tax: 0.4, tip: 0, discount: 0, paymentMethod: 'visa', items: [{ id: 8, name: 'Tea', price: 2, quantity: 2 }] },
      ],
    });
    onTestFinished(() => fake.close());
    const app = await startTestApp({
      posTypes: [{ code: 'fakepos', name: 'Fake POS', baseUrl: fake.baseUrl, apiKey: 'k', caFile: testCertFile(), billRetrieval: true, paymentForwarding: false, paymentConfirmation: 'immediate' }],
      env: { AUTH_FAILURE_LIMIT_PER_MIN: '1000000' },
    });
    onTestFinished(() => app.close());
    const partner = await app.newPartner(['pat']);
    const created = await app.http.post('/v1/pat/venues', {
      token: partner.token,
      body: { name: 'Fake venue', address: '1 Main St', city: 'Madrid', postalCode: '28013', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType: 'fakepos' },
    });
    expect(created.status).toBe(200);
    const url = new URL(created.body.onboarding.url);
    const form = await app.http.post(`${url.pathname}${url.search}`, {
      body: new URLSearchParams({ posVenueId: 'fake-1' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(200);
    const tables = await app.http.get(`/v1/pat/venue/${created.body.id}/tables`, { token: partner.token });
    const tableId = tables.body.tables[0].id;
    const res = await app.http.get(`/v1/pat/venue/${created.body.id}/table/${tableId}/bill`, { token: partner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tableName: 'Patio', partySize: null, status: 'open' });
    const items = res.body.checks[0].items;
    for (const item of items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    expect(items).toEqual([
      { id: '7', name: 'Burger', quantity: 1, unitPrice: 12, price: 12, total: 12 },
      { id: 'A-1', name: 'Fries', quantity: 1, unitPrice: 3.5, price: 3.5, total: 3.5 },
      { id: null, name: 'Open food', quantity: 1, unitPrice: 2, price: 2, total: 2 },
      { id: null, name: 'Water', quantity: 1, unitPrice: 2, price: 2, total: 2 },
    ]);
    expect(res.body.checks[0]).toMatchObject({ checkNumber: '001', paymentMethod: null, totals: { subtotal: 19.5, tax: 0, tip: 0, discount: 0, total: 19.5 } });
    expect(res.body.checks[1]).toMatchObject({ checkNumber: '002', paymentMethod: 'visa', totals: { subtotal: 4, tax: 0.4, total: 4.4 } });
    expect(res.body.checks[1].items).toEqual([{ id: '8', name: 'Tea', quantity: 2, unitPrice: 2, price: 2, total: 4 }]);
    expect(res.body.totals).toEqual({ subtotal: 23.5, tax: 0.4, tip: 0, discount: 0, total: 23.9, prepayment: 0, paid: 0, totalDue: 23.9 });
  });
});
