import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import { openPostgres } from '../../src/db/db.ts';
import { onboardClusterVenue, startCluster } from '../helpers/cluster.ts';
import { describePostgres } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';

// The kill drill (issue 15): two `tableside serve` processes on one PostgreSQL, a POS that confirms
// late, deferred payments in flight, both processes SIGKILLed, one restarted after the deadlines.
// Every payment must end terminal, agree with the POS, and have been forwarded exactly once.
// `npm run drill:chaos` runs this file alone.

describePostgres('chaos: every process killed mid-payment', () => {
  it('[PAY-75] [PAY-30] [DES-103] payments the POS confirmed while every process was down end confirmed; those it never confirmed fail; one forward each', async () => {
    const c = await startCluster(2, { PAYMENT_CONFIRMATION_TIMEOUT_S: '12', PAYMENT_INLINE_WAIT_MS: '300' });
    // One location confirms 6 s after receipt (after the processes are dead), one never does.
    const late = await onboardClusterVenue(c, 'sim-deferred', { payment: 'deferred', delayMs: 6000, outcome: 'confirmed' }, 'chaos-late');
    const never = await onboardClusterVenue(c, 'sim-deferred', { payment: 'deferred', delayMs: null, outcome: 'confirmed' }, 'chaos-never');
    const submitted: Array<{ venue: typeof late; ref: string; orderId: string; posOrderId: string; posConfirms: boolean }> = [];
    for (const [venue, posConfirms] of [[late, true], [never, false]] as const) {
      for (let i = 1; i <= 3; i++) {
        const posOrder = await c.sim.control.openOrder(venue.posVenueId, { tables: [String(i)], checks: [{ items: [{ sku: 'X', quantity: 1 }] }] });
        const client = c.clients[i % 2];
        const bill = await client.get(`/v1/pat/venue/${venue.venueId}/table/${venue.tableId(`T${i}`)}/bill`, { token: c.token });
        const ref = `chaos-${venue.posVenueId}-${i}`;
        const res = await client.post(`/v1/pat/venue/${venue.venueId}/order/${bill.body.orderId}/payment`, { token: c.token, body: { externalReference: ref, amount: 10, type: 'full' } });
        expect(res.status).toBe(202);
        submitted.push({ venue, ref, orderId: bill.body.orderId, posOrderId: posOrder.id, posConfirms });
      }
    }
    await Promise.all(c.servers.map((s) => s.stop('SIGKILL')));

    // While nobody runs: the POS confirms the late location's payments and closes their orders.
    for (const s of submitted.filter((x) => x.posConfirms)) {
      await eventually(async () => expect((await c.sim.control.getOrder(s.venue.posVenueId, s.posOrderId)).status).toBe('closed'), {
        what: 'the POS to confirm a payment while the service is down',
      });
    }
    const db = openPostgres(c.url);
    onTestFinished(() => db.close());
    const { rows: before } = await sql<{ deadline_at: Date; status: string }>`SELECT deadline_at, status FROM payments`.execute(db.kysely);
    expect(before.every((r) => r.status === 'pending')).toBe(true);
    // Back only after every deadline (the worst case: nobody could ask the POS in the run-up).
    const lastDeadline = Math.max(...before.map((r) => r.deadline_at.getTime()));
    await eventually(async () => expect(Date.now()).toBeGreaterThan(lastDeadline), { intervalMs: 100, timeoutMs: 30_000, what: 'every deadline to pass' });
    const { client } = await c.startNode();

    for (const s of submitted) {
      const status = await eventually(async () => {
        const res = await client.get(`/v1/pat/venue/${s.venue.venueId}/order/${s.orderId}/payment/${s.ref}`, { token: c.token });
        expect(res.status).toBe(200);
        expect(res.body.status).not.toBe('pending');
        return res.body;
      }, { what: `payment ${s.ref} to be terminal` });
      const posOrder = await c.sim.control.getOrder(s.venue.posVenueId, s.posOrderId);
      if (s.posConfirms) {
        expect(status).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });
        expect(posOrder.status).toBe('closed');
      } else {
        expect(status).toMatchObject({ status: 'failed', failureCode: 'pos_confirmation_timeout', orderStatus: 'open' });
        expect(posOrder.status).toBe('open');
      }
    }
    for (const venue of [late, never]) {
      const forwards = (await c.sim.control.requests(venue.posVenueId)).filter((r) => r.method === 'POST' && r.path.endsWith('/payments'));
      expect(forwards).toHaveLength(3);
      expect(new Set(forwards.map((f) => (f.body as { paymentId: string }).paymentId)).size).toBe(3);
    }
    const { rows: late_ } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM payments WHERE late_pos_status IS NOT NULL`.execute(db.kysely);
    expect(late_[0].n).toBe(0);
    // Three process starts and the deadlines: a guard against a hang on a loaded machine, not a bound.
  }, 180_000);
});
