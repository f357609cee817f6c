// The payment extension of DESIGN 6.2 as the simulator implements it, and its behaviour knobs.
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FailureCode } from '../../pos-simulator/src/index.ts';
import { DAY_MS, harness, smallVenue, type SimHarness } from './sim-helpers.ts';
import { eventually } from '../helpers/eventually.ts';

let h: SimHarness;
beforeEach(async () => {
  h = await harness();
  await smallVenue(h);
});
afterEach(() => h.close());

/** An open order of 20.00 (B × 2) on T1, optionally with a prepayment. */
async function order20(prepayment = 0): Promise<string> {
  return (await h.sim.control.openOrder('v1', { tables: ['T1'], prepayment, checks: [{ items: [{ sku: 'B', quantity: 2 }] }] })).id;
}
const pay = (orderId: string, body: Record<string, unknown>) => h.call('POST', `/venue/v1/orders/${orderId}/payments`, { tip: 0, currency: 'EUR', paymentMethod: 'card', ...body });
const status = (orderId: string, paymentId: string) => h.call('GET', `/venue/v1/orders/${orderId}/payments/${paymentId}`);
const order = async (orderId: string) => (await h.call('GET', `/venue/v1/orders/${orderId}`)).body;

describe('forwarding (DESIGN 6.2)', () => {
  it('(DESIGN 6.2) partials accumulate Σ(amount − tip) and close the order at the balance (prepayment counted); tips land on the check', async () => {
    const id = await order20(5);
    const first = await pay(id, { paymentId: 'p1', type: 'partial', amount: 10, tip: 2, paymentMethod: 'card' });
    expect(first).toMatchObject({ status: 200, body: { status: 'confirmed' } });
    expect((await order(id)).status).toBe('open');
    const last = await pay(id, { paymentId: 'p2', type: 'partial', amount: 7, tip: 0, paymentMethod: 'cash' });
    expect(last.body).toEqual({ status: 'confirmed' });
    const closed = await order(id);
    expect(closed).toMatchObject({ status: 'closed', closedAt: expect.any(String) });
    expect(closed.checks[0]).toMatchObject({ status: 'closed', tip: 2, paymentMethod: 'card, cash', closedAt: expect.any(String) });
  });

  it('(DESIGN 6.2) staff closing an order at the till keep the tip of a partial already confirmed', async () => {
    const id = await order20();
    expect((await pay(id, { paymentId: 'tip', type: 'partial', amount: 6, tip: 1 })).body).toEqual({ status: 'confirmed' });
    await h.sim.control.closeOrder('v1', id, { paymentMethod: 'cash' });
    expect((await order(id)).checks[0]).toMatchObject({ status: 'closed', tip: 1, paymentMethod: 'cash' });
  });

  it('(DESIGN 6.2) a partial over the outstanding balance fails pos_overpaid (422); a payment on a closed or unknown order fails pos_check_not_found (409)', async () => {
    const id = await order20();
    expect(await pay(id, { paymentId: 'big', type: 'partial', amount: 20.01 })).toMatchObject({ status: 422, body: { status: 'failed', failureCode: 'pos_overpaid' } });
    expect((await order(id)).status).toBe('open');
    await h.sim.control.closeOrder('v1', id, { paymentMethod: 'cash' });
    expect(await pay(id, { paymentId: 'late', type: 'full', amount: 20 })).toMatchObject({ status: 409, body: { status: 'failed', failureCode: 'pos_check_not_found' } });
    expect(await pay('424242', { paymentId: 'ghost', type: 'full', amount: 1 })).toMatchObject({ status: 409, body: { status: 'failed', failureCode: 'pos_check_not_found' } });
    expect((await status(id, 'late')).body).toMatchObject({ status: 'failed', failureCode: 'pos_check_not_found' });
  });

  it('(DESIGN 6.2) invalid payment bodies are 400: tip above amount, missing paymentId, unknown type, too many decimals', async () => {
    const id = await order20();
    for (const body of [
      { paymentId: 'a', type: 'full', amount: 1, tip: 2 },
      { type: 'full', amount: 1 },
      { paymentId: 'b', type: 'half', amount: 1 },
      { paymentId: 'c', type: 'full', amount: 1.001 },
    ]) expect((await h.call('POST', `/venue/v1/orders/${id}/payments`, body)).status, JSON.stringify(body)).toBe(400);
  });
});

describe('idempotency', () => {
  it('[DES-081] the same paymentId sent twice is applied once (partial replay does not double-count)', async () => {
    const id = await order20();
    expect((await pay(id, { paymentId: 'p1', type: 'partial', amount: 12 })).body).toEqual({ status: 'confirmed' });
    expect(await pay(id, { paymentId: 'p1', type: 'partial', amount: 12 })).toMatchObject({ status: 200, body: { status: 'confirmed' } });
    const o = await order(id);
    expect(o.status).toBe('open');
    expect(o.payments.filter((p: { paymentId: string }) => p.paymentId === 'p1')).toHaveLength(1);
    // Had p1 counted twice, 8 more would be overpaid; it closes the order exactly.
    expect((await pay(id, { paymentId: 'p2', type: 'partial', amount: 8 })).body).toEqual({ status: 'confirmed' });
    expect((await order(id)).status).toBe('closed');
    // A replay after closure answers the payment's state, it is not tried again on the closed order.
    expect(await pay(id, { paymentId: 'p2', type: 'partial', amount: 8 })).toMatchObject({ status: 200, body: { status: 'confirmed' } });
  });

  it('[DES-081] a replay while pending answers 202 pending and the payment applies once when it confirms', async () => {
    await h.sim.control.setClock({ frozen: true });
    await h.sim.control.setBehaviour('v1', { payment: 'deferred', delayMs: 5_000, outcome: 'confirmed' });
    const id = await order20();
    expect((await pay(id, { paymentId: 'd1', type: 'partial', amount: 15 })).status).toBe(202);
    expect(await pay(id, { paymentId: 'd1', type: 'partial', amount: 15 })).toMatchObject({ status: 202, body: { status: 'pending' } });
    await h.sim.control.advanceClock(5_000);
    expect((await status(id, 'd1')).body.status).toBe('confirmed');
    const o = await order(id);
    expect(o.status).toBe('open');
    expect(o.payments).toHaveLength(1);
  });
});

describe('behaviour knobs', () => {
  it('[DES-088] immediate: 200 confirmed at once, a full payment closes the order with its method and tip on the check', async () => {
    await h.sim.control.setBehaviour('v1', { payment: 'immediate' });
    const id = await order20();
    const res = await pay(id, { paymentId: 'f1', type: 'full', amount: 23, tip: 3, paymentMethod: 'visa' });
    expect(res).toMatchObject({ status: 200, body: { status: 'confirmed' } });
    const o = await order(id);
    expect(o.status).toBe('closed');
    expect(o.checks[0]).toMatchObject({ status: 'closed', paymentMethod: 'visa', tip: 3 });
    expect((await status(id, 'f1'))).toMatchObject({ status: 200, body: { status: 'confirmed' } });
  });

  it('[DES-088] deferred with a delay: 202 pending, then confirmed once the delay has passed on the simulator clock', async () => {
    await h.sim.control.setClock({ frozen: true });
    await h.sim.control.setBehaviour('v1', { payment: 'deferred', delayMs: 2_000, outcome: 'confirmed' });
    const id = await order20();
    expect(await pay(id, { paymentId: 'd', type: 'full', amount: 20 })).toMatchObject({ status: 202, body: { status: 'pending' } });
    expect((await status(id, 'd')).body).toEqual(expect.objectContaining({ status: 'pending' }));
    expect((await order(id)).status).toBe('open');
    await h.sim.control.advanceClock(1_999);
    expect((await status(id, 'd')).body.status).toBe('pending');
    await h.sim.control.advanceClock(1);
    expect((await status(id, 'd')).body.status).toBe('confirmed');
    expect((await order(id)).status).toBe('closed');
  });

  it('[DES-088] deferred on the running clock: the payment turns confirmed by itself', async () => {
    await h.sim.control.setBehaviour('v1', { payment: 'deferred', delayMs: 50, outcome: 'confirmed' });
    const id = await order20();
    expect((await pay(id, { paymentId: 'r', type: 'full', amount: 20 })).status).toBe(202);
    await eventually(async () => expect((await status(id, 'r')).body.status).toBe('confirmed'), { what: 'the deferred confirmation' });
  });

  it.each(['pos_check_not_found', 'pos_overpaid', 'pos_config_missing'] as FailureCode[])(
    '[DES-088] deferred with outcome %s: pending, then failed with that code; the order stays open',
    async (code) => {
      await h.sim.control.setClock({ frozen: true });
      await h.sim.control.setBehaviour('v1', { payment: 'deferred', delayMs: 1_000, outcome: code });
      const id = await order20();
      expect((await pay(id, { paymentId: 'x', type: 'full', amount: 20 })).status).toBe(202);
      await h.sim.control.advanceClock(1_000);
      expect((await status(id, 'x')).body).toMatchObject({ status: 'failed', failureCode: code });
      expect((await order(id)).status).toBe('open');
    },
  );

  it('[DES-088] deferred with delayMs null stays pending forever', async () => {
    await h.sim.control.setClock({ frozen: true });
    await h.sim.control.setBehaviour('v1', { payment: 'deferred', delayMs: null, outcome: 'confirmed' });
    const id = await order20();
    expect((await pay(id, { paymentId: 'n', type: 'full', amount: 20 })).status).toBe(202);
    await h.sim.control.advanceClock(DAY_MS);
    expect((await status(id, 'n')).body.status).toBe('pending');
  });

  it.each([
    ['pos_check_not_found', 409],
    ['pos_overpaid', 422],
    ['pos_config_missing', 422],
  ] as Array<[FailureCode, number]>)('[DES-088] reject with %s answers %i {status: failed, failureCode}', async (code, httpStatus) => {
    await h.sim.control.setBehaviour('v1', { payment: 'reject', failureCode: code });
    const id = await order20();
    expect(await pay(id, { paymentId: 'j', type: 'full', amount: 20 })).toMatchObject({ status: httpStatus, body: { status: 'failed', failureCode: code } });
    expect((await status(id, 'j')).body).toMatchObject({ status: 'failed', failureCode: code });
    expect((await order(id)).status).toBe('open');
  });

  it('[DES-088] error5xx: 503 with a JSON body and nothing recorded; the same paymentId goes through once the POS is back', async () => {
    await h.sim.control.setBehaviour('v1', { payment: 'error5xx' });
    const id = await order20();
    const res = await pay(id, { paymentId: 'e', type: 'full', amount: 20 });
    expect(res.status).toBe(503);
    expect(res.body.error).toEqual(expect.any(String));
    expect((await status(id, 'e')).status).toBe(404);
    await h.sim.control.setBehaviour('v1', { payment: 'immediate' });
    expect((await pay(id, { paymentId: 'e', type: 'full', amount: 20 })).body).toEqual({ status: 'confirmed' });
  });

  it('[DES-088] failNext: the next n forwards answer 503, then the venue behaves normally', async () => {
    await h.sim.control.setBehaviour('v1', { payment: 'immediate', failNext: 2 });
    const id = await order20();
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await pay(id, { paymentId: 'fn', type: 'full', amount: 20 })).status);
    expect(codes).toEqual([503, 503, 200]);
    expect((await h.sim.control.getVenue('v1')).behaviour).toEqual({ payment: 'immediate', failNext: 0 });
  });

  it('[DES-088] hang: the forward is received and never answered; close() still finishes and drops it', async () => {
    await h.sim.control.setBehaviour('v1', { payment: 'hang' });
    const id = await order20();
    const agent = new Agent({ connect: { ca: h.sim.ca } });
    const pending = request(`${h.sim.baseUrl}/venue/v1/orders/${id}/payments`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${h.sim.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ paymentId: 'h', type: 'full', amount: 20 }),
    });
    const outcome = pending.then(() => 'answered', () => 'dropped');
    // The request log shows the forward arrived and has no answer.
    const logged = await eventually(
      async () => (await h.sim.control.requests('v1')).find((r) => r.method === 'POST' && r.path.endsWith('/payments')) ?? false,
      { what: 'the forward in the request log' },
    );
    expect(logged).toMatchObject({ body: { paymentId: 'h' } });
    expect(logged?.status).toBeUndefined();
    expect((await status(id, 'h')).status).toBe(404);
    await h.close();
    expect(await outcome).toBe('dropped');
    await agent.close();
    h = await harness(); // afterEach closes a fresh one
  });
});
