import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { VenueBehaviour } from '../../pos-simulator/src/index.ts';
import { openPostgres } from '../../src/db/db.ts';
import { startServe } from '../helpers/cli.ts';
import { onboardClusterVenue, startCluster as cluster, type Cluster } from '../helpers/cluster.ts';
import { availableStores, describePostgres } from '../helpers/db.ts';
import { POS, startPatWorld } from '../helpers/pat.ts';
import { eventually } from '../helpers/eventually.ts';

// Races and crashes (DESIGN 7). In-process races run on every store; several processes sharing
// one database run on PostgreSQL only.

for (const store of availableStores()) {
  describe(`concurrent submissions [${store}]`, () => {
    it('[DES-097] 50 concurrent submissions of one reference give one payment and one forward; the others are replays', async () => {
      const w = await startPatWorld({ store });
      const v = await w.connectVenue({ posType: POS.immediate });
      await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] });
      const bill = await w.bill(v, '1');
      await w.sim.control.clearRequests(v.posVenueId);
      const body = { externalReference: 'same-50', amount: 29, type: 'full' };
      const results = await Promise.all(Array.from({ length: 50 }, () => w.pay(v, bill.body.orderId, body)));
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
      expect(new Set(results.map((r) => r.body.paymentId)).size).toBe(1);
      expect(results.filter((r) => r.headers['x-idempotent-replay'] !== 'true')).toHaveLength(1);
      const forwards = (await w.sim.control.requests(v.posVenueId)).filter((r) => r.method === 'POST' && r.path.endsWith('/payments'));
      expect(forwards).toHaveLength(1);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM payments WHERE external_reference = 'same-50'`.execute(w.app.db.kysely);
      expect(rows[0].n).toBe(1);
    });

    it('[DES-099] two partial payments with different references racing on one order never both pass the balance: the loser gets 409', async () => {
      const w = await startPatWorld({ store });
      // A deferred POS keeps the first payment pending for a moment, so the two always overlap.
      const v = await w.connectVenue({ posType: POS.deferred, behaviour: { payment: 'deferred', delayMs: 800, outcome: 'confirmed' } as never });
      await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] }); // 29.00
      const bill = await w.bill(v, '1');
      // Each alone fits the balance; both together would pass it.
      const [a, b] = await Promise.all([
        w.pay(v, bill.body.orderId, { externalReference: 'race-a', amount: 20, type: 'partial' }),
        w.pay(v, bill.body.orderId, { externalReference: 'race-b', amount: 20, type: 'partial' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const winner = a.status === 200 ? a : b;
      expect(winner.body.status).toBe('confirmed');
      expect((await w.bill(v, '1')).body.totals).toMatchObject({ paid: 20, totalDue: 9 });
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM payments WHERE order_id = ${bill.body.orderId}`.execute(w.app.db.kysely);
      expect(rows[0].n).toBe(1);
    });
  });
}

describePostgres('several serve processes on one database', () => {
  const onboard = (c: Cluster, posType: string, behaviour: unknown) => onboardClusterVenue(c, posType, behaviour as VenueBehaviour);

  it('[DES-050] one externalReference submitted to two processes at once yields one payment and one forward', async () => {
    const c = await cluster(2);
    const v = await onboard(c, 'sim', { payment: 'immediate' });
    await c.sim.control.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'X', quantity: 3 }] }] });
    const bill = await c.clients[0].get(`/v1/pat/venue/${v.venueId}/table/${v.tableId('T1')}/bill`, { token: c.token });
    await c.sim.control.clearRequests(v.posVenueId);
    const path = `/v1/pat/venue/${v.venueId}/order/${bill.body.orderId}/payment`;
    const body = { externalReference: 'cross-process', amount: 30, type: 'full' };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => c.clients[i % 2].post(path, { token: c.token, body })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.body.paymentId)).size).toBe(1);
    const forwards = (await c.sim.control.requests(v.posVenueId)).filter((r) => r.method === 'POST' && r.path.endsWith('/payments'));
    expect(forwards).toHaveLength(1);
  });

  it('[DES-103] pending deferred payments on two processes, both killed with SIGKILL, one restarted: with nobody polling, each fails with pos_confirmation_timeout at or after its deadline', async () => {
    const c = await cluster(2, { PAYMENT_CONFIRMATION_TIMEOUT_S: '6', PAYMENT_INLINE_WAIT_MS: '300' });
    const v = await onboard(c, 'sim-deferred', { payment: 'deferred', delayMs: null, outcome: 'confirmed' });
    const refs: string[] = [];
    for (let i = 1; i <= 4; i++) {
      await c.sim.control.openOrder(v.posVenueId, { tables: [String(i)], checks: [{ items: [{ sku: 'X', quantity: 1 }] }] });
      const client = c.clients[i % 2];
      const bill = await client.get(`/v1/pat/venue/${v.venueId}/table/${v.tableId(`T${i}`)}/bill`, { token: c.token });
      const res = await client.post(`/v1/pat/venue/${v.venueId}/order/${bill.body.orderId}/payment`, { token: c.token, body: { externalReference: `crash-${i}`, amount: 10, type: 'full' } });
      expect(res.status).toBe(202);
      refs.push(`crash-${i}`);
    }
    await Promise.all(c.servers.map((s) => s.stop('SIGKILL')));
    const db = openPostgres(c.url);
    onTestFinished(() => db.close());
    const pending = await sql<{ n: number }>`SELECT count(*) AS n FROM payments WHERE status = 'pending'`.execute(db.kysely);
    expect(pending.rows[0].n).toBe(4);
    // One process comes back; nobody reads the payments: the durable timeout jobs must end them.
    const data = mkdtempSync(join(tmpdir(), 'tableside-restart-'));
    const restartedAt = Date.now();
    const restarted = await startServe({ ...c.baseEnv, TABLESIDE_DATA: data });
    onTestFinished(() => restarted.stop('SIGKILL').then(() => undefined));
    const ended = await eventually(
      async () => {
        const { rows } = await sql<{ status: string; failure_code: string | null; terminal_at: Date; deadline_at: Date }>`
          SELECT status, failure_code, terminal_at, deadline_at FROM payments`.execute(db.kysely);
        return rows.every((r) => r.status === 'failed') && rows;
      },
      // No timing bound is asserted (the machine is shared): the 60 s only keeps a broken build from hanging.
      { intervalMs: 250, timeoutMs: 60_000, what: 'every pending payment to fail' },
    );
    for (const r of ended) {
      expect(r.failure_code).toBe('pos_confirmation_timeout');
      // Ended at its deadline or after it, by the restarted process.
      expect(r.terminal_at.getTime()).toBeGreaterThanOrEqual(r.deadline_at.getTime());
      expect(r.terminal_at.getTime()).toBeGreaterThanOrEqual(restartedAt);
    }
  });
});
