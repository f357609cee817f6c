// The POS client (spec 4.6, DESIGN 6.2) over real HTTPS: against the reference simulator for what it
// sends and what it returns, and against small fake servers for every way a POS can misbehave.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, test, vi } from 'vitest';
import { startSimulator, type Simulator } from '../../pos-simulator/src/index.ts';
import { PosClient, PosError, type PosErrorKind } from '../../src/pos/pos-client.ts';
import { PosTypesError, parsePosType } from '../../src/pos/pos-types.ts';
import { startFakePos, startSilentServer, unusedPort, type FakePos, type FakeReply } from './fake-pos.ts';

const V = 'sim-venue-1';
const TIMEOUT_MS = 1500;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ts = expect.stringMatching(ISO);

async function rejection(p: Promise<unknown>): Promise<PosError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(PosError);
    return err as PosError;
  }
  throw new Error('expected the call to fail with a PosError');
}

/** The last request the simulator logged for the venue. */
async function lastRequest(sim: Simulator, venueId = V) {
  const log = await sim.control.requests(venueId);
  expect(log.length).toBeGreaterThan(0);
  return log[log.length - 1]!;
}

describe('against the seeded reference simulator', () => {
  let sim: Simulator;
  let client: PosClient;

  beforeEach(async () => {
    sim = await startSimulator({ seed: true });
    client = new PosClient({ code: 'sim', baseUrl: sim.baseUrl, apiKey: sim.apiKey, ca: sim.ca }, { timeoutMs: TIMEOUT_MS });
    await sim.control.clearRequests(V);
  });
  afterEach(async () => {
    await client.close();
    await sim.close();
  });

  describe('reads', () => {
    it('[POS-02] [POS-03] listTables returns the venue\'s tables as {id, name}, in order', async () => {
      expect(await client.listTables(V)).toEqual([
        { id: '101', name: 'Table 1' },
        { id: '102', name: 'Table 2' },
        { id: '103', name: 'Table 3' },
        { id: '104', name: 'Table 4' },
        { id: '105', name: 'Terrace 1' },
        { id: '106', name: 'Terrace 2' },
      ]);
      const req = await lastRequest(sim);
      expect(req).toMatchObject({ method: 'GET', path: `/venue/${V}/tables`, status: 200 });
    });

    it('(spec 2.7, 4.6) listOrders returns every order with the fields of spec 2.7, as the POS holds them', async () => {
      const orders = await client.listOrders(V);
      expect(orders.map((o) => [o.id, o.status, o.tables])).toEqual([
        ['1001', 'open', ['101']],
        ['1002', 'open', ['103', '104']],
        ['1003', 'closed', ['105']],
        ['1004', 'closed', ['106']],
      ]);
      for (const o of orders) expect(o).toEqual(await sim.control.getOrder(V, o.id));
      expect(orders[1]).toMatchObject({
        id: '1002', status: 'open', tables: ['103', '104'], partySize: 8, guestName: 'Okafor',
        createdAt: ts, updatedAt: ts, closedAt: null,
        checks: [{
          checkNumber: '3', status: 'open', totalAmount: 40.4, tax: 0, tip: 0, discount: 0, paymentMethod: '',
          items: [
            { id: 6, name: 'Cappuccino', price: 3.8, quantity: 3, sku: 'CAP' },
            { id: 7, name: 'Tiramisu', price: 7.25, quantity: 4, sku: 'TIRAMISU', notes: 'one without cocoa' },
          ],
        }],
      });
      const req = await lastRequest(sim);
      expect(req).toMatchObject({ method: 'GET', path: `/venue/${V}/orders`, query: {}, status: 200 });
    });

    it('[POS-16] listOrders with status sends the filter and returns only orders in that status', async () => {
      expect((await client.listOrders(V, { status: 'open' })).map((o) => o.id)).toEqual(['1001', '1002']);
      expect((await lastRequest(sim)).query).toEqual({ status: 'open' });
      expect((await client.listOrders(V, { status: 'closed' })).map((o) => o.id)).toEqual(['1003', '1004']);
      expect((await lastRequest(sim)).query).toEqual({ status: 'closed' });
    });

    it('(spec 4.6) listOrders with from/until sends both as ISO 8601 and gets the orders updated in the window', async () => {
      const all = await client.listOrders(V);
      const latest = Math.max(...all.map((o) => Date.parse(o.updatedAt)));
      const from = new Date(latest + 60_000);
      const until = new Date(latest + 120_000);
      expect(await client.listOrders(V, { from, until })).toEqual([]);
      expect((await lastRequest(sim)).query).toEqual({ from: from.toISOString(), until: until.toISOString() });
      const wide = await client.listOrders(V, { from: new Date(latest - 3_600_000), until: new Date(latest + 3_600_000) });
      expect(wide.map((o) => o.id)).toEqual(['1001', '1002', '1003', '1004']);
    });

    it('(spec 4.6) getOrder returns one order with all its checks; an unknown order is null', async () => {
      const order = await client.getOrder(V, '1001');
      expect(order).toEqual(await sim.control.getOrder(V, '1001'));
      expect(order).toMatchObject({
        id: '1001', status: 'open', tables: ['101'], partySize: 4, guestName: 'Martin', closedAt: null,
        checks: [
          {
            checkNumber: '1', status: 'open', totalAmount: 42.8, tax: 0, tip: 0, discount: 0,
            items: [
              { id: 1, name: 'Classic burger', price: 14.5, quantity: 2, sku: 'BURGER' },
              { id: 2, name: 'House red, glass', price: 6.9, quantity: 2, sku: 'WIN-RED' },
            ],
          },
          {
            checkNumber: '2', status: 'open', totalAmount: 32.85, tax: 0, tip: 0, discount: 2,
            items: [
              { id: 3, name: 'Mushroom risotto', price: 16.75, quantity: 1, sku: 'RISOTTO' },
              { id: 4, name: 'Caesar salad', price: 11.9, quantity: 1, sku: 'SALAD', discount: 2 },
              { id: 5, name: 'Sparkling water 0.5l', price: 4.2, quantity: 1, sku: 'WAT' },
            ],
          },
        ],
      });
      expect(await client.getOrder(V, 'no-such-order')).toBeNull();
      expect((await lastRequest(sim)).status).toBe(404);
    });

    it('(spec 3.4) getOrder reads a closed order with its closure time', async () => {
      const order = await client.getOrder(V, '1003');
      expect(order).toMatchObject({ id: '1003', status: 'closed', closedAt: ts, checks: [{ status: 'closed', paymentMethod: 'card', tip: 2, totalAmount: 24.5 }] });
    });

    it('[DES-082] openOrderForTable finds the open order on either table of a merged order; none on a free or closed table', async () => {
      expect((await client.openOrderForTable(V, '103'))?.id).toBe('1002');
      expect((await client.openOrderForTable(V, '104'))?.id).toBe('1002');
      expect((await lastRequest(sim)).query).toEqual({ status: 'open' });
      expect((await client.openOrderForTable(V, '101'))?.id).toBe('1001');
      expect(await client.openOrderForTable(V, '102')).toBeNull(); // free
      expect(await client.openOrderForTable(V, '105')).toBeNull(); // its order is closed
    });
  });

  describe('create order', () => {
    it('[POS-05] [POS-08] [POS-10] createOrder sends every field as JSON with content-type application/json and date as given', async () => {
      const input = {
        id: 'svc-order-1',
        tables: ['102'],
        guestName: 'Ada Lovelace',
        guestEmail: 'ada@example.com',
        guestTelephone: '+33123456789',
        partySize: 3,
        prepayment: 10.5,
        date: '2025-03-01 19:30:00',
        items: [{ sku: 'ESP', quantity: 2 }, { sku: 'TIRAMISU', quantity: 1, notes: 'no cocoa' }],
      };
      const result = await client.createOrder(V, structuredClone(input));
      expect(result).toEqual({ ok: true, id: '1005', checkNumber: '6' });

      const req = await lastRequest(sim);
      expect(req).toMatchObject({ method: 'POST', path: `/venue/${V}/orders`, status: 201 });
      expect(req.headers['content-type']).toBe('application/json');
      // Every field, exactly as given: the body is the input itself.
      expect(req.body).toEqual(input);
      expect((req.body as { date: string }).date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(Object.keys((req.body as { items: object[] }).items[0]!)).toEqual(['sku', 'quantity']);

      // The POS read it as we meant it: seated at 19:30 in the venue's zone (Europe/Paris, UTC+1 in March).
      const order = await sim.control.getOrder(V, '1005');
      expect(Date.parse(order.seatedAt)).toBe(Date.parse('2025-03-01T18:30:00Z'));
      expect(order).toMatchObject({ reservationId: 'svc-order-1', tables: ['102'], partySize: 3, guestName: 'Ada Lovelace', prepayment: 10.5 });
      expect(order.checks[0]!.items).toMatchObject([
        { sku: 'ESP', quantity: 2, price: 2.5 },
        { sku: 'TIRAMISU', quantity: 1, notes: 'no cocoa' },
      ]);
    });

    it('[POS-06] createOrder sends merged tables as several ids in tables, never tableId', async () => {
      const result = await client.createOrder(V, { tables: ['105', '106'], partySize: 10, prepayment: 0 });
      expect(result).toEqual({ ok: true, id: '1005', checkNumber: '6' });
      const body = (await lastRequest(sim)).body as Record<string, unknown>;
      expect(body.tables).toEqual(['105', '106']);
      expect(body).not.toHaveProperty('tableId');
      expect((await client.getOrder(V, '1005'))?.tables).toEqual(['105', '106']);
      expect((await client.openOrderForTable(V, '106'))?.id).toBe('1005');
    });

    it('[POS-07] [POS-09] a create without prepayment or pre-orders sends prepayment 0 and no items key at all', async () => {
      expect(await client.createOrder(V, { tables: ['102'], prepayment: 0 })).toEqual({ ok: true, id: '1005', checkNumber: '6' });
      const bare = (await lastRequest(sim)).body as Record<string, unknown>;
      expect(bare).toEqual({ tables: ['102'], prepayment: 0 });
      expect('items' in bare).toBe(false);

      // An empty pre-order list is "no pre-orders" too: neither [] nor null goes out.
      expect(await client.createOrder(V, { tables: ['101'], prepayment: 0, items: [] })).toMatchObject({ ok: true });
      const empty = (await lastRequest(sim)).body as Record<string, unknown>;
      expect(empty).toEqual({ tables: ['101'], prepayment: 0 });
      expect('items' in empty).toBe(false);
    });

    it('[POS-10] an item carries notes only when it has a note', async () => {
      await client.createOrder(V, {
        tables: ['102'], prepayment: 0,
        items: [{ sku: 'ESP', quantity: 1 }, { sku: 'CAP', quantity: 2, notes: '' }, { sku: 'WAT', quantity: 3, notes: 'no ice' }],
      });
      const body = (await lastRequest(sim)).body as { items: Array<Record<string, unknown>> };
      expect(body.items).toEqual([{ sku: 'ESP', quantity: 1 }, { sku: 'CAP', quantity: 2 }, { sku: 'WAT', quantity: 3, notes: 'no ice' }]);
      expect(body.items.map((i) => 'notes' in i)).toEqual([false, false, true]);
    });

    it('[POS-15] an unknown sku answers {ok: false, unknownSkus} listing exactly the unknown skus, and nothing is created', async () => {
      const result = await client.createOrder(V, {
        tables: ['102'], prepayment: 0,
        items: [{ sku: 'ESP', quantity: 1 }, { sku: 'NOPE', quantity: 1 }, { sku: 'GONE', quantity: 2 }, { sku: 'NOPE', quantity: 3 }],
      });
      expect(result).toEqual({ ok: false, error: expect.any(String), unknownSkus: ['NOPE', 'GONE'] });
      expect((await lastRequest(sim)).status).toBe(422);
      expect((await client.listOrders(V)).map((o) => o.id)).toEqual(['1001', '1002', '1003', '1004']);
    });

    it('[POS-13] a POS without items support accepts a create with items, ignores them, and the order counts as created', async () => {
      await sim.control.createVenue({
        id: 'no-items', name: 'No items', timezone: 'Europe/Paris', currency: 'EUR', itemsSupported: false,
        tables: [{ id: 'A', name: 'A' }], menu: [{ sku: 'ESP', name: 'Espresso', price: 2.5 }],
      });
      const result = await client.createOrder('no-items', { tables: ['A'], prepayment: 0, items: [{ sku: 'ESP', quantity: 2 }] });
      expect(result).toEqual({ ok: true, id: expect.any(String), checkNumber: expect.any(String) });
      if (!result.ok) throw new Error('unreachable');
      expect((await lastRequest(sim, 'no-items')).body).toMatchObject({ items: [{ sku: 'ESP', quantity: 2 }] });
      const order = await client.getOrder('no-items', result.id);
      expect(order).toMatchObject({ id: result.id, status: 'open', tables: ['A'] });
      expect(order!.checks.flatMap((c) => c.items)).toEqual([]);
    });
  });

  describe('payments (DESIGN 6.2)', () => {
    const card = { currency: 'EUR', paymentMethod: 'card' } as const;

    it('[DES-075] [DES-076] forwardPayment sends {paymentId, type, amount, tip, currency, paymentMethod} as decimals; 200 is confirmed', async () => {
      // Order 1001 settles at 42.80 + 32.85 - 2.00 = 73.65; the guest adds 7.00 tip.
      const answer = await client.forwardPayment(V, '1001', { paymentId: 'pay-1', type: 'full', amount: 80.65, tip: 7, ...card });
      expect(answer).toEqual({ status: 'confirmed' });
      const req = await lastRequest(sim);
      expect(req).toMatchObject({ method: 'POST', path: `/venue/${V}/orders/1001/payments`, status: 200 });
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.body).toEqual({ paymentId: 'pay-1', type: 'full', amount: 80.65, tip: 7, currency: 'EUR', paymentMethod: 'card' });
      expect(await client.paymentStatus(V, '1001', 'pay-1')).toEqual({ status: 'confirmed' });
      expect((await client.getOrder(V, '1001'))?.status).toBe('closed');
    });

    it('[DES-077] [DES-078] 202 is pending; paymentStatus reads pending, then the terminal state', async () => {
      await sim.control.setBehaviour(V, { payment: 'deferred', delayMs: 60_000, outcome: 'confirmed' });
      const answer = await client.forwardPayment(V, '1002', { paymentId: 'pay-2', type: 'partial', amount: 10.1, tip: 0, ...card });
      expect(answer).toEqual({ status: 'pending' });
      expect((await lastRequest(sim)).status).toBe(202);
      expect(await client.paymentStatus(V, '1002', 'pay-2')).toEqual({ status: 'pending' });
      const poll = await lastRequest(sim);
      expect(poll).toMatchObject({ method: 'GET', path: `/venue/${V}/orders/1002/payments/pay-2`, status: 200 });
      await sim.control.advanceClock(61_000);
      expect(await client.paymentStatus(V, '1002', 'pay-2')).toEqual({ status: 'confirmed' });
    });

    it('[DES-078] a deferred payment that the POS later refuses reads as failed with its failureCode', async () => {
      await sim.control.setBehaviour(V, { payment: 'deferred', delayMs: 60_000, outcome: 'pos_config_missing' });
      expect(await client.forwardPayment(V, '1002', { paymentId: 'pay-3', type: 'full', amount: 40.4, tip: 0, ...card })).toEqual({ status: 'pending' });
      await sim.control.advanceClock(61_000);
      expect(await client.paymentStatus(V, '1002', 'pay-3')).toEqual({ status: 'failed', failureCode: 'pos_config_missing' });
    });

    it('(DESIGN 6.2) 409 is failed with failureCode pos_check_not_found (the order is closed)', async () => {
      const answer = await client.forwardPayment(V, '1003', { paymentId: 'pay-4', type: 'full', amount: 24.5, tip: 0, ...card });
      expect(answer).toEqual({ status: 'failed', failureCode: 'pos_check_not_found' });
      expect((await lastRequest(sim)).status).toBe(409);
      expect(await client.paymentStatus(V, '1003', 'pay-4')).toEqual({ status: 'failed', failureCode: 'pos_check_not_found' });
    });

    it('(DESIGN 6.2) 422 is failed with its failureCode: pos_overpaid, pos_config_missing', async () => {
      const over = await client.forwardPayment(V, '1002', { paymentId: 'pay-5', type: 'partial', amount: 100, tip: 0, ...card });
      expect(over).toEqual({ status: 'failed', failureCode: 'pos_overpaid' });
      expect((await lastRequest(sim)).status).toBe(422);

      await sim.control.setBehaviour(V, { payment: 'reject', failureCode: 'pos_config_missing' });
      const refused = await client.forwardPayment(V, '1002', { paymentId: 'pay-6', type: 'full', amount: 40.4, tip: 0, currency: null, paymentMethod: null });
      expect(refused).toEqual({ status: 'failed', failureCode: 'pos_config_missing' });
      expect((await lastRequest(sim)).status).toBe(422);
      expect((await lastRequest(sim)).body).toEqual({ paymentId: 'pay-6', type: 'full', amount: 40.4, tip: 0, currency: null, paymentMethod: null });
    });

    it('[DES-081] the same paymentId forwarded twice gets the same answer and is applied once', async () => {
      const input = { paymentId: 'pay-7', type: 'partial' as const, amount: 20, tip: 0, ...card };
      expect(await client.forwardPayment(V, '1002', input)).toEqual({ status: 'confirmed' });
      expect(await client.forwardPayment(V, '1002', input)).toEqual({ status: 'confirmed' });
      const order = await sim.control.getOrder(V, '1002');
      expect(order.payments.map((p) => [p.paymentId, p.amount, p.status])).toEqual([['pay-7', 20, 'confirmed']]);
    });

    it('(DESIGN 6.2) paymentStatus of a payment the POS does not know is a status error 404', async () => {
      const err = await rejection(client.paymentStatus(V, '1001', 'never-sent'));
      expect(err).toMatchObject({ kind: 'status', status: 404 });
    });
  });

  describe('auth', () => {
    it('[POS-01] [DES-073] every call of every method carries Authorization: Bearer <the type\'s apiKey>', async () => {
      await client.listTables(V);
      await client.createOrder(V, { tables: ['102'], prepayment: 0, items: [{ sku: 'ESP', quantity: 1 }] });
      await client.createOrder(V, { tables: ['106'], prepayment: 0, items: [{ sku: 'NOPE', quantity: 1 }] });
      await client.listOrders(V, { status: 'open' });
      await client.getOrder(V, '1001');
      await client.getOrder(V, 'missing');
      await client.openOrderForTable(V, '103');
      await client.forwardPayment(V, '1001', { paymentId: 'p-auth', type: 'full', amount: 73.65, tip: 0, currency: 'EUR', paymentMethod: 'card' });
      await client.forwardPayment(V, '1003', { paymentId: 'p-auth-2', type: 'full', amount: 1, tip: 0, currency: 'EUR', paymentMethod: 'card' });
      await client.paymentStatus(V, '1001', 'p-auth');

      const log = await sim.control.requests(V);
      expect(log.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `GET /venue/${V}/tables 200`,
        `POST /venue/${V}/orders 201`,
        `POST /venue/${V}/orders 422`,
        `GET /venue/${V}/orders 200`,
        `GET /venue/${V}/orders/1001 200`,
        `GET /venue/${V}/orders/missing 404`,
        `GET /venue/${V}/orders 200`,
        `POST /venue/${V}/orders/1001/payments 200`,
        `POST /venue/${V}/orders/1003/payments 409`,
        `GET /venue/${V}/orders/1001/payments/p-auth 200`,
      ]);
      for (const r of log) expect(r.headers.authorization, `${r.method} ${r.path}`).toBe(`Bearer ${sim.apiKey}`);
    });

    it('[DES-073] a client configured with another key sends that key; the POS refuses it and the client reports status 401', async () => {
      const wrong = new PosClient({ code: 'sim', baseUrl: sim.baseUrl, apiKey: 'not-the-key', ca: sim.ca }, { timeoutMs: TIMEOUT_MS });
      try {
        const err = await rejection(wrong.listTables(V));
        expect(err).toMatchObject({ kind: 'status', status: 401 });
        expect((await lastRequest(sim)).headers.authorization).toBe('Bearer not-the-key');
      } finally {
        await wrong.close();
      }
    });
  });

  describe('[DES-080] forwarding failures', () => {
    it('[DES-080] a POS answering 5xx is a PosError of kind status carrying the status', async () => {
      await sim.control.setBehaviour(V, { payment: 'error5xx' });
      const err = await rejection(client.forwardPayment(V, '1001', { paymentId: 'p5', type: 'full', amount: 73.65, tip: 0, currency: 'EUR', paymentMethod: 'card' }));
      expect(err).toMatchObject({ kind: 'status', status: 503 });
      expect(err.message).toMatch(/503/);
      // Nothing was recorded: the same paymentId can be sent again once the POS is back.
      await sim.control.setBehaviour(V, { payment: 'immediate' });
      expect(await client.forwardPayment(V, '1001', { paymentId: 'p5', type: 'full', amount: 73.65, tip: 0, currency: 'EUR', paymentMethod: 'card' })).toEqual({ status: 'confirmed' });
    });

    it('[DES-080] a hanging POS is a PosError of kind timeout, after about the configured limit', { timeout: 15_000 }, async () => {
      await sim.control.setBehaviour(V, { payment: 'hang' });
      const err = await rejection(client.forwardPayment(V, '1001', { paymentId: 'ph', type: 'full', amount: 73.65, tip: 0, currency: 'EUR', paymentMethod: 'card' }));
      expect(err.kind).toBe('timeout');
      // The POS did receive it and never answered.
      expect((await lastRequest(sim)).status).toBeUndefined();
      // The client is still usable afterwards.
      expect(await client.listTables(V)).toHaveLength(6);
    });
  });
});

describe('[DES-080] transport failures', () => {
  it('[DES-080] a refused connection (nobody listens on the port) is a PosError of kind unreachable', async () => {
    const port = await unusedPort();
    const client = new PosClient({ code: 'gone', baseUrl: `https://127.0.0.1:${port}`, apiKey: 'k', ca: undefined }, { timeoutMs: TIMEOUT_MS });
    try {
      expect(await rejection(client.listTables('v'))).toMatchObject({ kind: 'unreachable' });
      const err = await rejection(client.forwardPayment('v', 'o', { paymentId: 'p', type: 'full', amount: 1, tip: 0, currency: 'EUR', paymentMethod: null }));
      expect(err.kind).toBe('unreachable');
      expect(err.message).toMatch(/ECONNREFUSED/);
    } finally {
      await client.close();
    }
  });

  it('[DES-080] a server that accepts the connection and never says a word is a PosError of kind timeout', { timeout: 15_000 }, async () => {
    const silent = await startSilentServer();
    const client = new PosClient({ code: 'silent', baseUrl: silent.baseUrl, apiKey: 'k', ca: undefined }, { timeoutMs: TIMEOUT_MS });
    try {
      expect(await rejection(client.listTables('v'))).toMatchObject({ kind: 'timeout' });
    } finally {
      await silent.close();
      await client.close();
    }
  });

  it('[DES-080] the whole-call limit also bounds a stalled TLS handshake, whatever the connect timeout', { timeout: 10_000 }, async () => {
    // With a connect timeout far beyond the test's own time limit, only the whole-call limit can end this call in time.
    const silent = await startSilentServer();
    const client = new PosClient({ code: 'silent', baseUrl: silent.baseUrl, apiKey: 'k', ca: undefined }, { timeoutMs: TIMEOUT_MS, connectTimeoutMs: 60_000 });
    try {
      const err = await rejection(client.forwardPayment('v', 'o', { paymentId: 'p', type: 'full', amount: 1, tip: 0, currency: 'EUR', paymentMethod: null }));
      expect(err.kind).toBe('timeout');
      expect(err.message).toMatch(/did not answer within/);
    } finally {
      await silent.close(); // ends the stalled handshake, so the client can close
      await client.close();
    }
  });

  it('[TRN-04] a POS type with a plain http:// base URL is refused by parsePosType', () => {
    const entry = {
      code: 'plain', name: 'Plain', baseUrl: 'http://127.0.0.1:8080', apiKey: 'k',
      billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate',
    };
    expect(() => parsePosType(entry, 0)).toThrow(PosTypesError);
    expect(() => parsePosType(entry, 0)).toThrow(/entry 0 \("plain"\).*baseUrl.*https/);
    expect(parsePosType({ ...entry, baseUrl: 'https://127.0.0.1:8443' }, 0).baseUrl).toBe('https://127.0.0.1:8443');
  });
});

describe('[DES-080] answers that break the contract (fake POS)', () => {
  let fake: FakePos;
  let client: PosClient;

  beforeAll(async () => {
    fake = await startFakePos();
    client = new PosClient({ code: 'fake', baseUrl: fake.baseUrl, apiKey: fake.apiKey, ca: fake.ca }, { timeoutMs: TIMEOUT_MS });
  });
  afterAll(async () => {
    await client.close();
    await fake.close();
  });

  const checkOf = (over: Record<string, unknown> = {}) => ({
    checkNumber: '7', status: 'open', totalAmount: 12.5, tax: 0, tip: 0, discount: 0, paymentMethod: '',
    items: [{ id: 1, name: 'Soup', price: 12.5, quantity: 1 }],
    ...over,
  });
  const orderOf = (over: Record<string, unknown> = {}) => ({
    id: '77', status: 'open', tables: ['101'], partySize: 2, guestName: 'Test',
    checks: [checkOf()],
    createdAt: '2025-03-01T19:30:00.000+01:00', updatedAt: '2025-03-01T19:30:00.000+01:00', closedAt: null,
    ...over,
  });
  const withoutChecks = () => {
    const { checks: _checks, ...rest } = orderOf();
    return rest;
  };
  const pay = { paymentId: 'p', type: 'full' as const, amount: 12.5, tip: 0, currency: 'EUR', paymentMethod: 'card' };

  type Call = (c: PosClient) => Promise<unknown>;
  const listTables: Call = (c) => c.listTables('v');
  const listOrders: Call = (c) => c.listOrders('v');
  const getOrder: Call = (c) => c.getOrder('v', '77');
  const createOrder: Call = (c) => c.createOrder('v', { tables: ['101'], prepayment: 0 });
  const forward: Call = (c) => c.forwardPayment('v', '77', pay);
  const status: Call = (c) => c.paymentStatus('v', '77', 'p');

  it('(sanity) the fake serves a well-formed answer that the client accepts, and receives the Bearer key', async () => {
    fake.reply({ body: orderOf() });
    expect(await client.getOrder('v', '77')).toEqual(orderOf());
    expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', url: '/venue/v/orders/77' });
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
  });

  const cases: Array<[string, Call, FakeReply, PosErrorKind, RegExp]> = [
    ['tables: a body that is not JSON', listTables, { raw: '<html>oops</html>', contentType: 'text/html' }, 'bad_json', /not JSON/],
    ['order: a body that is not JSON', getOrder, { raw: '{"id": "77", ', contentType: 'application/json' }, 'bad_json', /not JSON/],
    ['payment: a 200 body that is not JSON', forward, { raw: 'OK' }, 'bad_json', /not JSON/],
    ['tables: an empty 200 body', listTables, { raw: '' }, 'bad_shape', /answer must be an array/],
    ['tables: a table id that is a number', listTables, { body: [{ id: 101, name: 'Table 1' }] }, 'bad_shape', /\[0\]\.id must be a string/],
    ['tables: a table without name', listTables, { body: [{ id: '101' }] }, 'bad_shape', /\[0\]\.name is required/],
    ['tables: the same table id twice', listTables, { body: [{ id: '101', name: 'A' }, { id: '101', name: 'B' }] }, 'bad_shape', /table id 101 is listed twice/],
    ['order: no checks', getOrder, { body: withoutChecks() }, 'bad_shape', /checks is required/],
    ['order: totalAmount as a string', getOrder, { body: orderOf({ checks: [checkOf({ totalAmount: '12.50' })] }) }, 'bad_shape', /checks\[0\]\.totalAmount must be a number/],
    ['order: a status neither open nor closed', getOrder, { body: orderOf({ status: 'void' }) }, 'bad_shape', /status must be one of/],
    ['order: a table id that is a number', getOrder, { body: orderOf({ tables: [101] }) }, 'bad_shape', /tables\[0\] must be a string/],
    ['order: a timestamp that is not ISO 8601', getOrder, { body: orderOf({ updatedAt: 'yesterday' }) }, 'bad_shape', /updatedAt must be an ISO 8601/],
    ['order list: an order without checks', listOrders, { body: [orderOf(), withoutChecks()] }, 'bad_shape', /\[1\]\.checks is required/],
    ['order list: an item quantity that is not an integer', listOrders, { body: [orderOf({ checks: [checkOf({ items: [{ id: 1, name: 'x', price: 1, quantity: 1.5 }] })] })] }, 'bad_shape', /items\[0\]\.quantity must be an integer/],
    ['create: an answer without checkNumber', createOrder, { status: 201, body: { id: '77' } }, 'bad_shape', /checkNumber is required/],
    ['create: a 422 whose unknownSkus is not a list of strings', createOrder, { status: 422, body: { error: 'bad', unknownSkus: 'NOPE' } }, 'bad_shape', /unknownSkus must be an array/],
    ['payment: 200 with status failed (contradicts the code)', forward, { status: 200, body: { status: 'failed', failureCode: 'pos_overpaid' } }, 'bad_shape', /status "failed" does not match HTTP 200/],
    ['payment: 202 with status confirmed (contradicts the code)', forward, { status: 202, body: { status: 'confirmed' } }, 'bad_shape', /status "confirmed" does not match HTTP 202/],
    ['payment: 422 with status confirmed (contradicts the code)', forward, { status: 422, body: { status: 'confirmed' } }, 'bad_shape', /status "confirmed" does not match HTTP 422/],
    ['payment: 422 failed without failureCode', forward, { status: 422, body: { status: 'failed' } }, 'bad_shape', /failureCode/],
    ['payment: 409 failed with a null failureCode', forward, { status: 409, body: { status: 'failed', failureCode: null } }, 'bad_shape', /failureCode/],
    ['payment: a status that is not pending/confirmed/failed', forward, { status: 200, body: { status: 'ok' } }, 'bad_shape', /status must be one of/],
    ['payment status: failed without failureCode', status, { status: 200, body: { status: 'failed' } }, 'bad_shape', /failureCode/],
    ['payment status: no status at all', status, { status: 200, body: { paymentId: 'p' } }, 'bad_shape', /status is required/],
    ['payment: a 422 refusal whose body is not JSON', forward, { status: 422, raw: 'Unprocessable', contentType: 'text/plain' }, 'bad_shape', /answer must be an object/],
  ];

  test.each(cases)('[DES-080] %s → PosError %s naming what was wrong', async (_name, call, reply, kind, message) => {
    fake.reply(reply);
    const err = await rejection(call(client));
    expect(err.kind).toBe(kind);
    expect(err.message).toMatch(message);
  });

  it('[DES-082] [DES-080] openOrdersForTable checks the table\'s open orders in full and of the others only id, status and tables', async () => {
    const other = orderOf({ id: '78', tables: ['102'], updatedAt: 'yesterday', checks: 'none' });
    fake.reply({ body: [other, orderOf(), orderOf({ id: '79', status: 'closed' })] });
    expect(await client.openOrdersForTable('v', '101')).toEqual([orderOf()]);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', url: '/venue/v/orders?status=open' });
    // The table's own order is refused as any order is, naming its place in the list.
    fake.reply({ body: [other, orderOf({ updatedAt: 'yesterday' })] });
    const err = await rejection(client.openOrdersForTable('v', '101'));
    expect(err.kind).toBe('bad_shape');
    expect(err.message).toMatch(/\[1\].*updatedAt must be an ISO 8601/);
    // What finds the table's order is checked for every order.
    fake.reply({ body: [orderOf({ id: '78', tables: [102] }), orderOf()] });
    expect((await rejection(client.openOrdersForTable('v', '101'))).message).toMatch(/\[0\]\.tables\[0\] must be a string/);
  });

  it('[DES-080] an answer of the same bytes again is checked as the first was: its malformed order is refused every time, and a sound one found every time', async () => {
    fake.reply({ body: [orderOf({ id: '78', tables: ['102'], updatedAt: 'yesterday' }), orderOf()] });
    for (let i = 0; i < 3; i++) {
      expect((await rejection(client.openOrdersForTable('v', '102'))).message).toMatch(/\[0\].*updatedAt must be an ISO 8601/);
      expect(await client.openOrdersForTable('v', '101')).toEqual([orderOf()]);
    }
  });

  const statusCases: Array<[string, Call, FakeReply, number]> = [
    ['tables: 503 with a JSON error', listTables, { status: 503, body: { error: 'maintenance' } }, 503],
    ['payment: 500 with an empty body', forward, { status: 500, raw: '' }, 500],
    ['payment: 502 with an HTML page from a proxy', forward, { status: 502, raw: '<html><body>Bad Gateway</body></html>', contentType: 'text/html' }, 502],
    ['order: 504 with a plain-text body', getOrder, { status: 504, raw: 'Gateway Timeout', contentType: 'text/plain' }, 504],
    ['create: 422 that is not an unknown-sku answer', createOrder, { status: 422, body: { error: 'unknown table', unknownTables: ['101'] } }, 422],
    ['create: 400', createOrder, { status: 400, body: { error: 'bad request' } }, 400],
    ['payment: 404', forward, { status: 404, body: { error: 'no such order' } }, 404],
  ];

  test.each(statusCases)('[DES-080] %s → PosError status with that status', async (_name, call, reply, code) => {
    fake.reply(reply);
    const err = await rejection(call(client));
    expect(err).toMatchObject({ kind: 'status', status: code });
    expect(err.message).toMatch(String(code));
  });

  it('[DES-080] a POS that sends headers and then stalls the body is a PosError of kind timeout', { timeout: 15_000 }, async () => {
    fake.reply({ body: orderOf(), stallBody: true });
    expect(await rejection(client.getOrder('v', '77'))).toMatchObject({ kind: 'timeout' });
  });

  it('[DES-080] a POS that completes TLS, reads the request and never answers is a PosError of kind timeout', { timeout: 15_000 }, async () => {
    fake.reply({ hang: true });
    expect(await rejection(client.forwardPayment('v', '77', pay))).toMatchObject({ kind: 'timeout' });
    // And the next call on the same client still works.
    fake.reply({ body: [{ id: '1', name: 'One' }] });
    expect(await client.listTables('v')).toEqual([{ id: '1', name: 'One' }]);
  });

  describe('[BILL-25] live bills of one venue share the open-order read', () => {
    /** A POS answer held in transit until `release` (the fake computes it when the request arrives). */
    function gate() {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      return { held, release };
    }
    const arrived = (n: number) => vi.waitFor(() => expect(fake.requests.length).toBe(n));
    const onTable = (id: string, table: string) => orderOf({ id, tables: [table] });

    it('[BILL-25] a bill never shares a POS read already in flight when it asked: an order opened on the POS before it asked is in its answer', async () => {
      const before = fake.requests.length;
      const first = gate();
      let open = [onTable('1', '101')];
      fake.reply(() => ({ body: open, heldUntil: first.held }));
      const earlier = client.openOrdersForTable('v', '101');
      await arrived(before + 1);
      // The POS has answered the earlier read (without it) and a guest opens an order on table 102 before the next bill is asked.
      open = [...open, onTable('2', '102')];
      const later = client.openOrdersForTable('v', '102');
      first.release();
      expect(await earlier).toEqual([onTable('1', '101')]);
      expect(await later).toEqual([onTable('2', '102')]);
      expect(fake.requests.length).toBe(before + 2);
    });

    it('[BILL-25] bills asked while a read is in flight share one read, sent after they asked, each getting its own table\'s orders', async () => {
      const before = fake.requests.length;
      const first = gate();
      const open = [onTable('1', '101'), onTable('2', '102'), orderOf({ id: '3', tables: ['103', '104'] })];
      fake.reply(() => ({ body: open, heldUntil: first.held }));
      const earlier = client.openOrdersForTable('v', '101');
      await arrived(before + 1);
      const waiting = ['101', '102', '103', '104', '105'].map((t) => client.openOrdersForTable('v', t));
      first.release();
      expect(await earlier).toEqual([onTable('1', '101')]);
      expect(await Promise.all(waiting)).toEqual([[onTable('1', '101')], [onTable('2', '102')], [open[2]], [open[2]], []]);
      // One read for the first bill, one shared by the five that asked while it was in flight.
      expect(fake.requests.length).toBe(before + 2);
      expect(fake.requests.slice(before).map((r) => r.url)).toEqual(['/venue/v/orders?status=open', '/venue/v/orders?status=open']);
    });

    it('[BILL-25] every live read asks the POS; an answer of the same bytes as the venue\'s last one is that same list, not parsed again, and a changed one is read as it is', async () => {
      const before = fake.requests.length;
      fake.reply({ body: [onTable('1', '101'), onTable('2', '102')] });
      const [first] = await client.openOrdersForTable('v', '101');
      const [again] = await client.openOrdersForTable('v', '101');
      expect(again).toEqual(onTable('1', '101'));
      expect(again).toBe(first);
      // The guest on 101 ordered more: the POS's answer changed, and so does the bill's.
      const more = orderOf({ id: '1', tables: ['101'], updatedAt: '2025-03-01T20:00:00.000+01:00' });
      fake.reply({ body: [more, onTable('2', '102')] });
      const [changed] = await client.openOrdersForTable('v', '101');
      expect(changed).toEqual(more);
      expect(changed).not.toBe(first);
      expect(fake.requests.length).toBe(before + 3);
    });

    const failures: Array<[string, FakeReply]> = [
      ['429 Too Many Requests', { status: 429, body: { error: 'slow down' } }],
      ['500 with an HTML page', { status: 500, raw: '<html>oops</html>', contentType: 'text/html' }],
      ['200 with a body that is not JSON', { status: 200, raw: 'not json', contentType: 'text/plain' }],
      ['an order list whose table ids are numbers', { body: [orderOf({ tables: [101] })] }],
    ];
    test.each(failures)('[DES-080] a shared read answered %s fails every bill that shared it with the PosError its own read would get', async (_name, failure) => {
      fake.reply(failure);
      const alone = await rejection(client.openOrdersForTable('v', '101'));
      const before = fake.requests.length;
      const first = gate();
      fake.reply({ body: [onTable('1', '101')], heldUntil: first.held });
      const earlier = client.openOrdersForTable('v', '101');
      await arrived(before + 1);
      const waiting = ['101', '102', '103'].map((t) => rejection(client.openOrdersForTable('v', t)));
      fake.reply(failure);
      first.release();
      expect(await earlier).toEqual([onTable('1', '101')]);
      for (const err of await Promise.all(waiting)) expect({ kind: err.kind, status: err.status, message: err.message }).toEqual({ kind: alone.kind, status: alone.status, message: alone.message });
      expect(fake.requests.length).toBe(before + 2);
    });

    it('[DES-080] a bill waiting behind a read that hangs keeps its own whole-call limit: a timeout, as its own read would give', { timeout: 15_000 }, async () => {
      fake.reply({ hang: true });
      const alone = await rejection(client.openOrdersForTable('v', '101'));
      expect(alone.kind).toBe('timeout');
      const before = fake.requests.length;
      const earlier = rejection(client.openOrdersForTable('v', '101'));
      await arrived(before + 1);
      const waiting = await rejection(client.openOrdersForTable('v', '102'));
      expect({ kind: waiting.kind, message: waiting.message }).toEqual({ kind: alone.kind, message: alone.message });
      expect((await earlier).kind).toBe('timeout');
    });
  });
});
