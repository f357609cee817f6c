import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JobRunner } from '../../src/db/jobs.ts';
import { createSealer } from '../../src/db/sealing-key.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/server/logger.ts';
import { createWebhookDelivery, DELIVER_JOB } from '../../src/webhooks/delivery.service.ts';
import { findEventsWithReceivers, insertDeliveries, insertDeliveriesOfEvents } from '../../src/webhooks/deliveries.repository.ts';
import { SIGNING_SECRETS_KEY_SETTING } from '../../src/webhooks/endpoints.service.ts';
import { createSender, type Sender } from '../../src/webhooks/sender.ts';
import type { TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
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

  const log = createLogger('silent');
  /** A job runner of this process with the webhook delivery's jobs, sending through `sender`. */
  const runnerWith = (sender: Sender, batchSize?: number) => {
    const db = w.app.db;
    const sealer = createSealer({ db, clock: w.clock, secretsKey: null, setting: SIGNING_SECRETS_KEY_SETTING });
    const runner = new JobRunner({ db, clock: w.clock, log, batchSize });
    for (const [kind, definition] of Object.entries(createWebhookDelivery({ db, clock: w.clock, log, sender, allowPrivateTargets: true, sealer }).jobs())) {
      runner.register(kind, definition);
    }
    return runner;
  };
  /** `real`, with `meanwhile` (another process acting while the POST is in flight) run before each POST. */
  const sendingAfter = (real: Sender, meanwhile: (url: string, headers: Record<string, string>) => Promise<void>): Sender => ({
    async post(url, headers, body) {
      await meanwhile(url, headers);
      return real.post(url, headers, body);
    },
    close: () => real.close(),
  });

  it('[BKG-38] [WHK-05] an attempt whose claim is taken over while it POSTs records nothing; the process that took it over sends again with the same webhook-id and records attempt 1', async () => {
    const ep = await w.endpoint(a, ['order.closed'], '/taken-over');
    const db = w.app.db;
    const real = createSender({ allowPrivate: true });
    let steal = true;
    // Another process takes the claim over while this one's POST is in flight.
    const runner = runnerWith(sendingAfter(real, async () => {
      if (steal) await sql`UPDATE jobs SET locked_by = 'another-process' WHERE kind = ${DELIVER_JOB}`.execute(db.kysely);
    }));

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
    const runner = runnerWith(sendingAfter(real, async (url, headers) => {
      if (url.endsWith('/batch-2')) {
        await sql`UPDATE jobs SET locked_by = 'another-process'
                  WHERE payload->>'deliveryId' = (SELECT id::text FROM webhook_deliveries WHERE webhook_id = ${headers['webhook-id']!})`.execute(db.kysely);
      }
    }));
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

  it('[BKG-38] [WHK-05] the fan-out sends its first attempts itself, their jobs held by its own process: another process takes none of them while that lease runs; after it (the first process died mid-POST) it sends each with the same webhook-id, and the dead run records nothing', async () => {
    // A partner and venue of its own: the endpoints of the tests above would receive the event too.
    const b = await w.app.newPartner(['pat'], 'B');
    const venueB = await w.app.newVenue({ name: 'B venue' });
    await w.app.grant(b.partnerId, venueB);
    const eps = [await w.endpoint(b, ['order.closed'], '/died-1'), await w.endpoint(b, ['order.closed'], '/died-2')];
    const db = w.app.db;
    // The first process's POSTs never answer while it lives (it dies mid-POST); it claims one job at a time.
    const sentByDead: Array<Record<string, string>> = [];
    let die!: () => void;
    const dead = new Promise<void>((r) => (die = r));
    const dying = runnerWith({
      async post(_url, headers) {
        sentByDead.push(headers);
        await dead;
        return { status: null, retryAfter: null, durationMs: 0, error: 'the process died' };
      },
      close: async () => {},
    }, 1);
    const real = createSender({ allowPrivate: true });
    const other = runnerWith(real);
    try {
      await w.emitEvent({ venueId: venueB }, 'order.closed', 'order-died');
      const dyingRun = dying.runDue();
      await eventually(async () => expect(sentByDead).toHaveLength(2));
      expect(await other.runDue()).toBe(0);
      expect(w.receiver.on('/died-1')).toHaveLength(0);
      expect(w.receiver.on('/died-2')).toHaveLength(0);

      await sql`UPDATE jobs SET locked_until = now() - interval '1 second'
                WHERE payload->>'deliveryId' IN (SELECT id::text FROM webhook_deliveries WHERE endpoint_id = ANY(${eps.map((e) => e.id)}::uuid[]))`.execute(db.kysely);
      expect(await other.runDue()).toBe(2);
      const received = ['/died-1', '/died-2'].map((path) => w.receiver.on(path));
      expect(received.map((r) => r.length)).toEqual([1, 1]);
      expect(received.map((r) => r[0]!.headers['webhook-id']).sort()).toEqual(sentByDead.map((h) => h['webhook-id']).sort());

      // The dead process's POSTs end (as failures) after the takeover: it records nothing, schedules no retry.
      die();
      await dyingRun;
      const { rows } = await sql<{ status: string; attempts: number; logged: string; jobs: string }>`
        SELECT d.status, d.attempts, (SELECT count(*) FROM webhook_attempts t WHERE t.delivery_id = d.id)::text AS logged,
               (SELECT count(*) FROM jobs j WHERE j.payload->>'deliveryId' = d.id::text)::text AS jobs
        FROM webhook_deliveries d WHERE d.endpoint_id = ANY(${eps.map((e) => e.id)}::uuid[])`.execute(db.kysely);
      expect(rows).toEqual([{ status: 'succeeded', attempts: 1, logged: '1', jobs: '0' }, { status: 'succeeded', attempts: 1, logged: '1', jobs: '0' }]);
    } finally {
      die();
      await real.close();
    }
  });

  it('[BKG-38] fan-outs read and written together are fenced each on its own claim: the event with nobody to receive it ends its job in the read, the one taken over writes nothing, the third writes its deliveries and ends its job', async () => {
    const c = await w.app.newPartner(['pat'], 'C');
    const venueC = await w.app.newVenue({ name: 'C venue' });
    await w.app.grant(c.partnerId, venueC);
    const ep = await w.endpoint(c, ['order.closed'], '/together');
    const db = w.app.db;
    const ids = [
      await w.emitEvent({ venueId: venueC }, 'order.closed', 'order-together-1'),
      await w.emitEvent({ venueId: venueC }, 'order.closed', 'order-together-2'),
      await w.emitEvent({ venueId: venueC }, 'venue.onboarded', 'venue-together'),
    ];
    const { rows: jobs } = await sql<{ id: string; event_id: string }>`
      UPDATE jobs SET locked_by = 'this-run', locked_until = now() + interval '1 minute', claims = 1
      WHERE payload->>'eventId' = ANY(${ids}::text[]) RETURNING id, payload->>'eventId' AS event_id`.execute(db.kysely);
    const fenceOf = (eventId: string) => ({ jobId: jobs.find((j) => j.event_id === eventId)!.id, lockedBy: 'this-run', claim: 1 });
    const read = await findEventsWithReceivers(db, [{ eventId: ids[2]!, fence: fenceOf(ids[2]!) }, ...ids.slice(0, 2).map((eventId) => ({ eventId, fence: fenceOf(eventId) }))]);
    expect(read.map((r) => [r.found?.event.id, r.found?.receivers.partner.map((e) => [e.id, e.url]), r.jobEnded])).toEqual([
      [ids[2], [], true],
      [ids[0], [[ep.id, `${w.receiver.url}/together`]], false],
      [ids[1], [[ep.id, `${w.receiver.url}/together`]], false],
    ]);

    const events = read.slice(1).map((r) => ({
      event: r.found!.event,
      rows: [{ id: uuidv7(), endpoint_id: ep.id, webhook_id: `msg_${uuidv7()}`, body: '{}', jobId: uuidv7() }],
      fence: r.found!.event.id === ids[0] ? { ...fenceOf(ids[0]!), lockedBy: 'another-run' } : fenceOf(r.found!.event.id),
      now: w.clock.now(),
    }));
    const written = await insertDeliveriesOfEvents(db.kysely, events, { jobKind: DELIVER_JOB, jobKeyPrefix: `${DELIVER_JOB}:` }, { lockedBy: 'this-run', leaseMs: 60_000 });
    expect(written).toEqual([
      { created: 0, jobEnded: false, jobs: [] },
      { created: 1, jobEnded: true, jobs: [{ deliveryId: events[1]!.rows[0]!.id, jobId: events[1]!.rows[0]!.jobId }] },
    ]);
    const { rows: left } = await sql<{ kind: string; event_id: string | null; locked_by: string | null; claims: string }>`
      SELECT kind, payload->>'eventId' AS event_id, locked_by, claims::text FROM jobs
      WHERE payload->>'eventId' = ANY(${ids}::text[]) OR payload->>'deliveryId' = ${events[1]!.rows[0]!.id} ORDER BY kind`.execute(db.kysely);
    // The taken-over fan-out's job is left to the run that holds it; the written delivery's job is held by the writer, claim 1.
    expect(left).toEqual([
      { kind: 'outbox.event', event_id: ids[0], locked_by: 'this-run', claims: '1' },
      { kind: DELIVER_JOB, event_id: null, locked_by: 'this-run', claims: '1' },
    ]);
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

    expect(await write({ jobId: job!.id, lockedBy: 'this-run', claim: 0 })).toMatchObject({ created: 0, jobEnded: false });
    expect(await write({ jobId: job!.id, lockedBy: 'another-run', claim: 1 })).toMatchObject({ created: 0, jobEnded: false });
    expect(await written()).toEqual({ deliveries: 0, jobs: [{ kind: 'outbox.event', dedupe_key: null }] });

    expect(await write({ jobId: job!.id, lockedBy: 'this-run', claim: 1 })).toMatchObject({ created: 2, jobEnded: true });
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
