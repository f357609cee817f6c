import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JobRunner } from '../../src/db/jobs.ts';
import { createSealer } from '../../src/db/sealing-key.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/server/logger.ts';
import { createWebhookDelivery, DELIVER_JOB } from '../../src/webhooks/delivery.service.ts';
import { insertDeliveries } from '../../src/webhooks/deliveries.repository.ts';
import { SIGNING_SECRETS_KEY_SETTING } from '../../src/webhooks/endpoints.service.ts';
import { createSender, type Sender } from '../../src/webhooks/sender.ts';
import type { TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { startWebhookWorld, type WebhookWorld } from './world.ts';

// The delivery's writes are single statements fenced on the job's claim (issue 28: the fan-out and
// a successful attempt are one statement each, with no transaction of their own). A run whose claim
// was taken over (its lease expired, another process runs the job: BKG-38) must write nothing, and
// the run that holds the claim sends again with the same webhook-id (at least once, WHK-05).

describeEachStore('webhook delivery: fenced single-statement writes', (store) => {
  let w: WebhookWorld;
  let a: TestPartner;
  let venue: string;
  beforeAll(async () => {
    w = await startWebhookWorld(store);
    a = await w.app.newPartner(['pat'], 'A');
    venue = await w.app.newVenue({ name: 'A venue' });
    await w.app.grant(a.partnerId, venue);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('[BKG-38] [WHK-05] an attempt whose claim is taken over while it POSTs records nothing; the process that took it over sends again with the same webhook-id and records attempt 1', async () => {
    const ep = await w.endpoint(a, ['order.closed'], '/taken-over');
    const db = w.app.db;
    const real = createSender({ allowPrivate: true });
    let steal = true;
    // Another process takes the claim over while this one's POST is in flight.
    const sender: Sender = {
      async post(url, headers, body) {
        if (steal) await sql`UPDATE jobs SET locked_by = 'another-process' WHERE kind = ${DELIVER_JOB}`.execute(db.kysely);
        return real.post(url, headers, body);
      },
      close: () => real.close(),
    };
    const log = createLogger('silent');
    const delivery = createWebhookDelivery({
      db, clock: w.clock, log, sender, allowPrivateTargets: true,
      sealer: createSealer({ db, clock: w.clock, secretsKey: null, setting: SIGNING_SECRETS_KEY_SETTING }),
    });
    const runner = new JobRunner({ db, clock: w.clock, log });
    for (const [kind, definition] of Object.entries(delivery.jobs())) runner.register(kind, definition);

    await w.emitEvent({ venueId: venue }, 'order.closed', 'order-taken-over');
    await runner.runDue();
    try {
      expect(w.receiver.on('/taken-over')).toHaveLength(1);
      const state = async () => {
        const { rows } = await sql<{ status: string; attempts: number; logged: string; job_holder: string | null }>`
          SELECT d.status, d.attempts, (SELECT count(*) FROM webhook_attempts t WHERE t.delivery_id = d.id)::text AS logged,
                 (SELECT j.locked_by FROM jobs j WHERE j.payload->>'deliveryId' = d.id::text) AS job_holder
          FROM webhook_deliveries d WHERE d.endpoint_id = ${ep.id}`.execute(db.kysely);
        return rows;
      };
      expect(await state()).toEqual([{ status: 'pending', attempts: 0, logged: '0', job_holder: 'another-process' }]);

      // The other process's lease expires too (it died); any process runs the job again.
      steal = false;
      await sql`UPDATE jobs SET locked_by = NULL, locked_until = NULL WHERE kind = ${DELIVER_JOB}`.execute(db.kysely);
      await runner.runDue();
      const [first, second] = w.receiver.on('/taken-over');
      expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(await state()).toEqual([{ status: 'succeeded', attempts: 1, logged: '1', job_holder: null }]);
    } finally {
      await real.close();
    }
  });

  it('[BKG-38] successes recorded together are fenced each on its own claim: of three deliveries sent at once, the one taken over records nothing, the two others their attempt', async () => {
    const eps = [await w.endpoint(a, ['order.closed'], '/batch-1'), await w.endpoint(a, ['order.closed'], '/batch-2'), await w.endpoint(a, ['order.closed'], '/batch-3')];
    const db = w.app.db;
    const real = createSender({ allowPrivate: true });
    const sender: Sender = {
      async post(url, headers, body) {
        if (url.endsWith('/batch-2')) {
          await sql`UPDATE jobs SET locked_by = 'another-process'
                    WHERE payload->>'deliveryId' = (SELECT id::text FROM webhook_deliveries WHERE webhook_id = ${headers['webhook-id']!})`.execute(db.kysely);
        }
        return real.post(url, headers, body);
      },
      close: () => real.close(),
    };
    const log = createLogger('silent');
    const delivery = createWebhookDelivery({
      db, clock: w.clock, log, sender, allowPrivateTargets: true,
      sealer: createSealer({ db, clock: w.clock, secretsKey: null, setting: SIGNING_SECRETS_KEY_SETTING }),
    });
    const runner = new JobRunner({ db, clock: w.clock, log });
    for (const [kind, definition] of Object.entries(delivery.jobs())) runner.register(kind, definition);
    await w.emitEvent({ venueId: venue }, 'order.closed', 'order-batch');
    try {
      await runner.runDue();
      for (const path of ['/batch-1', '/batch-2', '/batch-3']) expect(w.receiver.on(path)).toHaveLength(1);
      const { rows } = await sql<{ endpoint_id: string; status: string; logged: string }>`
        SELECT d.endpoint_id, d.status, (SELECT count(*) FROM webhook_attempts t WHERE t.delivery_id = d.id)::text AS logged
        FROM webhook_deliveries d WHERE d.endpoint_id = ANY(${eps.map((e) => e.id)}::uuid[])`.execute(db.kysely);
      const byEndpoint = Object.fromEntries(rows.map((r) => [r.endpoint_id, [r.status, r.logged]]));
      expect(eps.map((e) => byEndpoint[e.id])).toEqual([['succeeded', '1'], ['pending', '0'], ['succeeded', '1']]);
    } finally {
      await real.close();
    }
  });

  it('[BKG-38] a fan-out written under a claim taken over writes no delivery and ends no job; under its own claim it writes every delivery, their jobs, and ends the fan-out job, in one statement', async () => {
    const eps = [await w.endpoint(a, ['order.closed'], '/fan-1'), await w.endpoint(a, ['order.closed'], '/fan-2')];
    const db = w.app.db;
    const eventId = await w.emitEvent({ venueId: venue }, 'order.closed', 'order-fenced-fan-out');
    const { rows: [event] } = await sql<{ id: string; type: string; created_at: Date }>`SELECT id, type, created_at FROM outbox WHERE id = ${eventId}`.execute(db.kysely);
    // Claimed by this run (claim 1), as the runner's claim statement leaves it.
    const { rows: [job] } = await sql<{ id: string }>`
      UPDATE jobs SET locked_by = 'this-run', locked_until = now() + interval '1 minute', claims = 1
      WHERE payload->>'eventId' = ${eventId} RETURNING id`.execute(db.kysely);
    const rows = eps.map((ep) => ({ id: uuidv7(), endpoint_id: ep.id, webhook_id: `msg_${uuidv7()}`, body: '{}', jobId: uuidv7() }));
    const write = (fence: { jobId: string; lockedBy: string; claim: number }) =>
      insertDeliveries(db.kysely, { event: event!, rows, jobKind: DELIVER_JOB, jobKeyPrefix: `${DELIVER_JOB}:` }, w.clock.now(), fence);
    const written = async () => {
      const { rows: d } = await sql<{ n: string }>`SELECT count(*)::text AS n FROM webhook_deliveries WHERE event_id = ${eventId}`.execute(db.kysely);
      const { rows: j } = await sql<{ kind: string; dedupe_key: string | null }>`
        SELECT kind, dedupe_key FROM jobs WHERE payload->>'eventId' = ${eventId} OR payload->>'deliveryId' = ANY(${rows.map((r) => r.id)}::text[])
        ORDER BY kind, dedupe_key`.execute(db.kysely);
      return { deliveries: Number(d[0]!.n), jobs: j };
    };

    expect(await write({ jobId: job!.id, lockedBy: 'this-run', claim: 0 })).toEqual({ created: 0, jobEnded: false });
    expect(await write({ jobId: job!.id, lockedBy: 'another-run', claim: 1 })).toEqual({ created: 0, jobEnded: false });
    expect(await written()).toEqual({ deliveries: 0, jobs: [{ kind: 'outbox.event', dedupe_key: null }] });

    expect(await write({ jobId: job!.id, lockedBy: 'this-run', claim: 1 })).toEqual({ created: 2, jobEnded: true });
    expect(await written()).toEqual({
      deliveries: 2,
      jobs: rows.map((r) => ({ kind: DELIVER_JOB, dedupe_key: `${DELIVER_JOB}:${r.id}:1` })).sort((x, y) => x.dedupe_key.localeCompare(y.dedupe_key)),
    });
    // The deliveries' jobs run like any other: each endpoint receives the event once.
    await w.run();
    expect(w.receiver.on('/fan-1')).toHaveLength(1);
    expect(w.receiver.on('/fan-2')).toHaveLength(1);
  });
});
