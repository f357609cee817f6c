import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/lib/clock.ts';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';

// Deferred confirmation (spec 3.1, 4.7; DESIGN 7): the in-request wait, 202 and polling, POS
// rejections after dispatch, the confirmation deadline, late answers. The service runs on a manual
// clock (deadlines move only when the test moves them) and the inline wait is 1.5 s real time.

describeEachStore('deferred payments', (store) => {
  let w: PatWorld;
  let clock: ManualClock;
  let n = 0;
  const ref = () => `d-${Date.now().toString(36)}-${++n}`;

  beforeAll(async () => {
    w = await startPatWorld({ store, autoClose: false, clock: 'manual' });
    clock = w.app.clock as ManualClock;
  });
  afterAll(async () => {
    await w?.close();
  });

  async function venueWith(behaviour: Record<string, unknown>): Promise<ConnectedVenue> {
    return w.connectVenue({ posType: POS.deferred, behaviour: behaviour as never });
  }

  async function orderOn(v: ConnectedVenue, posTable = '1') {
    const posOrder = await w.openOrder(v.posVenueId, { tables: [posTable], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] }); // 29.00
    const bill = await w.bill(v, posTable);
    return { orderId: bill.body.orderId as string, posOrderId: posOrder.id };
  }

  const forwardsTo = async (v: ConnectedVenue) =>
    (await w.sim.control.requests(v.posVenueId)).filter((r) => r.method === 'POST' && r.path.endsWith('/payments'));

  describe('within the in-request wait', () => {
    it('[PAY-23] [DES-101] the POS confirms within the wait → 200 confirmed', async () => {
      const v = await venueWith({ payment: 'deferred', delayMs: 200, outcome: 'confirmed' });
      const { orderId } = await orderOn(v);
      const res = await w.pay(v, orderId, { externalReference: ref(), amount: 29, type: 'full' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
    });

    it('[PAY-24] [PAY-65] [DES-079] the POS rejects within the wait → 200 failed with its failureCode; the order stays open', async () => {
      const v = await venueWith({ payment: 'reject', failureCode: 'pos_check_not_found' });
      const { orderId } = await orderOn(v);
      const res = await w.pay(v, orderId, { externalReference: ref(), amount: 29, type: 'full' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'failed', failureCode: 'pos_check_not_found', confirmedAt: null, orderStatus: 'open' });
    });

    it.each([
      ['[PAY-66]', 'pos_overpaid'],
      ['[PAY-67]', 'pos_config_missing'],
    ])('%s the POS reports %s after dispatch → failed with that code', async (_id, failureCode) => {
      const v = await venueWith({ payment: 'deferred', delayMs: 100, outcome: failureCode });
      const { orderId } = await orderOn(v);
      const res = await w.pay(v, orderId, { externalReference: ref(), amount: 29, type: 'full' });
      expect(res.body).toMatchObject({ status: 'failed', failureCode });
    });
  });

  describe('past the in-request wait', () => {
    it('[PAY-25] [PAY-26] [PAY-34] [PAY-45] [PAY-47] [PAY-69] [PAY-27] [PAY-33] [DES-077] [DES-078] 202 pending, then polled to confirmed; replays show the current state', async () => {
      const v = await venueWith({ payment: 'deferred', delayMs: 2500, outcome: 'confirmed' });
      const { orderId } = await orderOn(v);
      const body = { externalReference: ref(), amount: 29, type: 'full' };
      const res = await w.pay(v, orderId, body);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'pending', confirmedAt: null, failureCode: null, orderStatus: 'open' });
      // Recorded, and dispatched to the POS.
      const status = await w.paymentStatus(v, orderId, body.externalReference);
      expect(status.status).toBe(200);
      expect(status.body.status).toBe('pending');
      expect(await forwardsTo(v)).toHaveLength(1);
      const replay = await w.pay(v, orderId, body);
      expect(replay.status).toBe(202);
      expect(replay.headers['x-idempotent-replay']).toBe('true');
      // The dispatch job polls the POS until it confirms.
      const confirmed = await eventually(async () => {
        await w.app.service.runner.runDue();
        clock.advance(1000);
        const r = await w.paymentStatus(v, orderId, body.externalReference);
        return r.body.status === 'confirmed' && r;
      }, { intervalMs: 50, what: 'the POS confirmation' });
      expect(confirmed.body.confirmedAt).toBeTruthy();
      expect(confirmed.body.orderStatus).toBe('closed');
      const polls = (await w.sim.control.requests(v.posVenueId)).filter((r) => r.method === 'GET' && r.path.includes(`/payments/${res.body.paymentId}`));
      expect(polls.length).toBeGreaterThan(0);
      const later = await w.pay(v, orderId, body);
      expect(later.status).toBe(200);
      expect(later.headers['x-idempotent-replay']).toBe('true');
      expect(later.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
    });

    it('[PAY-28] [PAY-70] a POS rejection after a 202 is never an HTTP error: GET → 200 failed', async () => {
      const v = await venueWith({ payment: 'deferred', delayMs: 2000, outcome: 'pos_overpaid' });
      const { orderId } = await orderOn(v);
      const externalReference = ref();
      expect((await w.pay(v, orderId, { externalReference, amount: 29, type: 'partial' })).status).toBe(202);
      const failed = await eventually(async () => {
        await w.app.service.runner.runDue();
        clock.advance(1000);
        const r = await w.paymentStatus(v, orderId, externalReference);
        return r.body.status === 'failed' && r;
      }, { intervalMs: 50, what: 'the POS rejection' });
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({ failureCode: 'pos_overpaid', confirmedAt: null, orderStatus: 'open' });
    });

    it('[PAY-53] [PAY-54] a new reference while another payment is pending → 409; once it is terminal, accepted', async () => {
      const v = await venueWith({ payment: 'deferred', delayMs: null, outcome: 'confirmed' });
      const { orderId } = await orderOn(v);
      const first = ref();
      expect((await w.pay(v, orderId, { externalReference: first, amount: 10, type: 'partial' })).status).toBe(202);
      const second = await w.pay(v, orderId, { externalReference: ref(), amount: 10, type: 'partial' });
      expect(second.status).toBe(409);
      expect(second.body.error.message).toMatch(/pending/);
      clock.advance(120_000);
      await w.app.service.runner.runDue();
      expect((await w.paymentStatus(v, orderId, first)).body.status).toBe('failed');
      await w.sim.control.setBehaviour(v.posVenueId, { payment: 'immediate' });
      const third = await w.pay(v, orderId, { externalReference: ref(), amount: 10, type: 'partial' });
      expect(third.status).toBe(200);
      expect(third.body.status).toBe('confirmed');
    });
  });

  describe('the confirmation deadline', () => {
    it('[PAY-29] [PAY-30] [LIM-20] [PAY-40] [BILL-13] [BILL-14] no POS answer: pending just before submission + 120 s, failed pos_confirmation_timeout at it; never counted', async () => {
      const v = await venueWith({ payment: 'deferred', delayMs: null, outcome: 'confirmed' });
      const { orderId } = await orderOn(v);
      const externalReference = ref();
      const res = await w.pay(v, orderId, { externalReference, amount: 29, type: 'full' });
      expect(res.status).toBe(202);
      expect((await w.bill(v, '1')).body.totals.paid).toBe(0);
      clock.advance(119_999);
      await w.app.service.runner.runDue();
      expect((await w.paymentStatus(v, orderId, externalReference)).body.status).toBe('pending');
      clock.advance(1);
      // The timeout job fails it (not a read): the row is failed before anyone asks.
      await w.app.service.runner.runDue();
      const { rows } = await sql<{ status: string; failure_code: string }>`SELECT status, failure_code FROM payments WHERE external_reference = ${externalReference}`.execute(w.app.db.kysely);
      expect(rows[0]).toEqual({ status: 'failed', failure_code: 'pos_confirmation_timeout' });
      const status = await w.paymentStatus(v, orderId, externalReference);
      expect(status.body).toMatchObject({ status: 'failed', failureCode: 'pos_confirmation_timeout', confirmedAt: null, orderStatus: 'open' });
      const bill = await w.bill(v, '1');
      expect(bill.status).toBe(200);
      expect(bill.body.totals.paid).toBe(0);
    });

    it('[PAY-31] [DES-104] a POS confirmation after the timeout is not applied; it is recorded for reconciliation', async () => {
      // Long enough that the final check at the deadline (PAY-75) still finds it pending.
      const v = await venueWith({ payment: 'deferred', delayMs: 5000, outcome: 'confirmed' });
      const { orderId, posOrderId } = await orderOn(v);
      const externalReference = ref();
      expect((await w.pay(v, orderId, { externalReference, amount: 29, type: 'full' })).status).toBe(202);
      clock.advance(120_000);
      await w.app.service.runner.runDue();
      expect((await w.paymentStatus(v, orderId, externalReference)).body.failureCode).toBe('pos_confirmation_timeout');
      // The simulator confirms 5 s after receipt, real time (its order closes then); the late check
      // asks it 30 s (service time) later.
      await eventually(async () => expect((await w.sim.control.getOrder(v.posVenueId, posOrderId)).status).toBe('closed'), {
        what: 'the simulator to confirm the payment',
      });
      clock.advance(30_000);
      await w.app.service.runner.runDue();
      const after = await w.paymentStatus(v, orderId, externalReference);
      expect(after.body).toMatchObject({ status: 'failed', failureCode: 'pos_confirmation_timeout', orderStatus: 'open' });
      const { rows } = await sql<{ type: string; data: { externalReference: string; paymentId: string }; partner_id: string; venue_id: string; entity_id: string }>`
        SELECT type, data, partner_id, venue_id, entity_id FROM outbox WHERE type = 'payment.late_confirmation'`.execute(w.app.db.kysely);
      expect(rows.map((r) => r.data.externalReference)).toContain(externalReference);
      // Emitted through the outbox to the partner, scoped to the venue, about the payment.
      const late = rows.find((r) => r.data.externalReference === externalReference)!;
      expect(late).toMatchObject({ partner_id: w.partner.partnerId, venue_id: v.venueId, entity_id: late.data.paymentId });
    });

    it('[DES-102] PAYMENT_CONFIRMATION_TIMEOUT_S sets the deadline', async () => {
      const short = await startPatWorld({ store, clock: 'manual', env: { PAYMENT_CONFIRMATION_TIMEOUT_S: '5' } });
      const c = short.app.clock as ManualClock;
      const v = await short.connectVenue({ posType: POS.deferred, behaviour: { payment: 'deferred', delayMs: null, outcome: 'confirmed' } as never });
      await short.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
      const bill = await short.bill(v, '1');
      const externalReference = 'short-deadline';
      expect((await short.pay(v, bill.body.orderId, { externalReference, amount: 2.5, type: 'full' })).status).toBe(202);
      c.advance(4_999);
      await short.app.service.runner.runDue();
      expect((await short.paymentStatus(v, bill.body.orderId, externalReference)).body.status).toBe('pending');
      c.advance(1);
      await short.app.service.runner.runDue();
      expect((await short.paymentStatus(v, bill.body.orderId, externalReference)).body.failureCode).toBe('pos_confirmation_timeout');
    });
  });

  describe('a deferred POS that errors', () => {
    it('[PAY-63] [DES-139] 5xx on the forward: 202 (never 502), the dispatch is retried, and without confirmation the payment times out', async () => {
      const v = await venueWith({ payment: 'error5xx' });
      const { orderId } = await orderOn(v);
      const externalReference = ref();
      const res = await w.pay(v, orderId, { externalReference, amount: 29, type: 'full' });
      expect(res.status).toBe(202);
      for (let i = 0; i < 5; i++) {
        clock.advance(2_000);
        await w.app.service.runner.runDue();
      }
      expect((await forwardsTo(v)).length).toBeGreaterThan(2);
      clock.advance(120_000);
      await w.app.service.runner.runDue();
      expect((await w.paymentStatus(v, orderId, externalReference)).body).toMatchObject({ status: 'failed', failureCode: 'pos_confirmation_timeout' });
    });

    it('[DES-139] a POS that recovers before the deadline confirms the retried dispatch', async () => {
      const v = await venueWith({ payment: 'deferred', delayMs: 0, outcome: 'confirmed', failNext: 2 });
      const { orderId } = await orderOn(v);
      const externalReference = ref();
      const res = await w.pay(v, orderId, { externalReference, amount: 29, type: 'full' });
      const final = res.status === 200 ? res : await eventually(async () => {
        clock.advance(2_000);
        await w.app.service.runner.runDue();
        const r = await w.paymentStatus(v, orderId, externalReference);
        return r.body.status !== 'pending' && r;
      }, { intervalMs: 50, what: 'the recovered POS' });
      expect(final.body.status).toBe('confirmed');
    });
  });
});
