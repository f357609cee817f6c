import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore, describePostgres, type StoreKind } from '../helpers/db.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { recordSuccesses, type Success } from '../../src/webhooks/deliveries.repository.ts';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import { testCertFile } from '../helpers/http.ts';
import { eventually } from '../helpers/eventually.ts';

// The sender records successful attempts of many jobs in one statement (issue 28's batching). A
// partner may remove an endpoint while its deliveries are in flight: the removal takes those
// deliveries with it. The full bench showed the batch's statement then failing on the attempt's
// foreign key, so the other endpoints' successes in the same batch were not recorded either, their
// jobs ran again and their receivers got the same event twice.

/** A delivery to a new endpoint of `pat`'s, sent and answered 2xx, its job claimed by worker-1: its success to record. */
async function inFlight(app: TestApp, pat: TestPartner): Promise<{ endpointId: string; success: Success }> {
  const endpoint = (await app.http.request('POST', '/v1/webhooks/endpoints', { token: pat.token, body: { url: 'https://127.0.0.1:9/hooks', events: ['payment.confirmed'] } })).body;
  const deliveryId = uuidv7();
  const jobId = uuidv7();
  await sql`INSERT INTO webhook_deliveries (id, endpoint_id, event_id, webhook_id, type, body, status, event_at, created_at, updated_at)
    VALUES (${deliveryId}, ${endpoint.id}, NULL, ${`msg_${deliveryId}`}, 'webhook.test', '{}', 'pending', now(), now(), now())`.execute(app.db.kysely);
  await sql`INSERT INTO jobs (id, kind, payload, run_at, locked_by, locked_until, claims, created_at)
    VALUES (${jobId}, 'webhooks.test-record', '{}', now(), 'worker-1', now() + interval '1 minute', 1, now())`.execute(app.db.kysely);
  return {
    endpointId: endpoint.id,
    success: {
      attemptId: uuidv7(),
      attempt: { delivery_id: deliveryId, endpoint_id: endpoint.id, attempt: 1, status: 'succeeded', response_code: 200, error: null, duration_ms: 5, at: new Date() },
      healthy: true,
      fence: { jobId, lockedBy: 'worker-1', claim: 1 },
    },
  };
}

/** A service on `store` and a payment app partner, started before the block's tests and closed after them. */
function serviceFor(store: StoreKind) {
  const ctx = {} as { app: TestApp; pat: TestPartner };
  beforeAll(async () => {
    process.env.NODE_EXTRA_CA_CERTS = testCertFile();
    ctx.app = await startTestApp({ store, env: { ALLOW_PRIVATE_TARGETS: '1' } });
    ctx.pat = await ctx.app.newPartner(['pat'], 'Payment app');
  });
  afterAll(async () => {
    await ctx.app?.close();
  });
  return ctx;
}

describeEachStore('recording a batch of successful webhook attempts', (store) => {
  const ctx = serviceFor(store);

  it('a delivery removed with its endpoint does not keep the other successes of its batch from being recorded', async () => {
    const { app, pat } = ctx;
    const removed = await inFlight(app, pat);
    const kept = await inFlight(app, pat);
    expect((await app.http.request('DELETE', `/v1/webhooks/endpoints/${removed.endpointId}`, { token: pat.token })).status).toBe(204);

    expect(await recordSuccesses(app.db.kysely, [removed.success, kept.success])).toEqual([true, true]);

    const { rows: deliveries } = await sql<{ id: string; status: string; attempts: number }>`
      SELECT id, status, attempts FROM webhook_deliveries WHERE id = ANY(${[removed.success.attempt.delivery_id, kept.success.attempt.delivery_id]}::uuid[])`.execute(app.db.kysely);
    expect(deliveries).toEqual([{ id: kept.success.attempt.delivery_id, status: 'succeeded', attempts: 1 }]);
    const { rows: attempts } = await sql<{ delivery_id: string }>`
      SELECT delivery_id FROM webhook_attempts WHERE id = ANY(${[removed.success.attemptId, kept.success.attemptId]}::uuid[])`.execute(app.db.kysely);
    expect(attempts).toEqual([{ delivery_id: kept.success.attempt.delivery_id }]);
    const { rows: jobs } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM jobs WHERE id = ANY(${[removed.success.fence.jobId, kept.success.fence.jobId]}::uuid[])`.execute(app.db.kysely);
    expect(jobs[0]!.n).toBe(0);
  });
});

// The ninth round's full bench: the batch's statement chosen by PostgreSQL to break a deadlock with
// an endpoint's removal (the cascade locks the endpoint's deliveries in its own order while the batch
// locks them in its), so none of the batch's successes were recorded and every job of the batch ran
// again. The statement is one, rolled back whole: it is asked again.
describePostgres('recording a batch of successful webhook attempts beside a removal', () => {
  const ctx = serviceFor('postgres');

  it('the batch ended by PostgreSQL to break a deadlock is recorded once the other side is done: every success of it, none twice', async () => {
    const { app, pat } = ctx;
    const kept = (await inFlight(app, pat)).success;
    const removed = (await inFlight(app, pat)).success;
    let batch: Promise<boolean[]> | undefined;
    await app.db.kysely.transaction().execute(async (tx) => {
      // The removal's side: it never runs the deadlock check first (the batch, waiting longer, does),
      // so PostgreSQL ends the batch, as it did in the bench.
      await sql`SET LOCAL deadlock_timeout = '20s'`.execute(tx);
      await sql`UPDATE webhook_deliveries SET updated_at = now() WHERE id = ${removed.attempt.delivery_id}`.execute(tx);
      batch = recordSuccesses(app.db.kysely, [kept, removed]);
      batch.catch(() => undefined);
      // The batch has the kept delivery and waits for the one the removal holds...
      await eventually(async () => {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE '%WITH u AS (%SELECT * FROM unnest(%'`.execute(app.db.kysely);
        expect(rows[0]!.n).toBeGreaterThanOrEqual(1);
      });
      // ...and the removal needs the kept one too: a deadlock. Then it removes its delivery.
      await sql`UPDATE webhook_deliveries SET updated_at = now() WHERE id = ${kept.attempt.delivery_id}`.execute(tx);
      await sql`DELETE FROM webhook_deliveries WHERE id = ${removed.attempt.delivery_id}`.execute(tx);
    });
    expect(await batch!).toEqual([true, true]);
    const { rows: deliveries } = await sql<{ id: string; status: string; attempts: number }>`
      SELECT id, status, attempts FROM webhook_deliveries WHERE id = ANY(${[kept.attempt.delivery_id, removed.attempt.delivery_id]}::uuid[])`.execute(app.db.kysely);
    expect(deliveries).toEqual([{ id: kept.attempt.delivery_id, status: 'succeeded', attempts: 1 }]);
    const { rows: attempts } = await sql<{ delivery_id: string }>`
      SELECT delivery_id FROM webhook_attempts WHERE id = ANY(${[kept.attemptId, removed.attemptId]}::uuid[])`.execute(app.db.kysely);
    expect(attempts).toEqual([{ delivery_id: kept.attempt.delivery_id }]);
    const { rows: jobs } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM jobs WHERE id = ANY(${[kept.fence.jobId, removed.fence.jobId]}::uuid[])`.execute(app.db.kysely);
    expect(jobs[0]!.n).toBe(0);
  });
});
