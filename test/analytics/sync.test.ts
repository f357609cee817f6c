import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ManualClock } from '../../src/lib/clock.ts';
import { ORDER_SYNC_JOB } from '../../src/pos-mirror/sync.service.ts';
import { PosClient } from '../../src/pos/pos-client.ts';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

// The closed-order history as the POS fills it (issue 6; DESIGN 6.3, 9): the durable orders.sync job
// reads each connected POS from where it left off (with overlap), against the reference simulator
// over real HTTPS. The service reaches the simulator through a TCP proxy that can be cut, to show
// what an outage does. Both clocks are held together: the service's ManualClock and the
// simulator's clock, frozen at the same instant and moved by `tick`.

interface SyncWorld {
  w: PatWorld;
  proxy: TcpProxy;
  /** Moves the service's and the simulator's clocks forward together. */
  tick(ms: number): Promise<void>;
  /** GET /v1/pos/venue/{venueId}/order around now. */
  history(venue: ConnectedVenue, query?: Record<string, string | number>): Promise<{ status: number; body: any }>;
}

async function syncWorld(): Promise<SyncWorld> {
  let proxy: TcpProxy | undefined;
  const w = await startPatWorld({
    clock: 'manual',
    env: { POS_TIMEOUT_MS: '10000' },
    posBaseUrl: async (url) => (proxy = await startTcpProxy(url)).url,
  });
  onTestFinished(() => proxy?.close());
  const clock = w.app.clock as ManualClock;
  await w.sim.control.setClock({ set: clock.now().toISOString(), frozen: true });
  return {
    w,
    proxy: proxy!,
    async tick(ms) {
      clock.advance(ms);
      await w.sim.control.advanceClock(ms);
    },
    history: (venue, query = {}) =>
      w.app.http.get(`/v1/pos/venue/${venue.venueId}/order`, {
        token: w.partner.token,
        query: {
          from: new Date(clock.now().getTime() - 7 * 86_400_000).toISOString(),
          until: new Date(clock.now().getTime() + 86_400_000).toISOString(),
          limit: 100,
          ...query,
        },
      }),
  };
}

const MINUTE = 60_000;
const externalIds = (body: { orders: Array<{ externalId: string }> }) => body.orders.map((o) => o.externalId).sort();

async function storedCounts(w: PatWorld, venueId: string): Promise<{ orders: number; checks: number }> {
  const { rows } = await sql<{ orders: number; checks: number }>`
    SELECT (SELECT count(*)::int FROM orders WHERE venue_id = ${venueId}) AS orders,
           (SELECT count(*)::int FROM order_checks c JOIN orders o ON o.id = c.order_id WHERE o.venue_id = ${venueId}) AS checks`.execute(w.app.db.kysely);
  return rows[0];
}

async function syncJob(w: PatWorld, venueId: string) {
  const { rows } = await sql<{ run_at: Date; attempts: number; last_error: string | null }>`
    SELECT run_at, attempts, last_error FROM jobs WHERE kind = ${ORDER_SYNC_JOB} AND dedupe_key = ${`orders-sync:${venueId}`}`.execute(w.app.db.kysely);
  return rows[0];
}

describe('closed orders from the POS', () => {
  it('[DES-085] orders closed on the POS appear once, after the next run of the sync job, not before; open ones never', async () => {
    const { w, tick, history } = await syncWorld();
    const v = await w.connectVenue({ posType: POS.stored });
    await w.app.service.runner.runDue(); // the first run, scheduled at onboarding: nothing yet
    const a = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }], tax: 2.9 }] });
    const b = await w.openOrder(v.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'ESP', quantity: 1 }] }] });
    await tick(5 * MINUTE);
    await w.sim.control.closeOrder(v.posVenueId, a.id, { paymentMethod: 'visa' });
    await tick(10_000);

    expect((await history(v)).body).toEqual({ total: 0, orders: [] });
    await tick(MINUTE); // the job comes due again (ORDER_SYNC_INTERVAL_S)
    // The sync, then the delivery fan-out of the order.closed it announced (src/webhooks).
    expect(await w.app.service.runner.runDue()).toBe(2);
    const first = await history(v);
    expect(first.body.total).toBe(1);
    const [order] = first.body.orders;
    expect(order).toMatchObject({ externalId: a.id, status: 'closed', tables: ['1'], partySize: null, reservationDate: null });
    expect(order.checks).toMatchObject([{ status: 'closed', totalAmount: 29, tax: 2.9, paymentMethod: 'visa', voidedAt: null }]);
    expect(Date.parse(order.closedAt)).toBe(Date.parse(a.createdAt) + 5 * MINUTE);

    await w.sim.control.closeOrder(v.posVenueId, b.id, { paymentMethod: 'cash' });
    await tick(MINUTE);
    await w.app.service.runner.runDue();
    const second = await history(v);
    expect(externalIds(second.body)).toEqual([a.id, b.id].sort());
    expect(second.body.orders.find((o: { externalId: string }) => o.externalId === a.id).id).toBe(order.id);
    expect(second.body.orders[0].externalId).toBe(b.id); // most recent close first
  });

  it('a POS outage during a sync loses nothing: the run fails, is retried from the same point, and brings everything', async () => {
    const { w, proxy, tick, history } = await syncWorld();
    const v = await w.connectVenue({ posType: POS.stored });
    await w.app.service.runner.runDue();
    const before = (await sql<{ orders_synced_until: Date }>`SELECT orders_synced_until FROM pos_connections WHERE venue_id = ${v.venueId}`.execute(w.app.db.kysely)).rows[0].orders_synced_until;

    const a = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'WINE', quantity: 2 }] }] });
    await tick(MINUTE);
    await w.sim.control.closeOrder(v.posVenueId, a.id);

    proxy.down();
    await tick(MINUTE);
    await w.app.service.runner.runDue(); // the run fails: the POS is unreachable
    const failed = await syncJob(w, v.venueId);
    expect(failed.last_error).toBeTruthy();
    expect(failed.run_at.getTime()).toBeGreaterThan(w.app.clock.now().getTime()); // retried later, with backoff
    await expect(w.app.service.app.services.orderSync.syncVenue(v.venueId)).rejects.toThrow();
    const cursor = (await sql<{ orders_synced_until: Date }>`SELECT orders_synced_until FROM pos_connections WHERE venue_id = ${v.venueId}`.execute(w.app.db.kysely)).rows[0].orders_synced_until;
    expect(cursor.getTime()).toBe(before.getTime()); // the cursor did not move

    // More orders close while the POS is unreachable from the service; the outage lasts a while.
    const b = await w.openOrder(v.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'CAKE', quantity: 1 }] }] });
    const c = await w.openOrder(v.posVenueId, { tables: ['3'], checks: [{ items: [{ sku: 'ESP', quantity: 3 }] }] });
    await tick(30 * MINUTE);
    await w.sim.control.closeOrder(v.posVenueId, b.id);
    await w.sim.control.closeOrder(v.posVenueId, c.id);
    await tick(2 * 3600_000);
    await w.app.service.runner.runDue(); // still down
    expect((await syncJob(w, v.venueId)).attempts).toBeGreaterThanOrEqual(2);

    proxy.up();
    await tick(10 * MINUTE); // past the backoff
    await w.app.service.runner.runDue();
    // The token was issued before the clock moved past its hour; analytics needs a fresh one.
    w.partner.token = (await w.app.service.app.services.auth.issueToken(w.partner.partnerId)).accessToken;
    const after = await history(v);
    expect(after.status).toBe(200);
    expect(externalIds(after.body)).toEqual([a.id, b.id, c.id].sort());
    expect(await storedCounts(w, v.venueId)).toEqual({ orders: 3, checks: 3 });
    expect((await syncJob(w, v.venueId)).attempts).toBe(0); // rescheduled for its next interval
  });

  it('a re-run duplicates nothing: the same ids, the same counts, the same updatedAt', async () => {
    const { w, tick, history } = await syncWorld();
    const v = await w.connectVenue({ posType: POS.stored });
    for (const table of ['1', '2', '3']) {
      const o = await w.openOrder(v.posVenueId, { tables: [table], checks: [{ items: [{ sku: 'BURGER', quantity: 1 }] }, { items: [{ sku: 'ESP', quantity: 1 }] }] });
      await tick(MINUTE);
      await w.sim.control.closeOrder(v.posVenueId, o.id);
    }
    await tick(MINUTE);
    const sync = () => w.app.service.app.services.orderSync.syncVenue(v.venueId);
    await sync();
    const first = await history(v);
    expect(first.body.total).toBe(3);
    const counts = await storedCounts(w, v.venueId);
    expect(counts).toEqual({ orders: 3, checks: 6 });

    // The next runs overlap the last one (5 minutes), and a full re-read from scratch re-reads all.
    await tick(MINUTE);
    await sync();
    await sql`UPDATE pos_connections SET orders_synced_until = NULL WHERE venue_id = ${v.venueId}`.execute(w.app.db.kysely);
    await tick(MINUTE);
    expect(await sync()).toEqual({ synced: 3, suspended: false });
    await sync();
    expect(await storedCounts(w, v.venueId)).toEqual(counts);
    expect((await history(v)).body).toEqual(first.body);
  });

  it('[DES-084] the orderId of the bill is the id analytics gives the order once a pay-at-table payment closed it', async () => {
    const { w, tick, history } = await syncWorld();
    const v = await w.connectVenue({ posType: POS.immediate });
    await w.openOrder(v.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }], tax: 2.9 }] });
    await tick(20 * MINUTE);
    const bill = await w.bill(v, '2');
    expect(bill.status).toBe(200);
    const paid = await w.pay(v, bill.body.orderId, { externalReference: `an-${process.pid}-1`, amount: bill.body.totals.totalDue, type: 'full', paymentMethod: 'apple_pay' });
    expect(paid.status).toBe(200);
    expect(paid.body.orderStatus).toBe('closed');
    const closedAt = w.app.clock.now().toISOString();

    // Recorded at closing: no sync needed.
    const now = await history(v);
    expect(now.body.total).toBe(1);
    expect(now.body.orders[0]).toMatchObject({ id: bill.body.orderId, status: 'closed', closedAt });

    // The POS closed it too (forwarded); the sync keeps the id, the order and the service's close time.
    await tick(MINUTE);
    await w.app.service.app.services.orderSync.syncVenue(v.venueId);
    const later = await history(v);
    expect(later.body.total).toBe(1);
    expect(later.body.orders[0]).toMatchObject({ id: bill.body.orderId, closedAt });
    expect(later.body.orders[0].checks).toHaveLength(1);
    expect(later.body.orders[0].checks[0]).toMatchObject({ id: expect.any(String), status: 'closed', totalAmount: 29, tax: 2.9 });
  });

  it('[DES-137] [DES-084] with billRetrieval false an order appears in the bill after the next sync run, and analytics gives it the bill\'s orderId once closed', async () => {
    const { w, tick, history } = await syncWorld();
    const v = await w.connectVenue({ posType: POS.stored });
    await w.app.service.runner.runDue();
    const pos = await w.openOrder(v.posVenueId, { tables: ['3'], checks: [{ items: [{ sku: 'CAKE', quantity: 2 }] }] });
    await tick(MINUTE);
    expect((await w.bill(v, '3')).status).toBe(404);
    await w.app.service.runner.runDue();
    const bill = await w.bill(v, '3');
    expect(bill.status).toBe(200);
    expect(bill.body.totals.total).toBe(14.5);

    await w.sim.control.closeOrder(v.posVenueId, pos.id, { paymentMethod: 'cash' });
    await tick(MINUTE);
    await w.app.service.runner.runDue();
    expect((await w.bill(v, '3')).status).toBe(404);
    const closed = await history(v);
    expect(closed.body.orders.map((o: { id: string }) => o.id)).toEqual([bill.body.orderId]);
  });

  it('[DES-085] analytics answers from the store while the POS is unreachable', async () => {
    const { w, proxy, tick, history } = await syncWorld();
    const v = await w.connectVenue({ posType: POS.immediate });
    const o = await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] });
    await tick(MINUTE);
    await w.sim.control.closeOrder(v.posVenueId, o.id);
    await tick(MINUTE);
    await w.app.service.app.services.orderSync.syncVenue(v.venueId);
    await w.sim.control.clearRequests(v.posVenueId);
    const up = await history(v);
    expect(up.body.total).toBe(1);
    expect(await w.sim.control.requests(v.posVenueId)).toEqual([]); // no POS call behind the answer
    proxy.down();
    const down = await history(v);
    expect(down.status).toBe(200);
    expect(down.body).toEqual(up.body);
  });

  it('[ANA-07] [ANA-10] [ANA-12] from the simulator: walk-in vs reservation, void checks, a voided order left out, item fields passed through', async () => {
    const { w, tick, history } = await syncWorld();
    const v = await w.connectVenue({ posType: POS.stored });
    // A reservation: the service opens the order through the contract when the guests are seated.
    const client = new PosClient({ code: 'sim', baseUrl: w.sim.baseUrl, apiKey: w.sim.apiKey, ca: w.sim.ca }, { timeoutMs: 10_000 });
    onTestFinished(() => client.close());
    const created = await client.createOrder(v.posVenueId, {
      id: '0198a5c4-2222-7333-8444-555566667777', tables: ['4'], partySize: 4, prepayment: 20, date: '2026-01-15 13:00:00',
      items: [{ sku: 'WINE', quantity: 2, notes: 'decant' }],
    });
    if (!created.ok) throw new Error('create order refused');
    // A walk-in with a party size on the POS: still a walk-in for analytics.
    const walkIn = await w.openOrder(v.posVenueId, {
      tables: ['1', '2'], partySize: 3,
      checks: [{ items: [{ sku: 'BURGER', quantity: 1, discount: 1.5 }] }, { items: [{ sku: 'ESP', quantity: 2 }] }],
    });
    const voided = await w.openOrder(v.posVenueId, { tables: ['3'], checks: [{ items: [{ sku: 'CAKE', quantity: 1 }] }] });
    await tick(MINUTE);
    await w.sim.control.voidOrder(v.posVenueId, walkIn.id, { checkNumber: walkIn.checks[1].checkNumber });
    await tick(MINUTE);
    await w.sim.control.closeOrder(v.posVenueId, walkIn.id, { paymentMethod: 'card' });
    await w.sim.control.closeOrder(v.posVenueId, created.id, { paymentMethod: 'cash' });
    await w.sim.control.voidOrder(v.posVenueId, voided.id);
    await tick(MINUTE);
    await w.app.service.app.services.orderSync.syncVenue(v.venueId);

    const res = await history(v);
    expect(externalIds(res.body)).toEqual([created.id, walkIn.id].sort());
    const byExt = Object.fromEntries(res.body.orders.map((o: { externalId: string }) => [o.externalId, o]));
    expect(byExt[walkIn.id]).toMatchObject({ partySize: null, reservationDate: null, prepayment: null, tables: ['1', '2'] });
    expect(byExt[created.id]).toMatchObject({ partySize: 4, prepayment: 20, reservationDate: '2026-01-15T12:00:00.000Z' });
    const checks = byExt[walkIn.id].checks;
    expect(checks.map((c: { status: string }) => c.status)).toEqual(['closed', 'void']);
    expect(checks[0].voidedAt).toBeNull();
    expect(Date.parse(checks[1].voidedAt)).toBe(Date.parse(walkIn.createdAt) + MINUTE);
    expect(checks[0].items).toEqual([{ id: expect.any(String), name: 'Classic burger', price: 14.5, quantity: 1, sku: 'BURGER', discount: 1.5 }]);
    expect(byExt[created.id].checks[0].items[0]).toMatchObject({ name: 'House red', price: 6.9, quantity: 2, sku: 'WINE', notes: 'decant' });
  });
});
