import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import { openPostgres } from '../../src/db/db.ts';
import { jsonOf, runCli } from '../helpers/cli.ts';
import { startCluster } from '../helpers/cluster.ts';
import { describePostgres } from '../helpers/db.ts';

// Exactly once across processes (DESIGN 8.3c): the same seated event delivered to two `tableside
// serve` processes sharing one PostgreSQL creates one POS order. The rule is the database's
// (seatings is unique per venue and booking), not a check in either process's memory.

describePostgres('seated events racing on two processes', () => {
  it('[BKG-26] [BKG-25] two identical seated events sent at once to two processes on one PostgreSQL: one POS order, one orderId', async () => {
    const c = await startCluster(2);
    const rms = jsonOf(await runCli(['partner', 'create', '--name', 'race rms', '--access', 'rms', '--json'], { DATABASE_URL: c.url }));
    const posVenueId = 'race-location';
    await c.sim.control.createVenue({
      id: posVenueId, currency: 'EUR', timezone: 'Europe/Madrid',
      tables: [{ id: '1', name: 'T1' }, { id: '2', name: 'T2' }], menu: [{ sku: 'X', name: 'Dish', price: 10 }],
    });
    const [a, b] = c.clients;
    const created = await a.post('/v1/rms/venues', { token: rms.apiKey, body: { externalId: 'race-venue', name: 'Race venue', countryCode: 'ES', city: 'Madrid', currency: 'EUR' } });
    expect(created.status, created.text).toBe(200);
    const link = await b.post('/v1/rms/venues/race-venue/pos-connection', { token: rms.apiKey, body: { posType: 'sim' } });
    expect(link.status, link.text).toBe(200);
    const url = new URL(link.body.onboarding.url);
    const page = await a.post(`${url.pathname}${url.search}`, { body: `posVenueId=${posVenueId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(page.status).toBe(200);

    const rounds = 8;
    for (let i = 0; i < rounds; i++) {
      const event = { bookingId: `race-${i}`, venueId: 'race-venue', status: 'seated', partySize: 2, tables: [String((i % 2) + 1)], date: '2026-01-15T20:00:00+01:00', items: [{ sku: 'X', quantity: 1 }] };
      const answers = await Promise.all([a, b, a, b].map((client) => client.post('/v1/rms/pos/reservations', { token: rms.apiKey, body: event })));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(answers.map((r) => r.body.status).sort()).toEqual(['opened', 'unchanged', 'unchanged', 'unchanged']);
      expect(new Set(answers.map((r) => r.body.orderId)).size).toBe(1);
    }
    const creates = (await c.sim.control.requests(posVenueId)).filter((r) => r.method === 'POST' && r.path === `/venue/${posVenueId}/orders`);
    expect(creates).toHaveLength(rounds);
    expect(new Set(creates.map((r) => (r.body as { id: string }).id)).size).toBe(rounds);

    const db = openPostgres(c.url);
    onTestFinished(() => db.close());
    const { rows } = await sql<{ n: number; opened: number }>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'opened')::int AS opened FROM seatings`.execute(db.kysely);
    expect(rows[0]).toEqual({ n: rounds, opened: rounds });
    const events = await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox WHERE type = 'pos_order.opened'`.execute(db.kysely);
    expect(events.rows[0].n).toBe(rounds);
  }, 180_000);
});
