import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManualClock } from '../../src/lib/clock.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

// The final check at a pending payment's deadline (PAY-75, DESIGN 9): before failing a payment,
// the service asks the POS once more. The service runs on a manual clock and its job poller is
// off, so "every process was down" is simply nobody running the jobs until the test says so.
// The multi-process version (SIGKILL) is test/drills/chaos.test.ts.

describeEachStore('the final POS check at the deadline', (store) => {
  let w: PatWorld;
  let clock: ManualClock;
  let proxy: TcpProxy;
  let n = 0;
  const ref = () => `fc-${Date.now().toString(36)}-${++n}`;

  beforeAll(async () => {
    // The POS is reached through a proxy, so a test can make it unreachable.
    w = await startPatWorld({ store, autoClose: false, clock: 'manual', env: { PAYMENT_INLINE_WAIT_MS: '300' }, posBaseUrl: async (url) => (proxy = await startTcpProxy(url)).url });
    clock = w.app.clock as ManualClock;
  });
  afterAll(async () => {
    await w?.close();
    await proxy?.close();
  });

  /** A deferred payment the POS confirms `delayMs` after receipt (real time), left pending by the in-request wait. */
  async function pendingPayment(delayMs: number | null) {
    const v: ConnectedVenue = await w.connectVenue({ posType: POS.deferred, behaviour: { payment: 'deferred', delayMs, outcome: 'confirmed' } as never });
    const posOrder = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] });
    const orderId = (await w.bill(v, '1')).body.orderId as string;
    const externalReference = ref();
    const res = await w.pay(v, orderId, { externalReference, amount: 29, type: 'full' });
    expect(res.status).toBe(202);
    return { v, orderId, posOrderId: posOrder.id, externalReference };
  }

  const row = async (externalReference: string) =>
    (await sql<{ status: string; failure_code: string | null; terminal_at: Date | null; deadline_at: Date; late_pos_status: string | null }>`
      SELECT status, failure_code, terminal_at, deadline_at, late_pos_status FROM payments WHERE external_reference = ${externalReference}`.execute(w.app.db.kysely)).rows[0];

  it('[PAY-75] the POS confirmed while nobody polled; first read after the deadline asks it once more → confirmed, not failed', async () => {
    const p = await pendingPayment(1600);
    await eventually(async () => expect((await w.sim.control.getOrder(p.v.posVenueId, p.posOrderId)).status).toBe('closed'), {
      what: 'the POS to confirm the payment and close its order',
    });
    clock.advance(121_000);
    const status = await w.paymentStatus(p.v, p.orderId, p.externalReference);
    expect(status.body).toMatchObject({ status: 'confirmed', failureCode: null, orderStatus: 'closed' });
    expect((await row(p.externalReference)).late_pos_status).toBeNull();
  });

  it('[PAY-75] concurrent reads after the deadline: one asks the POS, the others wait for its answer; every one says confirmed', async () => {
    const p = await pendingPayment(1600);
    await eventually(async () => expect((await w.sim.control.getOrder(p.v.posVenueId, p.posOrderId)).status).toBe('closed'), {
      what: 'the POS to confirm the payment',
    });
    await w.sim.control.clearRequests(p.v.posVenueId);
    clock.advance(121_000);
    const reads = await Promise.all(Array.from({ length: 6 }, () => w.paymentStatus(p.v, p.orderId, p.externalReference)));
    expect(reads.map((r) => r.body.status)).toEqual(Array(6).fill('confirmed'));
    const asked = (await w.sim.control.requests(p.v.posVenueId)).filter((r) => r.method === 'GET' && r.path.includes('/payments/'));
    expect(asked).toHaveLength(1);
  });

  it('[PAY-75] the timeout job asks the POS ahead of the deadline, so a confirmation is recorded inside it', async () => {
    const p = await pendingPayment(1600);
    await eventually(async () => expect((await w.sim.control.getOrder(p.v.posVenueId, p.posOrderId)).status).toBe('closed'), {
      what: 'the POS to confirm the payment',
    });
    clock.advance(117_000);
    await w.app.service.runner.runDue();
    const r = await row(p.externalReference);
    expect(r.status).toBe('confirmed');
    expect(r.terminal_at!.getTime()).toBeLessThan(r.deadline_at.getTime());
  });

  it('[PAY-75] [LIM-20] a POS that still says pending at the final check: pending until the deadline, then failed pos_confirmation_timeout', async () => {
    const p = await pendingPayment(null);
    await w.sim.control.clearRequests(p.v.posVenueId);
    clock.advance(117_000);
    await w.app.service.runner.runDue();
    expect((await row(p.externalReference)).status).toBe('pending');
    const asked = (await w.sim.control.requests(p.v.posVenueId)).filter((r) => r.method === 'GET' && r.path.includes('/payments/'));
    expect(asked.length).toBeGreaterThanOrEqual(1);
    clock.advance(3_000);
    await w.app.service.runner.runDue();
    expect(await row(p.externalReference)).toMatchObject({ status: 'failed', failure_code: 'pos_confirmation_timeout' });
  });

  it('[PAY-75] a POS that cannot be reached at the final check: the payment fails at its deadline all the same', async () => {
    const p = await pendingPayment(null);
    proxy.down();
    try {
      clock.advance(120_000);
      const status = await w.paymentStatus(p.v, p.orderId, p.externalReference);
      expect(status.body).toMatchObject({ status: 'failed', failureCode: 'pos_confirmation_timeout' });
    } finally {
      proxy.up();
    }
  });
});
