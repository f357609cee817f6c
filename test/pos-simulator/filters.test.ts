// GET /venue/{id}/orders filters: status (spec 4.6) and from/until on updatedAt (DESIGN 9).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, smallVenue, type SimHarness } from './sim-helpers.ts';

let h: SimHarness;
const MIN = 60_000;
const T0 = '2025-05-01T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * MIN).toISOString();
let ids: { early: string; late: string; closed: string; voided: string };

// A stopped simulator clock makes every updatedAt exact: early at +0, late at +30, closed at +20,
// voided at +40 (both opened at +10).
beforeEach(async () => {
  h = await harness();
  await smallVenue(h);
  const c = h.sim.control;
  await c.setClock({ set: T0, frozen: true });
  const early = (await h.call('POST', '/venue/v1/orders', { tables: ['T1'] })).body.id;
  await c.setClock({ set: at(10) });
  const closed = (await c.openOrder('v1', { tables: ['T2'], checks: [{ items: [{ sku: 'A', quantity: 1 }] }] })).id;
  const voided = (await c.openOrder('v1', { tables: ['T3'] })).id;
  await c.setClock({ set: at(20) });
  await c.closeOrder('v1', closed, { paymentMethod: 'card' });
  await c.setClock({ set: at(30) });
  const late = (await h.call('POST', '/venue/v1/orders', { tables: ['T4'] })).body.id;
  await c.setClock({ set: at(40) });
  await c.voidOrder('v1', voided);
  ids = { early, late, closed, voided };
});
afterEach(() => h.close());

async function list(query: string): Promise<Array<{ id: string; status: string; updatedAt: string }>> {
  const res = await h.call('GET', `/venue/v1/orders${query}`);
  expect(res.status).toBe(200);
  return res.body;
}
const idsOf = (orders: Array<{ id: string }>) => orders.map((o) => o.id).sort();

describe('status filter', () => {
  it('[POS-16] status=open returns only open orders', async () => {
    const open = await list('?status=open');
    expect(open.every((o) => o.status === 'open')).toBe(true);
    expect(idsOf(open)).toEqual([ids.early, ids.late].sort());
  });

  it('[POS-17] status=closed returns only closed orders (voided ones included: all their checks are void)', async () => {
    const closed = await list('?status=closed');
    expect(closed.every((o) => o.status === 'closed')).toBe(true);
    expect(idsOf(closed)).toEqual([ids.closed, ids.voided].sort());
    const voided = closed.find((o) => o.id === ids.voided) as unknown as { checks: Array<{ status: string; voidedAt: string | null }>; closedAt: string };
    expect(voided.checks.every((c) => c.status === 'void' && c.voidedAt !== null)).toBe(true);
    expect(voided.closedAt).not.toBeNull();
  });

  it('[POS-18] without status, open and closed orders are both returned', async () => {
    const all = await list('');
    expect(idsOf(all)).toEqual(Object.values(ids).sort());
    expect(new Set(all.map((o) => o.status))).toEqual(new Set(['open', 'closed']));
  });

  it('(spec 4.6) an invalid status or bound is a 400 JSON', async () => {
    for (const q of ['?status=void', '?from=yesterday', '?until=2025-13-01']) {
      const res = await h.call('GET', `/venue/v1/orders${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
  });
});

describe('from/until window', () => {
  it('[POS-19] from and until (ISO 8601) return only the orders updated inside the window', async () => {
    expect(idsOf(await list(`?from=${at(15)}&until=${at(35)}`))).toEqual([ids.closed, ids.late].sort());
    expect(idsOf(await list(`?from=${at(35)}`))).toEqual([ids.voided]);
    expect(idsOf(await list(`?until=${at(5)}`))).toEqual([ids.early]);
    // Offsets other than Z are the same instant (the '+' percent-encoded).
    expect(idsOf(await list(`?from=${encodeURIComponent('2025-05-01T12:15:00+02:00')}&until=${encodeURIComponent('2025-05-01T12:35:00+02:00')}`)))
      .toEqual([ids.closed, ids.late].sort());
    // Combined with status.
    expect(idsOf(await list(`?status=closed&from=${at(15)}&until=${at(35)}`))).toEqual([ids.closed]);
  });

  it('[DES-128] from and until are both inclusive bounds on updatedAt', async () => {
    expect(idsOf(await list(`?from=${at(20)}&until=${at(20)}`))).toEqual([ids.closed]);
    expect(idsOf(await list(`?from=${at(30)}&until=${at(40)}`))).toEqual([ids.late, ids.voided].sort());
    // The closed order was created at +10 and updated at +20: the window is on updatedAt, not createdAt.
    expect(idsOf(await list(`?from=${at(10)}&until=${at(10)}`))).toEqual([]);
  });
});
