import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import type { NewClaim } from '../db/job-claims.ts';
import { scheduleJob, type JobContext, type JobDefinition } from '../db/jobs.ts';
import { emit, OUTBOX_EVENT_JOB } from '../db/outbox.ts';
import type { Sealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { coalesced } from '../lib/coalesced.ts';
import { uuidv7 } from '../lib/ids.ts';
import { checkOutboundUrl } from '../lib/outbound-url.ts';
import * as repo from './deliveries.repository.ts';
import * as endpoints from './endpoints.repository.ts';
import type { Sender, SendResult } from './sender.ts';
import { signatureHeader } from './signing.fns.ts';
import { eventBody, failingTooLong, verdictOf, webhookIdOf } from './webhooks.fns.ts';

// Delivery: every outbox event becomes one delivery per endpoint that receives it (fan-out, one
// job per event, in one transaction), and every delivery is tried by a durable job per attempt
// (claimed FOR UPDATE SKIP LOCKED by any process). An attempt reads what to send, POSTs it with no
// transaction open, then records the attempt and what comes next (success, a retry job, the
// endpoint disabled) in one short transaction.

export const DELIVER_JOB = 'webhooks.deliver';
/** One job per attempt: a retry is a new key, so it can be written in the transaction that removes the current one. */
export const deliverJobKey = (deliveryId: string, attempt: number): string => `${DELIVER_JOB}:${deliveryId}:${attempt}`;
/** A first attempt's job as the repository writes it with its delivery (`deliverJobKey(id, 1)`). */
const FIRST_ATTEMPT_JOB = { jobKind: DELIVER_JOB, jobKeyPrefix: `${DELIVER_JOB}:` };

export interface DeliveryDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  sealer: Sealer;
  sender: Sender;
  allowPrivateTargets: boolean;
  /** Sandbox mode: http://localhost receivers are called (lib/outbound-url.ts plainLoopback); false if omitted. */
  sandbox?: boolean;
  /** [0, 1) for the retry jitter. */
  random?: () => number;
}

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks libraries take it. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;


export function createWebhookDelivery(deps: DeliveryDeps) {
  const { db, clock, log, sealer, sender } = deps;
  const ex = db.kysely;
  const random = deps.random ?? Math.random;

  // Opened secrets by their sealed value. Safe to keep: a sealed value never changes (a rotation
  // writes a new one; every attempt reads the endpoint's current values), so this is never staler
  // than the row it was read from. Bounded: emptied when full.
  const opened = new Map<string, Promise<string>>();
  const open = (sealed: string): Promise<string> => {
    let plain = opened.get(sealed);
    if (!plain) {
      if (opened.size >= 1000) opened.clear();
      plain = sealer.open(sealed);
      opened.set(sealed, plain);
      plain.catch(() => opened.delete(sealed));
    }
    return plain;
  };

  /** The secrets that sign now: the current one, and the previous one during its 24 h. */
  async function signingSecrets(ep: repo.SendingEndpoint, now: Date): Promise<string[]> {
    const secrets = [await open(ep.secret_sealed)];
    if (ep.previous_secret_sealed && ep.previous_secret_until && ep.previous_secret_until.getTime() > now.getTime()) {
      secrets.push(await open(ep.previous_secret_sealed));
    }
    return secrets;
  }

  /**
   * The deliveries of one event to the given endpoints, all of one audience (partners read the
   * event's `data`, its channel its `channel_data`), with their first attempts' jobs; none when the
   * audience has no view of the event.
   */
  function newDeliveries(event: repo.OutboxRow, endpointIds: string[], audience: repo.Audience): repo.NewDeliveries['rows'] {
    const data = audience === 'channel' ? event.channel_data : event.data;
    // A channel endpoint is only ever matched to an event with a channel view (deliveries.repository.ts RECEIVES).
    if (!data || endpointIds.length === 0) return [];
    const body = eventBody({
      type: event.type,
      createdAt: event.created_at,
      entityId: event.entity_id,
      sequence: event.sequence === null ? null : Number(event.sequence),
      data,
    });
    return endpointIds.map((endpointId) => {
      const id = uuidv7();
      return { id, endpoint_id: endpointId, webhook_id: webhookIdOf(id), body, jobId: uuidv7() };
    });
  }

  /** Creates the deliveries of one event to the given endpoints, all of one audience, and their first attempts (any process runs them). */
  async function enqueue(tx: Executor, event: repo.OutboxRow, endpointIds: string[], now: Date, audience: repo.Audience = 'partner'): Promise<number> {
    const rows = newDeliveries(event, endpointIds, audience);
    return rows.length === 0 ? 0 : (await repo.insertDeliveries(tx, { event, rows, ...FIRST_ATTEMPT_JOB }, now, null)).created;
  }

  /** POSTs a delivery once, with no transaction open. */
  async function send(ep: repo.SendingEndpoint, d: repo.DeliveryRow): Promise<SendResult> {
    const now = clock.now();
    // The address rule again at sending time: the configuration may have changed since the URL was saved
    // (the connection itself re-checks every name it resolves).
    const check = await checkOutboundUrl(ep.url, { allowPrivate: deps.allowPrivateTargets, plainLoopback: deps.sandbox });
    if (!check.ok) return { status: null, retryAfter: null, durationMs: 0, error: `url ${check.problem}` };
    const at = new Date(Math.floor(now.getTime() / 1000) * 1000);
    const headers = {
      'webhook-id': d.webhook_id,
      'webhook-timestamp': String(at.getTime() / 1000),
      'webhook-signature': signatureHeader(await signingSecrets(ep, now), d.webhook_id, at, d.body),
    };
    return sender.post(ep.url, headers, d.body);
  }

  /**
   * Disables an endpoint and records the `webhook.endpoint_disabled` notice for its partner. A
   * channel subscribes to booking events only: its endpoint's status and disabledReason say it.
   */
  async function disable(tx: Executor, ep: repo.SendingEndpoint, reason: 'gone' | 'failing', now: Date): Promise<void> {
    if (!(await endpoints.disable(tx, ep.id, reason, now))) return;
    log.warn({ endpointId: ep.id, partnerId: ep.partner_id, channelId: ep.channel_id, reason }, 'webhook endpoint disabled');
    if (!ep.partner_id) return;
    await emit(tx, { partnerId: ep.partner_id }, {
      type: 'webhook.endpoint_disabled',
      entityId: ep.id,
      data: { endpointId: ep.id, url: ep.url, reason: reason === 'gone' ? 'answered_410' : 'failing_5_days', disabledAt: now.toISOString() },
    }, now);
  }

  /** Records an attempt and what follows it; a test delivery is never retried and never changes its endpoint. */
  async function record(tx: Executor, ep: repo.SendingEndpoint, d: repo.DeliveryRow, result: SendResult): Promise<void> {
    const now = clock.now();
    const attempt = d.attempts + 1;
    const verdict = verdictOf({ status: result.status, retryAfter: result.retryAfter }, attempt, now, random);
    await repo.insertAttempt(tx, uuidv7(), {
      delivery_id: d.id,
      endpoint_id: ep.id,
      attempt,
      status: verdict.kind === 'succeeded' ? 'succeeded' : 'failed',
      response_code: result.status,
      error: result.error,
      duration_ms: result.durationMs,
      at: now,
    });
    const settle = (status: repo.DeliveryRow['status'], next: Date | null = null) => repo.settleAttempt(tx, d.id, status, next, now);
    if (verdict.kind === 'succeeded') {
      await settle('succeeded');
      if (d.event_id && ep.failing_since) await endpoints.markHealthy(tx, ep.id);
      return;
    }
    if (!d.event_id) return settle('failed');
    if (verdict.kind === 'gone') {
      await settle('failed');
      return disable(tx, ep, 'gone', now);
    }
    const failingSince = await endpoints.markFailing(tx, ep.id, now);
    if (failingTooLong(failingSince, now)) {
      await settle('failed');
      return disable(tx, ep, 'failing', now);
    }
    if (verdict.kind === 'exhausted') return settle('failed');
    await settle('pending', verdict.at);
    await scheduleJob(tx, { kind: DELIVER_JOB, runAt: verdict.at, payload: { deliveryId: d.id }, dedupeKey: deliverJobKey(d.id, attempt + 1) }, now);
  }

  // The jobs a runner claims together start in one turn of the event loop and read their
  // deliveries in one statement; successes whose answers arrive in one turn are recorded in one
  // statement, each fenced on its own job's claim (issue 28: a statement per batch, not per job).
  const findForSending = coalesced((ids: string[]) => repo.findManyForSending(ex, ids));
  // One such statement at a time: the answers of 16 POSTs arrive spread over many turns, and the
  // successes that arrive while one commits are recorded together by the next. Each batch also
  // gathers for up to 10 ms (or 32 successes): on a quiet host a record commits in ~1-2 ms, so the
  // batches were a few successes each, a statement (and a WAL flush) per few deliveries. A success
  // waiting to be recorded holds only its job's slot; the receiver has its POST already.
  const recordSuccess = coalesced((all: repo.Success[]) => repo.recordSuccesses(ex, all), 100, { oneAtATime: true, gather: { ms: 10, size: 32 } });
  // The fan-outs claimed together the same way: their events read in one statement, their
  // deliveries written in one, each gated on its own fan-out job's claim.
  const findEvent = coalesced((wanted: Array<{ eventId: string; fence: JobContext['fence'] }>) => repo.findEventsWithReceivers(db, wanted));
  const writeFanOut = coalesced(async (all: Array<{ event: repo.OutboxRow; rows: repo.NewDeliveries['rows']; fence: JobContext['fence']; now: Date; claim: NewClaim }>) => {
    // One statement per process that claimed them (a delivery service serves one runner, so one).
    const written = new Map<(typeof all)[number], repo.DeliveriesWritten>();
    for (const claim of new Set(all.map((w) => w.claim.lockedBy))) {
      const mine = all.filter((w) => w.claim.lockedBy === claim);
      const results = await repo.insertDeliveriesOfEvents(db.kysely, mine, FIRST_ATTEMPT_JOB, mine[0]!.claim);
      mine.forEach((w, i) => written.set(w, results[i]!));
    }
    return all.map((w) => written.get(w)!);
  });

  const fanOut: JobDefinition<{ eventId: string }> = {
    async run(job, ctx) {
      // Nothing to write (no such event, or nobody receives it): the read itself ended the job,
      // fenced on this claim, so the event costs one statement. An endpoint created since does
      // not receive the event anyway.
      const { found, jobEnded } = await findEvent({ eventId: job.payload.eventId, fence: ctx.fence });
      if (jobEnded) return ctx.finished();
      // Not ended with nobody to receive it: the claim was taken over; the runner's own fenced
      // DELETE finds that out and says so.
      if (!found) return;
      const { event, receivers } = found;
      const rows = [...newDeliveries(event, receivers.partner.map((ep) => ep.id), 'partner'), ...newDeliveries(event, receivers.channel.map((ep) => ep.id), 'channel')];
      if (rows.length === 0) return;
      // Every delivery of the event, their first attempts' jobs (claimed by this process) and the
      // fan-out job's end: one statement, shared with the fan-outs of the same turn (issue 28).
      const now = clock.now();
      const written = await writeFanOut({ event, rows, fence: ctx.fence, now, claim: ctx.claimFor(DELIVER_JOB) });
      if (!written.jobEnded) return;
      ctx.finished();
      // The first attempts start now, in this process, with what the read above found: no wake-up,
      // claim or read between the event's commit and its POSTs (issue 28). The endpoint's columns
      // are as fresh as a delivery job's own read before its POST. If this process dies first, the
      // jobs' lease expires and any process runs them (same webhook-id).
      const endpointOf = new Map([...receivers.partner, ...receivers.channel].map((ep) => [ep.id, ep]));
      const rowOf = new Map(rows.map((r) => [r.id, r]));
      for (const { deliveryId, jobId } of written.jobs) {
        const row = rowOf.get(deliveryId)!;
        const d: repo.DeliveryRow = { id: row.id, endpoint_id: row.endpoint_id, event_id: event.id, webhook_id: row.webhook_id, type: event.type, body: row.body,
          status: 'pending', attempts: 0, next_attempt_at: now, event_at: event.created_at };
        ctx.runClaimed({ id: jobId, kind: DELIVER_JOB, dedupeKey: deliverJobKey(deliveryId, 1), payload: { deliveryId }, runAt: now },
          (_job, jobCtx) => sendAndRecord({ d, ep: endpointOf.get(row.endpoint_id)! }, jobCtx));
      }
    },
  };

  /**
   * One attempt of a delivery whose job this run holds: POSTs it with no transaction open, then
   * records it. If the POST times out after the receiver acted, the attempt is recorded as failed
   * and retried with the same webhook-id (at least once: receivers dedupe on it, WHK-05).
   */
  async function sendAndRecord(found: { d: repo.DeliveryRow; ep: repo.SendingEndpoint } | null, ctx: JobContext): Promise<void> {
    // Gone (its endpoint deleted), settled meanwhile, or its endpoint disabled: nothing to send.
    if (!found || found.d.status !== 'pending' || found.ep.status !== 'enabled') return;
    const { d, ep } = found;
    const result = await send(ep, d);
    if (verdictOf(result, d.attempts + 1, clock.now(), random).kind === 'succeeded') {
      // The common case, in one statement instead of a transaction of four: the attempt, the
      // delivery settled, the endpoint healthy again and the job ended, fenced on the claim
      // (with the other successes of the same turn).
      const attempt = { delivery_id: d.id, endpoint_id: ep.id, attempt: d.attempts + 1, status: 'succeeded' as const, response_code: result.status, error: null,
        duration_ms: result.durationMs, at: clock.now() };
      if (await recordSuccess({ attemptId: uuidv7(), attempt, healthy: d.event_id !== null && ep.failing_since !== null, fence: ctx.fence })) ctx.finished();
      return;
    }
    await ctx.transaction((tx) => record(tx, ep, d, result));
  }

  const deliver: JobDefinition<{ deliveryId: string }> = {
    run: async (job, ctx) => sendAndRecord(await findForSending(job.payload.deliveryId), ctx),
  };

  return {
    enqueue,
    /** Sends a delivery now, outside the job schedule, and records the attempt (the test event). */
    async attemptNow(ep: repo.SendingEndpoint, d: repo.DeliveryRow): Promise<SendResult & { succeeded: boolean }> {
      const result = await send(ep, d);
      await ex.transaction().execute((tx) => record(tx, ep, d, result));
      return { ...result, succeeded: result.status !== null && result.status >= 200 && result.status < 300 };
    },
    jobs(): Record<string, JobDefinition<any>> {
      return { [OUTBOX_EVENT_JOB]: fanOut, [DELIVER_JOB]: deliver };
    },
  };
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
