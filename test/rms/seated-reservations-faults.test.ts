import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import type { ManualClock } from '../../src/lib/clock.ts';
import type { CreateAnswer } from '../../pos-simulator/src/index.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { startSeatingWorld, type RmsVenue, type SeatingWorld } from '../helpers/seating.ts';

// Seating under POS faults (DESIGN 8.8a): a POS answering a create with a 2xx the contract does not
// describe, creating the order and never answering, answering 5xx or 429, or answering so slowly
// that an attempt outlives its first lease. Each is scripted on the reference simulator over HTTPS
// (its seating-fault knobs); time is the service's manual clock, jobs are run by the test.

let n = 0;
const seatedEvent = (v: RmsVenue, fields: Record<string, unknown> = {}) => ({
  bookingId: `bk-fault-${process.pid}-${++n}`, venueId: v.externalId, status: 'seated', partySize: 3, tables: ['2'],
  date: '2026-01-15T13:00:00+01:00', ...fields,
});

const start = (store: 'pglite' | 'postgres', posTimeoutMs: number) =>
  startSeatingWorld({ store, clock: 'manual', autoClose: false, env: { POS_TIMEOUT_MS: String(posTimeoutMs) } });

/** The booking's pos_order.opened events (the world is shared by the file's tests). */
const openedOf = async (w: SeatingWorld, bookingId: string) => (await w.events('pos_order.opened')).filter((e) => e.data.bookingId === bookingId);

/** What the POS holds for the booking: its orders on the event's tables and the creates it received. */
async function onPos(w: SeatingWorld, v: RmsVenue) {
  const creates = await w.posCreates(v.posVenueId);
  const requests = await w.sim.control.requests(v.posVenueId);
  return { creates, created: creates.filter((c) => (c.status ?? 0) < 300 || c.status === undefined), requests };
}

describeEachStore('seating when the POS answers oddly', (store) => {
  // One world for the file (each test has its own venue, and leaves its seating settled): POS calls
  // time out after 1.5 s, so a create that never answers costs that much real time.
  let shared: SeatingWorld;
  beforeAll(async () => {
    shared = await start(store, 1500);
  });
  afterAll(async () => {
    await shared?.close();
  });
  const world = async () => shared;

  for (const answer of ['empty', 'not-json', 'id-only'] satisfies CreateAnswer[]) {
    it(`[BKG-37] a 2xx create answered ${answer}: the order exists; recorded as opened with the POS's order found on its open orders, never created again`, async () => {
      const w = await world();
      const v = await w.rmsVenue();
      await w.sim.control.setSeatingFaults(v.posVenueId, { createAnswers: [answer] });
      const event = seatedEvent(v);
      const res = await w.seat(event);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ bookingId: event.bookingId, status: 'opened', unknownSkus: [] });
      const orderId = res.body.orderId;
      const posOrders = (await w.sim.control.requests(v.posVenueId)).filter((r) => r.method === 'POST');
      expect(posOrders).toHaveLength(1);
      const seating = await w.seating(event.bookingId);
      expect(seating).toMatchObject({ status: 'opened', order_id: orderId, run_at: null });
      const posOrder = await w.sim.control.getOrder(v.posVenueId, seating.pos_order_id!);
      expect(posOrder).toMatchObject({ tables: ['2'], partySize: 3, status: 'open' });
      // Later attempts, re-sent events: nothing more is created, the id stays.
      (w.app.clock as ManualClock).advance(120_000);
      await w.app.service.runner.runDue();
      expect((await w.seat(event)).body).toEqual({ bookingId: event.bookingId, orderId, status: 'unchanged', unknownSkus: [] });
      expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
      expect((await w.bill(v, '2')).body).toMatchObject({ orderId, partySize: 3 });
      const opened = await openedOf(w, event.bookingId);
      expect(opened).toHaveLength(1);
      expect(opened[0].data).toMatchObject({ orderId, posOrderId: seating.pos_order_id });
    });
  }

  it('[BKG-37] a POS that keeps the id sent as its own order id (echo): a create answered empty is found by that id', async () => {
    const w = await world();
    const v = await w.rmsVenue();
    // A walk-in on the same table with the same party size: only the echoed id tells the two apart.
    await w.openOrder(v.posVenueId, { tables: ['2'], partySize: 3 });
    await w.sim.control.setSeatingFaults(v.posVenueId, { echoId: true, createAnswers: ['empty'] });
    const event = seatedEvent(v);
    const res = await w.seat(event);
    expect(res.status, res.text).toBe(200);
    expect(await w.seating(event.bookingId)).toMatchObject({ status: 'opened', pos_order_id: res.body.orderId });
    expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
  });

  it('[BKG-37] a 503 that created the order: 202, and the next attempt finds it instead of creating a second', async () => {
    const w = await world();
    const v = await w.rmsVenue();
    await w.sim.control.setSeatingFaults(v.posVenueId, { createAnswers: ['error503-after-create'] });
    const event = seatedEvent(v);
    const res = await w.seat(event);
    expect(res.status, res.text).toBe(202);
    expect(await w.seating(event.bookingId)).toMatchObject({ status: 'pending', pos_outcome: 'unknown' });
    await w.nextAttempt(event.bookingId);
    expect(await w.seating(event.bookingId)).toMatchObject({ status: 'opened', order_id: res.body.orderId, run_at: null });
    expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
    expect(await openedOf(w, event.bookingId)).toHaveLength(1);
  });

  it('[BKG-37] a 503 that created nothing: created again only after two looks 30 s apart found no order; a 429 is simply tried again', async () => {
    const w = await world();
    const v = await w.rmsVenue();
    await w.sim.control.setSeatingFaults(v.posVenueId, { createAnswers: ['error503', 'error429'] });
    const event = seatedEvent(v);
    expect((await w.seat(event)).status).toBe(202);
    await w.nextAttempt(event.bookingId); // looks: nothing
    expect(await w.seating(event.bookingId)).toMatchObject({ status: 'pending' });
    expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
    await w.nextAttempt(event.bookingId); // looks again 30 s later: nothing; creates: 429
    expect(await w.posCreates(v.posVenueId)).toHaveLength(2);
    await w.nextAttempt(event.bookingId); // a 429 took nothing in: created at once
    expect(await w.seating(event.bookingId)).toMatchObject({ status: 'opened', run_at: null });
    const creates = await w.posCreates(v.posVenueId);
    expect(creates.map((c) => c.status)).toEqual([503, 429, 201]);
    expect(await openedOf(w, event.bookingId)).toHaveLength(1);
  });

  it('[BKG-39] a create that timed out after the POS made the order: 202 with id X; the live bill that meets the POS order first shows X, and the seating opens as X', async () => {
    const w = await world();
    const v = await w.rmsVenue();
    await w.sim.control.setSeatingFaults(v.posVenueId, { createAnswers: ['timeout-after-create'] });
    const event = seatedEvent(v, { tables: ['3'], prepayment: 10 });
    const res = await w.seat(event);
    expect(res.status, res.text).toBe(202);
    const answered = res.body.orderId;
    expect(answered).toEqual(expect.any(String));
    // The POS order is read by the pay-at-table bill before the seating's retry runs.
    const bill = await w.bill(v, '3');
    expect(bill.status, bill.text).toBe(200);
    expect(bill.body).toMatchObject({ orderId: answered, partySize: 3 });
    expect(bill.body.totals.prepayment).toBe(10);
    await w.nextAttempt(event.bookingId);
    expect(await w.seating(event.bookingId)).toMatchObject({ status: 'opened', order_id: answered });
    const [opened] = await openedOf(w, event.bookingId);
    expect(opened).toMatchObject({ entity_id: answered });
    expect(opened.data.orderId).toBe(answered);
    expect((await w.seat(event)).body).toMatchObject({ orderId: answered, status: 'unchanged' });
    expect((await w.bill(v, '3')).body.orderId).toBe(answered);
    expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
  });

  it('[BKG-38] a POS answering each call after 9 s (an unknown SKU: two creates and a read) outlives the first lease: the job waits, one POS order, one pos_order.opened, no 500', async () => {
    // POS_TIMEOUT_MS 10 s: the first lease is 2 x 10 s + 5 s = 25 s; three calls of 9 s outlive it.
    const w = await start(store, 10_000);
    onTestFinished(() => w.close());
    const v = await w.rmsVenue();
    const clock = w.app.clock as ManualClock;
    await w.sim.control.setSeatingFaults(v.posVenueId, { hold: true });
    const event = seatedEvent(v, { items: [{ sku: 'ESP', quantity: 2 }, { sku: 'NOT-ON-MENU', quantity: 1 }] });
    const seat = w.seat(event);
    // Each POS call of the seating is held while the test moves the clock 9 s and runs the due jobs
    // to their end (their own POS calls let through), so the job acts while the request's call is
    // in flight: by the third call the claim's first lease is over.
    const holding = async () => (await w.sim.control.seatingFaults(v.posVenueId)).holding;
    for (let call = 0; call < 3; call++) {
      await eventually(async () => expect(await holding()).toBe(1), { what: `the seating's POS call ${call + 1} held` });
      clock.advance(9_000);
      let jobsDone = false;
      const jobs = w.app.service.runner.runDue().finally(() => (jobsDone = true));
      await eventually(async () => {
        if ((await holding()) > 1) await w.sim.control.release(v.posVenueId, { newest: true });
        expect(jobsDone).toBe(true);
      }, { what: 'the due jobs to end' });
      await jobs;
      await w.sim.control.release(v.posVenueId);
    }
    const res = await seat;
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'opened', unknownSkus: ['NOT-ON-MENU'] });
    await w.sim.control.setSeatingFaults(v.posVenueId, {});
    clock.advance(60_000);
    await w.app.service.runner.runDue();
    const { creates } = await onPos(w, v);
    expect(creates.map((c) => c.status)).toEqual([422, 201]);
    const opened = await w.events('pos_order.opened');
    expect(opened).toHaveLength(1);
    expect(opened[0].entity_id).toBe(res.body.orderId);
    expect(await w.seating(event.bookingId)).toMatchObject({ status: 'opened', order_id: res.body.orderId, run_at: null });
  });
});
