// Closed orders stay readable for 45 days after closure, and no longer (spec 3.4, 4.6 rule 5, 8).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAY_MS, harness, smallVenue, type SimHarness } from './sim-helpers.ts';

let h: SimHarness;
beforeEach(async () => {
  h = await harness();
  await smallVenue(h);
  await h.sim.control.setClock({ set: '2025-01-10T20:00:00Z', frozen: true });
});
afterEach(() => h.close());

it('[LIM-21] a closed order is readable by id up to 45 days after its closure, and gone (404, not listed) after', async () => {
  const paid = await h.sim.control.openOrder('v1', { tables: ['T1'], checks: [{ items: [{ sku: 'A', quantity: 1 }] }] });
  const voided = await h.sim.control.openOrder('v1', { tables: ['T2'] });
  const stillOpen = await h.sim.control.openOrder('v1', { tables: ['T3'] });
  await h.sim.control.closeOrder('v1', paid.id, { paymentMethod: 'card' });
  await h.sim.control.voidOrder('v1', voided.id);

  await h.sim.control.advanceClock(45 * DAY_MS);
  for (const id of [paid.id, voided.id]) {
    const res = await h.call('GET', `/venue/v1/orders/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('closed');
  }
  expect((await h.call('GET', '/venue/v1/orders?status=closed')).body).toHaveLength(2);

  await h.sim.control.advanceClock(60_000);
  for (const id of [paid.id, voided.id]) expect((await h.call('GET', `/venue/v1/orders/${id}`)).status).toBe(404);
  const all = (await h.call('GET', '/venue/v1/orders')).body;
  // Open orders are never expired: retention counts from closure.
  expect(all.map((o: { id: string }) => o.id)).toEqual([stillOpen.id]);
});
