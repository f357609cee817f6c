import http from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';
import { describeEachStore } from '../helpers/db.ts';

// Payments on immediate and non-forwarding venues: shape, validation, closing rules, idempotency.

describeEachStore('payments', (store) => {
  let w: PatWorld;
  let venue: ConnectedVenue;
  let table = 0;

  beforeAll(async () => {
    w = await startPatWorld({ store, autoClose: false });
    venue = await w.connectVenue({ posType: POS.immediate, tables: Array.from({ length: 40 }, (_, i) => ({ id: String(i + 1), name: `T${i + 1}` })) });
  });
  afterAll(async () => {
    await w?.close();
  });

  /** A fresh open order on its own table: two burgers and a wine (35.90), or the given checks. */
  async function newOrder(v: ConnectedVenue = venue, checks: unknown[] = [{ items: [{ sku: 'BURGER', quantity: 2 }, { sku: 'WINE', quantity: 1 }] }]) {
    const posTable = String(++table);
    const posOrder = await w.openOrder(v.posVenueId, { tables: [posTable], partySize: 2, checks: checks as never });
    const bill = await w.bill(v, posTable);
    expect(bill.status).toBe(200);
    return { orderId: bill.body.orderId as string, posOrderId: posOrder.id, posTable, bill: bill.body };
  }

  const ref = (() => {
    let n = 0;
    return (label = 'ref') => `${label}-${Date.now().toString(36)}-${++n}`;
  })();

  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

  describe('a confirmed payment', () => {
    it('[PAY-01] [PAY-02] [PAY-03] [PAY-04] [PAY-05] [PAY-06] [PAY-07] [PAY-08] [PAY-09] [PAY-20] [PAY-32] [DES-042] [DES-044] [DES-038] immediate venue: 200 with the whole payment object', async () => {
      const { orderId } = await newOrder();
      const externalReference = ref();
      const res = await w.pay(venue, orderId, { externalReference, amount: 38.9, type: 'full', tip: 3, currency: 'EUR', paymentMethod: 'visa' });
      expect(res.status).toBe(200);
      expect(res.headers['x-idempotent-replay']).toBeUndefined();
      expect(Object.keys(res.body).sort()).toEqual(
        ['amount', 'confirmedAt', 'currency', 'externalReference', 'failureCode', 'orderId', 'orderStatus', 'paymentId', 'paymentMethod', 'recordedAt', 'status', 'tip', 'type'].sort(),
      );
      expect(res.body).toMatchObject({ orderId, status: 'confirmed', failureCode: null, type: 'full', amount: 38.9, currency: 'EUR', paymentMethod: 'visa', tip: 3, externalReference, orderStatus: 'closed' });
      expect(res.body.paymentId).toMatch(UUID);
      expect(res.body.orderId).toMatch(UUID);
      expect(res.body.recordedAt).toMatch(ISO);
      expect(res.body.confirmedAt).toMatch(ISO);
      expect(typeof res.body.amount).toBe('number');
    });

    it('[PAY-05] currency, paymentMethod and tip are null when omitted', async () => {
      const { orderId } = await newOrder();
      const res = await w.pay(venue, orderId, { externalReference: ref(), amount: 10, type: 'partial' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ currency: null, paymentMethod: null, tip: null, orderStatus: 'open' });
    });

    it('[PAY-17] [PAY-18] [PAY-19] currency other than the venue’s, any paymentMethod, and an amount above totalDue are accepted and echoed', async () => {
      const { orderId } = await newOrder();
      const res = await w.pay(venue, orderId, { externalReference: ref(), amount: 500, type: 'full', currency: 'USD', paymentMethod: 'Apple Pay 💳 / terminal #4' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ currency: 'USD', paymentMethod: 'Apple Pay 💳 / terminal #4', amount: 500 });
    });

    it('[PAY-35] [DES-075] [DES-076] a full payment is forwarded to the POS as the close, with its tip as the final tip', async () => {
      const { orderId, posOrderId } = await newOrder();
      await w.sim.control.clearRequests(venue.posVenueId);
      const res = await w.pay(venue, orderId, { externalReference: ref(), amount: 40.9, type: 'full', tip: 5, currency: 'EUR', paymentMethod: 'card' });
      expect(res.status).toBe(200);
      const forwards = (await w.sim.control.requests(venue.posVenueId)).filter((r) => r.method === 'POST' && r.path.endsWith('/payments'));
      expect(forwards).toHaveLength(1);
      expect(forwards[0].path).toBe(`/venue/${venue.posVenueId}/orders/${posOrderId}/payments`);
      expect(forwards[0].body).toEqual({ paymentId: res.body.paymentId, type: 'full', amount: 40.9, tip: 5, currency: 'EUR', paymentMethod: 'card' });
      const posOrder = await w.sim.control.getOrder(venue.posVenueId, posOrderId);
      expect(posOrder.status).toBe('closed');
      expect(posOrder.checks.reduce((s, c) => s + c.tip, 0)).toBe(5);
    });

    it('[PAY-21] [PAY-22] paymentForwarding false: confirmed at once, recorded internally only (the POS gets no payment call)', async () => {
      const v = await w.connectVenue({ posType: POS.noForwarding });
      const posOrder = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 4 }] }] });
      const bill = await w.bill(v, '1');
      await w.sim.control.clearRequests(v.posVenueId);
      const res = await w.pay(v, bill.body.orderId, { externalReference: ref(), amount: 10, type: 'full' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
      expect(res.body.confirmedAt).toMatch(ISO);
      const calls = await w.sim.control.requests(v.posVenueId);
      expect(calls.filter((r) => r.path.includes('/payments'))).toEqual([]);
      expect((await w.sim.control.getOrder(v.posVenueId, posOrder.id)).status).toBe('open');
      expect((await w.bill(v, '1')).status).toBe(404);
    });
  });

  describe('validation', () => {
    it('[PAY-10] [ERR-01] [ERR-02] [ERR-03] a body missing externalReference, amount and type → 400 naming each field', async () => {
      const { orderId } = await newOrder();
      const res = await w.pay(venue, orderId, {});
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
      expect(Object.keys(res.body.error.details).sort()).toEqual(['amount', 'externalReference', 'type']);
      for (const problems of Object.values(res.body.error.details)) expect(problems).toEqual([expect.any(String)]);
    });

    it.each([
      ['[PAY-11] externalReference not a string', { externalReference: 42, amount: 1, type: 'full' }, 'externalReference'],
      ['[PAY-12] amount 0', { externalReference: 'x', amount: 0, type: 'full' }, 'amount'],
      ['[PAY-12] negative amount', { externalReference: 'x', amount: -5, type: 'full' }, 'amount'],
      ['[PAY-12] [DES-024] non-numeric amount', { externalReference: 'x', amount: '10', type: 'full' }, 'amount'],
      ['[PAY-13] an unknown type', { externalReference: 'x', amount: 1, type: 'half' }, 'type'],
      ['[PAY-14] a negative tip', { externalReference: 'x', amount: 10, tip: -1, type: 'partial' }, 'tip'],
      ['[PAY-16] a currency that is not ISO 4217', { externalReference: 'x', amount: 10, type: 'partial', currency: 'EURO' }, 'currency'],
      ['[LIM-19] an externalReference of 129 characters', { externalReference: 'r'.repeat(129), amount: 10, type: 'partial' }, 'externalReference'],
      ['[DES-039] 10.005 on a EUR venue', { externalReference: 'x', amount: 10.005, type: 'partial' }, 'amount'],
      ['[DES-039] a tip with 3 decimals on a EUR venue', { externalReference: 'x', amount: 10, tip: 0.125, type: 'partial' }, 'tip'],
      ['[DES-121] tip greater than amount', { externalReference: 'x', amount: 5, tip: 6, type: 'partial' }, 'tip'],
    ])('%s → 400 naming the field, nothing recorded', async (_name, body, field) => {
      const { orderId, posTable } = await newOrder();
      const res = await w.pay(venue, orderId, body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toContain(field);
      expect((await w.bill(venue, posTable)).body.totals.paid).toBe(0);
    });

    it('[PAY-15] [LIM-18] tip 0 and an externalReference of 128 characters are accepted', async () => {
      const { orderId } = await newOrder();
      const res = await w.pay(venue, orderId, { externalReference: 'r'.repeat(120) + ref('').slice(-8).padStart(8, 'x'), amount: 1, tip: 0, type: 'partial' });
      expect(res.status).toBe(200);
      expect(res.body.externalReference).toHaveLength(128);
      expect(res.body.tip).toBe(0);
    });

    it('[DES-040] [DES-039] [DES-124] decimals follow the venue’s currency: KWD takes 3 and keeps them exact; JPY takes none, whatever the request’s currency', async () => {
      const kwd = await w.connectVenue({ currency: 'KWD' });
      await w.openOrder(kwd.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
      const kwdBill = await w.bill(kwd, '1');
      const ok = await w.pay(kwd, kwdBill.body.orderId, { externalReference: ref(), amount: 1.234, type: 'partial', currency: 'KWD' });
      expect(ok.status).toBe(200);
      expect(ok.body.amount).toBe(1.234);
      expect((await w.bill(kwd, '1')).body.totals.paid).toBe(1.234);

      const jpy = await w.connectVenue({ currency: 'JPY' });
      await w.openOrder(jpy.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 1 }] }] });
      const jpyBill = await w.bill(jpy, '1');
      const bad = await w.pay(jpy, jpyBill.body.orderId, { externalReference: ref(), amount: 100.5, type: 'partial', currency: 'EUR' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.amount[0]).toMatch(/JPY/);
      const good = await w.pay(jpy, jpyBill.body.orderId, { externalReference: ref(), amount: 100, type: 'partial', currency: 'EUR' });
      expect(good.status).toBe(200);
      expect(good.body.currency).toBe('EUR');
    });
  });

  describe('closing the order (spec 3.2)', () => {
    it('[PAY-37] [PAY-36] [DES-122] partials accumulate amount − tip; the one that reaches the balance closes the order and says so', async () => {
      const { orderId, posTable } = await newOrder(); // 35.90
      const first = await w.pay(venue, orderId, { externalReference: ref(), amount: 12, tip: 2, type: 'partial' });
      expect(first.body.orderStatus).toBe('open');
      expect((await w.bill(venue, posTable)).body.totals).toMatchObject({ paid: 10, totalDue: 25.9 });
      const second = await w.pay(venue, orderId, { externalReference: ref(), amount: 26.9, tip: 1, type: 'partial' }); // 25.90 reached
      expect(second.status).toBe(200);
      expect(second.body.orderStatus).toBe('closed');
      expect((await w.bill(venue, posTable)).status).toBe(404);
    });

    it('[DES-122] a partial that passes the balance is confirmed and closes the order (where the POS does not refuse overpayment)', async () => {
      const v = await w.connectVenue({ posType: POS.noForwarding });
      await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 1 }] }] }); // 14.50
      const bill = await w.bill(v, '1');
      const res = await w.pay(v, bill.body.orderId, { externalReference: ref(), amount: 20, type: 'partial' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
    });

    it('[PAY-37] [PAY-36] [PAY-71] without forwarding too, the answer carries the order status the payment left (open while a balance remains, then closed), as GET does', async () => {
      const v = await w.connectVenue({ posType: POS.noForwarding });
      await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] }); // 29.00
      const { orderId } = (await w.bill(v, '1')).body;
      const firstRef = ref();
      const first = await w.pay(v, orderId, { externalReference: firstRef, amount: 10, type: 'partial' });
      expect(first.body).toMatchObject({ status: 'confirmed', orderStatus: 'open' });
      expect((await w.paymentStatus(v, orderId, firstRef)).body).toEqual(first.body);
      const secondRef = ref();
      const second = await w.pay(v, orderId, { externalReference: secondRef, amount: 19, type: 'partial' });
      expect(second.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
      expect((await w.paymentStatus(v, orderId, secondRef)).body).toEqual(second.body);
    });

    it('[PAY-38] tips are excluded from the running total: amounts that reach the balance only with their tips leave it open', async () => {
      const { orderId, posTable } = await newOrder(); // 35.90
      await w.pay(venue, orderId, { externalReference: ref(), amount: 20, tip: 5, type: 'partial' });
      const second = await w.pay(venue, orderId, { externalReference: ref(), amount: 20, tip: 5, type: 'partial' }); // 40 paid, 30 without tips
      expect(second.body.orderStatus).toBe('open');
      expect((await w.bill(venue, posTable)).body.totals).toMatchObject({ paid: 30, totalDue: 5.9 });
    });

    it('[PAY-39] a prepayment counts toward closing', async () => {
      // A reservation order created through the contract with a deposit of 10.
      const { Agent, request } = await import('undici');
      const agent = new Agent({ connect: { ca: w.sim.ca } });
      const posTable = String(++table);
      const created = await request(`${w.sim.baseUrl}/venue/${venue.posVenueId}/orders`, {
        method: 'POST', dispatcher: agent,
        headers: { authorization: `Bearer ${w.sim.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'resv-1', tables: [posTable], partySize: 2, prepayment: 10, items: [{ sku: 'BURGER', quantity: 2 }] }),
      });
      expect(created.statusCode).toBe(201);
      await agent.close();
      const bill = await w.bill(venue, posTable); // 29.00 - 10.00 prepaid
      expect(bill.body.totals).toMatchObject({ total: 29, prepayment: 10, totalDue: 19 });
      const res = await w.pay(venue, bill.body.orderId, { externalReference: ref(), amount: 19, type: 'partial' });
      expect(res.body.orderStatus).toBe('closed');
    });

    it('[DES-041] partials of 0.10, 0.20 and 0.30 against 0.60 give paid exactly 0.60 and close the order', async () => {
      const { orderId, posTable } = await newOrder(venue, [{ items: [{ name: 'Sweet', price: 0.6, quantity: 1 }] }]);
      await w.pay(venue, orderId, { externalReference: ref(), amount: 0.1, type: 'partial' });
      await w.pay(venue, orderId, { externalReference: ref(), amount: 0.2, type: 'partial' });
      expect((await w.bill(venue, posTable)).body.totals.paid).toBe(0.3);
      const last = await w.pay(venue, orderId, { externalReference: ref(), amount: 0.3, type: 'partial' });
      expect(last.body.orderStatus).toBe('closed');
    });

    it('[PAY-41] a payment on an already closed order → 422', async () => {
      const { orderId } = await newOrder();
      expect((await w.pay(venue, orderId, { externalReference: ref(), amount: 35.9, type: 'full' })).status).toBe(200);
      const res = await w.pay(venue, orderId, { externalReference: ref(), amount: 1, type: 'partial' });
      expect(res.status).toBe(422);
      expect(res.body.error.message).toMatch(/closed/);
    });

    it('[PAY-42] [DES-123] [DES-136] the POS voiding or closing the order since the bill was read → 422 (billRetrieval venue re-reads it)', async () => {
      const voided = await newOrder();
      await w.sim.control.voidOrder(venue.posVenueId, voided.posOrderId);
      const v = await w.pay(venue, voided.orderId, { externalReference: ref(), amount: 5, type: 'partial' });
      expect(v.status).toBe(422);
      expect(v.body.error.message).toMatch(/void/);
      const closed = await newOrder();
      await w.sim.control.closeOrder(venue.posVenueId, closed.posOrderId, { paymentMethod: 'cash' });
      const c = await w.pay(venue, closed.orderId, { externalReference: ref(), amount: 5, type: 'partial' });
      expect(c.status).toBe(422);
    });
  });

  describe('idempotency', () => {
    it('[PAY-43] [PAY-44] [PAY-46] [PAY-48] [PAY-49] the same reference and payload replays the current state, records nothing and forwards nothing', async () => {
      const { orderId, posTable } = await newOrder();
      const body = { externalReference: ref(), amount: 10, tip: 1, type: 'partial', currency: 'EUR' };
      const first = await w.pay(venue, orderId, body);
      expect(first.headers['x-idempotent-replay']).toBeUndefined();
      await w.sim.control.clearRequests(venue.posVenueId);
      const replay = await w.pay(venue, orderId, body);
      expect(replay.status).toBe(200);
      expect(replay.headers['x-idempotent-replay']).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect((await w.sim.control.requests(venue.posVenueId)).filter((r) => r.path.includes('/payments'))).toEqual([]);
      expect((await w.bill(venue, posTable)).body.totals.paid).toBe(9);
      // A later payment closes the order: the replay shows the order's current status.
      await w.pay(venue, orderId, { externalReference: ref(), amount: 26.9, type: 'full' });
      const later = await w.pay(venue, orderId, body);
      expect(later.body.orderStatus).toBe('closed');
      expect(later.headers['x-idempotent-replay']).toBe('true');
    });

    it('[PAY-52] the same reference with a different payload → 409 naming the mismatching fields', async () => {
      const { orderId } = await newOrder();
      const externalReference = ref();
      await w.pay(venue, orderId, { externalReference, amount: 10, type: 'partial' });
      const res = await w.pay(venue, orderId, { externalReference, amount: 11, type: 'partial' });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(/amount/);
    });

    it('[PAY-51] [DES-120] a reference reused on a different order → 409 naming orderId, never a second payment', async () => {
      const a = await newOrder();
      const b = await newOrder();
      const externalReference = ref();
      await w.pay(venue, a.orderId, { externalReference, amount: 10, type: 'partial' });
      const res = await w.pay(venue, b.orderId, { externalReference, amount: 10, type: 'partial' });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(/orderId/);
      expect((await w.bill(venue, b.posTable)).body.totals.paid).toBe(0);
    });

    it('[PAY-50] references are unique per partner: two partners may use the same value', async () => {
      const other = await w.app.newPartner(['pat']);
      const otherVenue = await w.connectVenue({ partner: other });
      await w.openOrder(otherVenue.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 2 }] }] });
      const otherBill = await w.bill(otherVenue, '1', other.token);
      const { orderId } = await newOrder();
      const externalReference = ref('shared');
      const mine = await w.pay(venue, orderId, { externalReference, amount: 3, type: 'partial' });
      const theirs = await w.pay(otherVenue, otherBill.body.orderId, { externalReference, amount: 3, type: 'partial' }, other.token);
      expect(mine.status).toBe(200);
      expect(theirs.status).toBe(200);
      expect(mine.body.paymentId).not.toBe(theirs.body.paymentId);
    });
  });

  describe('not found and out of scope', () => {
    it('[PAY-55] an unknown order, or an order of another venue → 404', async () => {
      const other = await w.connectVenue();
      await w.openOrder(other.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
      const foreign = (await w.bill(other, '1')).body.orderId;
      for (const orderId of ['0198a5c4-1111-7222-8333-444455556666', 'not-a-uuid', foreign]) {
        const res = await w.pay(venue, orderId, { externalReference: ref(), amount: 1, type: 'partial' });
        expect(res.status, orderId).toBe(404);
        expect(res.body.error.message).toMatch(/Order not found/);
      }
    });

    it('[PAY-56] [PAY-74] a venue with no active POS → 404 on payment POST and GET', async () => {
      const created = await w.app.http.post('/v1/pat/venues', {
        token: w.partner.token,
        body: { name: 'Pending onboarding', address: 'x', city: 'Bilbao', postalCode: '48001', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType: POS.immediate },
      });
      const id = created.body.id;
      const post = await w.app.http.post(`/v1/pat/venue/${id}/order/0198a5c4-1111-7222-8333-444455556666/payment`, { token: w.partner.token, body: { externalReference: 'x', amount: 1, type: 'full' } });
      expect(post.status).toBe(404);
      expect(post.body.error.message).toMatch(/no POS connection/i);
      const get = await w.app.http.get(`/v1/pat/venue/${id}/order/0198a5c4-1111-7222-8333-444455556666/payment/x`, { token: w.partner.token });
      expect(get.status).toBe(404);
    });

    it('[AUTH-09] a venue outside the token’s scope → 403 on payment POST and GET', async () => {
      const outsider = await w.app.newPartner(['pat']);
      const { orderId } = await newOrder();
      const post = await w.pay(venue, orderId, { externalReference: ref(), amount: 1, type: 'partial' }, outsider.token);
      expect(post.status).toBe(403);
      const get = await w.paymentStatus(venue, orderId, 'anything', outsider.token);
      expect(get.status).toBe(403);
    });
  });

  describe('payment status', () => {
    it('[PAY-68] [PAY-71] GET returns the same object as the POST, 200 for a confirmed payment', async () => {
      const { orderId } = await newOrder();
      const externalReference = ref();
      const posted = await w.pay(venue, orderId, { externalReference, amount: 5, type: 'partial', paymentMethod: 'card' });
      const got = await w.paymentStatus(venue, orderId, externalReference);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(posted.body);
    });

    it('[PAY-72] [PAY-73] 404 for an unknown order, and a different 404 when the order has no such payment', async () => {
      const a = await newOrder();
      const b = await newOrder();
      const externalReference = ref();
      await w.pay(venue, a.orderId, { externalReference, amount: 5, type: 'partial' });
      const noOrder = await w.paymentStatus(venue, '0198a5c4-1111-7222-8333-444455556666', externalReference);
      expect(noOrder.status).toBe(404);
      const none = await w.paymentStatus(venue, b.orderId, 'never-used');
      const elsewhere = await w.paymentStatus(venue, b.orderId, externalReference);
      expect(none.status).toBe(404);
      expect(elsewhere.status).toBe(404);
      expect(none.body.error.message).not.toBe(noOrder.body.error.message);
      expect(none.body.error.message).toMatch(/No payment/);
      expect(noOrder.body.error.message).toMatch(/Order not found/);
    });
  });

  describe('transport', () => {
    it('[TRN-02] a payment POST over plain HTTP records no payment', async () => {
      const { orderId } = await newOrder();
      const externalReference = ref('plain');
      const body = JSON.stringify({ externalReference, amount: 5, type: 'partial' });
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port: w.app.service.port, method: 'POST', path: `/v1/pat/venue/${venue.venueId}/order/${orderId}/payment`, headers: { authorization: `Bearer ${w.partner.token}`, 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(status).toBe(400);
      expect((await w.paymentStatus(venue, orderId, externalReference)).status).toBe(404);
      const { rows } = await sql`SELECT 1 FROM payments WHERE external_reference = ${externalReference}`.execute(w.app.db.kysely);
      expect(rows).toHaveLength(0);
    });
  });
});
