import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';

// Immediate venues when the POS fails (spec 7.3, DESIGN 7, 9): 502, nothing recorded, safe retry.

describeEachStore('payment forwarding failures', (store) => {
  let w: PatWorld;
  let n = 0;
  const ref = () => `f-${Date.now().toString(36)}-${++n}`;

  beforeAll(async () => {
    w = await startPatWorld({ store, autoClose: false });
  });
  afterAll(async () => {
    await w?.close();
  });

  async function setup(behaviour: Record<string, unknown>) {
    const v = await w.connectVenue({ posType: POS.immediate, behaviour: behaviour as never });
    const posOrder = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] }); // 29.00
    const bill = await w.bill(v, '1');
    return { v, orderId: bill.body.orderId as string, posOrderId: posOrder.id };
  }

  const expectNothingRecorded = async (v: ConnectedVenue, orderId: string, externalReference: string) => {
    expect((await w.paymentStatus(v, orderId, externalReference)).status).toBe(404);
    const bill = await w.bill(v, '1');
    expect(bill.status).toBe(200);
    expect(bill.body.totals.paid).toBe(0);
  };

  describe('502 on immediate venues', () => {
    it('[PAY-57] [PAY-60] [PAY-61] [PAY-62] [DES-080] the POS answers 5xx → 502, nothing recorded; the same reference succeeds once the POS recovers, with one payment', async () => {
      const { v, orderId, posOrderId } = await setup({ payment: 'error5xx' });
      const body = { externalReference: ref(), amount: 29, type: 'full' };
      const res = await w.pay(v, orderId, body);
      expect(res.status).toBe(502);
      expect(res.body.error).toEqual({ code: 502, message: expect.stringMatching(/POS/), details: null });
      expect(res.body.error.message).toMatch(/Nothing was recorded/);
      await expectNothingRecorded(v, orderId, body.externalReference);
      await w.sim.control.setBehaviour(v.posVenueId, { payment: 'immediate' });
      const retry = await w.pay(v, orderId, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
      const pos = await w.sim.control.getOrder(v.posVenueId, posOrderId);
      expect(pos.payments.filter((p) => p.status === 'confirmed')).toHaveLength(1);
    });

    it('[PAY-59] [DES-138] the POS does not answer within POS_TIMEOUT_MS → 502, nothing recorded', async () => {
      const { v, orderId } = await setup({ payment: 'hang' });
      const externalReference = ref();
      const res = await w.pay(v, orderId, { externalReference, amount: 29, type: 'full' });
      expect(res.status).toBe(502);
      expect(res.body.error.message).toMatch(/did not answer in time/);
      await w.sim.control.setBehaviour(v.posVenueId, { payment: 'immediate' });
      await expectNothingRecorded(v, orderId, externalReference);
    });

    it('[DES-119] [PAY-61] the POS refuses the payment (409/422 failed) → 502 naming the reason, details null, nothing recorded', async () => {
      const { v, orderId } = await setup({ payment: 'reject', failureCode: 'pos_overpaid' });
      const externalReference = ref();
      const res = await w.pay(v, orderId, { externalReference, amount: 29, type: 'full' });
      expect(res.status).toBe(502);
      expect(res.body.error.message).toMatch(/pos_overpaid/);
      expect(res.body.error.details).toBeNull();
      await expectNothingRecorded(v, orderId, externalReference);
    });

    it('[DES-100] after a 502 the order is not blocked: a different reference is accepted', async () => {
      const { v, orderId } = await setup({ payment: 'error5xx' });
      expect((await w.pay(v, orderId, { externalReference: ref(), amount: 29, type: 'full' })).status).toBe(502);
      await w.sim.control.setBehaviour(v.posVenueId, { payment: 'immediate' });
      const other = await w.pay(v, orderId, { externalReference: ref(), amount: 29, type: 'full' });
      expect(other.status).toBe(200);
    });

    it('[DES-098] while a payment is in flight to the POS, a different reference on the same order → 409', async () => {
      const { v, orderId } = await setup({ payment: 'hang' });
      const first = w.pay(v, orderId, { externalReference: ref(), amount: 29, type: 'full' });
      // Wait until the first forward has reached the POS (it hangs there).
      await eventually(async () => (await w.sim.control.requests(v.posVenueId)).some((r) => r.method === 'POST' && r.path.endsWith('/payments')), {
        what: 'the forward at the POS',
      });
      const second = await w.pay(v, orderId, { externalReference: ref(), amount: 29, type: 'full' });
      expect(second.status).toBe(409);
      expect((await first).status).toBe(502);
    });

    it('[PAY-58] the POS refuses the connection → 502, nothing recorded', async () => {
      const solo = await startPatWorld({ store });
      const { v, orderId } = await (async () => {
        const v = await solo.connectVenue({ posType: POS.stored });
        await solo.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'ESP', quantity: 2 }] }] });
        await solo.app.service.app.services.orderSync.syncVenue(v.venueId);
        const bill = await solo.bill(v, '1');
        return { v, orderId: bill.body.orderId as string };
      })();
      await solo.sim.close(); // nothing listens on its port any more
      const externalReference = 'refused-1';
      const res = await solo.pay(v, orderId, { externalReference, amount: 5, type: 'full' });
      expect(res.status).toBe(502);
      expect(res.body.error.message).toMatch(/could not be reached/);
      expect((await solo.paymentStatus(v, orderId, externalReference)).status).toBe(404);
      // billRetrieval false: the stored bill still answers, unpaid.
      const bill = await solo.bill(v, '1');
      expect(bill.status).toBe(200);
      expect(bill.body.totals.paid).toBe(0);
    });
  });
});
