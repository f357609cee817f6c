import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import type { ManualClock } from '../../src/lib/clock.ts';
import { scheduleJob } from '../../src/db/jobs.ts';
import { SEATING_JOB, seatingJobKey } from '../../src/pos-mirror/reservation-orders.service.ts';
import { describeEachStore } from '../helpers/db.ts';
import { startSeatingWorld, type SeatingWorld } from '../helpers/seating.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

// A POS that cannot be reached when the guest sits down (DESIGN 8.3c): 202 pending, a durable retry
// at most 30 s apart for an hour, and the outcome as an event. The POS is behind a TCP proxy that
// can drop it; time is the service's manual clock, jobs are run by the test.

let proxy: TcpProxy;

async function world(store: 'pglite' | 'postgres'): Promise<SeatingWorld> {
  const w = await startSeatingWorld({ store, clock: 'manual', posBaseUrl: async (url) => (proxy = await startTcpProxy(url)).url });
  onTestFinished(() => proxy.close());
  return w;
}

const jobOf = async (w: SeatingWorld, bookingId: string) => {
  const { rows } = await sql<{ run_at: Date; status: string }>`
    SELECT j.run_at, s.status FROM seatings s LEFT JOIN jobs j ON j.dedupe_key = 'seating-open:' || s.id::text
    WHERE s.booking_id = ${bookingId}`.execute(w.app.db.kysely);
  return rows[0];
};

/** Moves the clock to the seating's next attempt, checking it is at most 30 s away, and runs it. */
async function nextAttempt(w: SeatingWorld, bookingId: string): Promise<void> {
  const clock = w.app.clock as ManualClock;
  const { run_at } = await jobOf(w, bookingId);
  const wait = run_at.getTime() - clock.now().getTime();
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(30_000);
  clock.advance(wait);
  await w.app.service.runner.runDue();
}

describeEachStore('seating while the POS cannot be reached', (store) => {
  it('[BKG-28] [BKG-35] 202 pending, retried at most 30 s apart, opened once the POS answers again: pos_order.opened', async () => {
    const w = await world(store);
    const v = await w.rmsVenue();
    proxy.down();
    const event = { bookingId: 'bk-down-1', venueId: v.externalId, status: 'seated', partySize: 3, tables: ['2'], date: '2026-01-15T13:30:00+01:00', prepayment: 20 };
    const res = await w.seat(event);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ bookingId: 'bk-down-1', status: 'pending' });
    expect(await w.events('pos_order.opened')).toHaveLength(0);
    // Sent again while pending: still pending, nothing more.
    expect((await w.seat(event)).status).toBe(202);

    for (let i = 0; i < 3; i++) {
      await nextAttempt(w, 'bk-down-1');
      expect((await jobOf(w, 'bk-down-1')).status).toBe('pending');
    }
    expect(await w.posCreates(v.posVenueId)).toHaveLength(0);

    proxy.up();
    await nextAttempt(w, 'bk-down-1');
    expect(await jobOf(w, 'bk-down-1')).toEqual({ status: 'opened', run_at: null });
    const creates = await w.posCreates(v.posVenueId);
    expect(creates).toHaveLength(1);
    expect(creates[0].body).toMatchObject({ tables: ['2'], partySize: 3, prepayment: 20, date: '2026-01-15 13:00:00' });
    const [opened] = await w.events('pos_order.opened');
    expect(opened).toMatchObject({ partner_id: w.rms.partnerId, venue_id: v.venueId, entity_id: res.body.orderId });
    expect(opened.data).toMatchObject({ bookingId: 'bk-down-1', orderId: res.body.orderId });
    const again = await w.seat(event);
    expect(again.body).toEqual({ bookingId: 'bk-down-1', orderId: res.body.orderId, status: 'unchanged', unknownSkus: [] });
    const bill = await w.bill(v, '2');
    expect(bill.body).toMatchObject({ orderId: res.body.orderId, partySize: 3 });
    expect(bill.body.totals.prepayment).toBe(20);
  });

  it('[BKG-28] [BKG-35] a POS down for the whole hour: the seating fails and pos_order.failed is emitted; sent again later, it is tried again', async () => {
    const w = await world(store);
    const v = await w.rmsVenue();
    proxy.down();
    const event = { bookingId: 'bk-down-2', venueId: v.externalId, status: 'seated', partySize: 2, tables: ['1'], date: '2026-01-15T13:00:00+01:00' };
    expect((await w.seat(event)).status).toBe(202);
    const clock = w.app.clock as ManualClock;
    await nextAttempt(w, 'bk-down-2');
    clock.advance(59 * 60_000);
    await w.app.service.runner.runDue();
    expect((await jobOf(w, 'bk-down-2')).status).toBe('pending');
    clock.advance(60_000);
    await w.app.service.runner.runDue();
    expect(await jobOf(w, 'bk-down-2')).toEqual({ status: 'failed', run_at: null });
    const [failed] = await w.events('pos_order.failed');
    expect(failed).toMatchObject({ partner_id: w.rms.partnerId, venue_id: v.venueId });
    expect(failed.data).toMatchObject({ bookingId: 'bk-down-2', reason: expect.stringContaining('within an hour') });
    expect(await w.events('pos_order.opened')).toHaveLength(0);

    proxy.up();
    const retried = await w.seat(event);
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('opened');
    expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
  });

  it('[BKG-35] [BKG-38] a process that died after claiming a seating: once the claim’s lease is over, the job looks for the order (it may have been sent), twice 30 s apart, then opens it', async () => {
    const w = await world(store);
    const v = await w.rmsVenue();
    const clock = w.app.clock as ManualClock;
    // The claim a dead process left: the row (status opening, a lease) and its job, nothing sent.
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + 25_000);
    const orderId = '01900000-0000-7000-8000-00000000dead';
    await w.app.db.kysely.transaction().execute(async (tx) => {
      const { rows } = await sql<{ id: string }>`
        INSERT INTO seatings (id, partner_id, venue_id, booking_id, order_id, status, party_size, prepayment_minor, reservation_date,
                              seated_at, pos_request, attempts, lease_until, deadline_at, created_at, updated_at)
        VALUES (gen_random_uuid(), ${w.rms.partnerId}, ${v.venueId}, 'bk-dead', ${orderId}, 'opening', 2, 0, ${now}, ${now},
                ${JSON.stringify({ id: orderId, tables: ['4'], partySize: 2, prepayment: 0, date: '2026-01-15 13:00:00' })}::jsonb,
                1, ${leaseUntil}, ${new Date(now.getTime() + 3_600_000)}, ${now}, ${now})
        RETURNING id`.execute(tx);
      await scheduleJob(tx, { kind: SEATING_JOB, runAt: leaseUntil, dedupeKey: seatingJobKey(rows[0].id), payload: { seatingId: rows[0].id } }, now);
    });
    await w.app.service.runner.runDue();
    expect(await w.posCreates(v.posVenueId)).toHaveLength(0);
    clock.advance(25_000);
    await w.app.service.runner.runDue();
    // The dead attempt may have sent its create: the POS's open orders are looked at, twice 30 s apart.
    expect((await jobOf(w, 'bk-dead')).status).toBe('pending');
    expect(await w.posCreates(v.posVenueId)).toHaveLength(0);
    await nextAttempt(w, 'bk-dead');
    expect((await jobOf(w, 'bk-dead')).status).toBe('opened');
    expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
    const again = await w.seat({ bookingId: 'bk-dead', venueId: v.externalId, status: 'seated', partySize: 2, tables: ['4'], date: '2026-01-15T13:00:00+01:00' });
    expect(again.body).toMatchObject({ status: 'unchanged', orderId });
  });
});
