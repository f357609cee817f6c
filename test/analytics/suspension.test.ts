import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/operator/commands.ts';
import type { ManualClock } from '../../src/lib/clock.ts';
import { resumeConnection, suspendConnection } from '../../src/pos-mirror/connections.repository.ts';
import { ORDER_SYNC_JOB } from '../../src/pos-mirror/sync.service.ts';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';

// DESIGN 9: a venue is "temporarily unavailable" for analytics while its POS connection is
// suspended, which happens when the POS refuses our credentials (seen by the order sync, over real
// HTTPS against the simulator playing a restaurant that withdrew access) or when the operator runs
// `tableside venue suspend`. Pay-at-table then answers 404 for new work, while payments already made
// stay readable; analytics history keeps answering.

const MINUTE = 60_000;

async function world() {
  const w = await startPatWorld({ clock: 'manual' });
  const clock = w.app.clock as ManualClock;
  await w.sim.control.setClock({ set: clock.now().toISOString(), frozen: true });
  const tick = async (ms: number) => {
    clock.advance(ms);
    await w.sim.control.advanceClock(ms);
    // Tokens last an hour of the manual clock; keep the partner's fresh.
    w.partner.token = (await w.app.service.app.services.auth.issueToken(w.partner.partnerId)).accessToken;
  };
  return { w, clock, tick };
}

const analyticsVenues = async (w: PatWorld) =>
  ((await w.app.http.get('/v1/pos/partner/venues', { token: w.partner.token })).body.venues as Array<{ id: string }>).map((v) => v.id);

const features = (w: PatWorld, v: ConnectedVenue) => w.app.http.get(`/v1/pat/venue/${v.venueId}/features`, { token: w.partner.token });

async function connection(w: PatWorld, venueId: string) {
  const { rows } = await sql<{ status: string; suspended_reason: string | null }>`
    SELECT status, suspended_reason FROM pos_connections WHERE venue_id = ${venueId}`.execute(w.app.db.kysely);
  return rows[0];
}

async function syncJobExists(w: PatWorld, venueId: string): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM jobs WHERE kind = ${ORDER_SYNC_JOB} AND dedupe_key = ${`orders-sync:${venueId}`}`.execute(w.app.db.kysely);
  return rows.length === 1;
}

describe('suspended POS connections', () => {
  it('[DES-127] the POS refusing our credentials suspends the venue at the next sync; it comes back by itself once the POS accepts them', async () => {
    const { w, clock, tick } = await world();
    const v = await w.connectVenue({ posType: POS.immediate });
    await w.app.service.runner.runDue();
    await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] });
    const bill = await w.bill(v, '1');
    const paid = await w.pay(v, bill.body.orderId, { externalReference: 'susp-1', amount: 29, type: 'full' });
    expect(paid.status).toBe(200);
    expect(paid.body.orderStatus).toBe('closed'); // recorded in the closed-order history
    expect(await analyticsVenues(w)).toEqual([v.venueId]);

    // The restaurant withdraws the integration's access in its POS back office.
    await w.sim.control.putVenue(v.posVenueId, { accessRevoked: true });
    await tick(MINUTE);
    await w.app.service.runner.runDue();
    expect(await connection(w, v.venueId)).toEqual({ status: 'suspended', suspended_reason: 'credentials_refused' });

    expect(await analyticsVenues(w)).toEqual([]);
    const history = await w.app.http.get(`/v1/pos/venue/${v.venueId}/order`, {
      token: w.partner.token,
      query: { from: new Date(clock.now().getTime() - 86_400_000).toISOString(), until: clock.now().toISOString() },
    });
    expect(history.status).toBe(200); // its orders still answer
    expect(history.body.total).toBe(1);
    const f = await features(w, v);
    expect(f.status).toBe(404);
    expect(f.body.error.message).toMatch(/No POS connection found.*suspended \(the POS refused our credentials/);
    expect((await w.bill(v, '1')).status).toBe(404);

    // A payment already made stays readable and replayable; a new one is refused before any POS call.
    const status = await w.paymentStatus(v, bill.body.orderId, 'susp-1');
    expect(status.status).toBe(200);
    expect(status.body.status).toBe('confirmed');
    const replay = await w.pay(v, bill.body.orderId, { externalReference: 'susp-1', amount: 29, type: 'full' });
    expect(replay.status).toBe(200);
    expect(replay.headers['x-idempotent-replay']).toBe('true');
    const fresh = await w.pay(v, bill.body.orderId, { externalReference: 'susp-2', amount: 5, type: 'partial' });
    expect(fresh.status).toBe(404);
    expect(fresh.body.error.message).toMatch(/No POS connection found.*suspended/);

    // Still refused: still suspended, and the sync keeps probing at its interval.
    await tick(MINUTE);
    await w.app.service.runner.runDue();
    expect((await connection(w, v.venueId)).status).toBe('suspended');
    expect(await syncJobExists(w, v.venueId)).toBe(true);

    await w.sim.control.putVenue(v.posVenueId, { accessRevoked: false });
    await tick(MINUTE);
    await w.app.service.runner.runDue();
    expect(await connection(w, v.venueId)).toEqual({ status: 'active', suspended_reason: null });
    expect(await analyticsVenues(w)).toEqual([v.venueId]);
    expect((await features(w, v)).status).toBe(200);
    await w.openOrder(v.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'BURGER', quantity: 1 }] }] });
    const next = await w.bill(v, '2');
    expect(next.status).toBe(200);
    const again = await w.pay(v, next.body.orderId, { externalReference: 'susp-2', amount: 5, type: 'partial' });
    expect(again.status).toBe(200);
  });

  it('[DES-127] `venue suspend` by the operator holds until `venue resume`; orders closed meanwhile arrive at the resumed sync', async () => {
    const { w, clock, tick } = await world();
    const deps = { db: w.app.db, services: w.app.service.app.services };
    const v = await w.connectVenue({ posType: POS.stored });
    await w.app.service.runner.runDue();

    expect(await runCommand('venue.suspend', { venue: v.venueId }, deps)).toEqual({ venueId: v.venueId, status: 'suspended', suspendedReason: 'operator' });
    expect(await analyticsVenues(w)).toEqual([]);
    const f = await features(w, v);
    expect(f.status).toBe(404);
    expect(f.body.error.message).toMatch(/No POS connection found.*suspended by the operator/);

    // The POS is fine, but an operator's suspension is not lifted by a sync: the sync job ends.
    const order = await w.openOrder(v.posVenueId, { tables: ['2'], checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] });
    await tick(MINUTE);
    await w.sim.control.closeOrder(v.posVenueId, order.id);
    await tick(MINUTE);
    await w.app.service.runner.runDue();
    expect(await connection(w, v.venueId)).toEqual({ status: 'suspended', suspended_reason: 'operator' });
    expect(await syncJobExists(w, v.venueId)).toBe(false);

    expect(await runCommand('venue.resume', { venue: v.venueId }, deps)).toEqual({ venueId: v.venueId, status: 'active', suspendedReason: null });
    expect(await syncJobExists(w, v.venueId)).toBe(true);
    await w.app.service.runner.runDue();
    expect(await analyticsVenues(w)).toEqual([v.venueId]);
    const history = await w.app.http.get(`/v1/pos/venue/${v.venueId}/order`, {
      token: w.partner.token,
      query: { from: new Date(clock.now().getTime() - 86_400_000).toISOString(), until: clock.now().toISOString() },
    });
    expect(history.body.orders.map((o: { externalId: string }) => o.externalId)).toEqual([order.id]);

    // Bad input: not a UUID, and a venue without a connection.
    await expect(runCommand('venue.suspend', { venue: 'nope' }, deps)).rejects.toThrow(/UUID/);
    const bare = await w.app.newVenue();
    await expect(runCommand('venue.resume', { venue: bare }, deps)).rejects.toThrow(/no POS connection/);
  });

  it('[DES-127] an operator suspension outranks a credentials one; a sync never lifts it', async () => {
    const { w, clock } = await world();
    const v = await w.connectVenue({ posType: POS.stored });
    const db = w.app.db.kysely;
    expect((await suspendConnection(db, v.venueId, 'credentials_refused', clock.now()))!.suspended_reason).toBe('credentials_refused');
    expect((await suspendConnection(db, v.venueId, 'operator', clock.now()))!.suspended_reason).toBe('operator');
    expect((await suspendConnection(db, v.venueId, 'credentials_refused', clock.now()))!.suspended_reason).toBe('operator');
    expect((await resumeConnection(db, v.venueId, clock.now(), 'credentials_refused'))!.status).toBe('suspended');
    expect(await w.app.service.app.services.orderSync.syncVenue(v.venueId)).toBeNull();
    expect((await resumeConnection(db, v.venueId, clock.now()))!).toMatchObject({ status: 'active', suspended_reason: null });
  });
});
