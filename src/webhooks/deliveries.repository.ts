import { sql } from 'kysely';
import type { Db, Executor } from '../db/db.ts';
import { retryingDeadlocks } from '../db/errors.ts';
import { claimedBy, claimedJobColumns, fencesCte, type NewClaim } from '../db/job-claims.ts';
import { notifyJobs, type JobContext } from '../db/jobs.ts';
import type { EndpointRow } from './endpoints.repository.ts';

// SQL of deliveries (one event to one endpoint) and their attempts (the delivery log), and the one
// query that decides who may receive an outbox event.

export interface OutboxRow {
  id: string;
  partner_id: string | null;
  venue_id: string | null;
  type: string;
  entity_id: string;
  sequence: string | null;
  data: Record<string, unknown>;
  /** A booking event's second audience: the channel the booking was made through, and its view (DESIGN 8.7a). */
  channel_id: string | null;
  channel_data: Record<string, unknown> | null;
  created_at: Date;
}

/** Which of an event's views an endpoint receives: the partners' `data`, or its channel's `channel_data`. */
export type Audience = 'partner' | 'channel';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string | null;
  webhook_id: string;
  type: string;
  body: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date | null;
  event_at: Date;
}

/**
 * Who may receive an event (WHK-04, WHK-12, CHN-29), as SQL over the endpoint `e` and the event `o`:
 * a partner's endpoint: an event addressed to a partner goes to that partner only, and only while
 * it still sees the event's venue; an event of a venue goes to every partner that sees the venue
 * (created it, was granted it, or owns it in the content API). A channel's endpoint: the events
 * whose channel audience is that channel (the bookings made through it), nothing else. And only
 * what the endpoint subscribed to.
 */
const PARTNER_RECEIVES = sql`
  e.partner_id IS NOT NULL
  AND (o.partner_id IS NULL OR o.partner_id = e.partner_id)
  AND (o.venue_id IS NULL
       OR EXISTS (SELECT 1 FROM partner_venues pv WHERE pv.partner_id = e.partner_id AND pv.venue_id = o.venue_id)
       OR EXISTS (SELECT 1 FROM venues v WHERE v.id = o.venue_id AND v.owner_partner_id = e.partner_id))`;
const CHANNEL_RECEIVES = sql`e.channel_id IS NOT NULL AND e.channel_id = o.channel_id`;
const RECEIVES = sql`o.type = ANY(e.events) AND ((${PARTNER_RECEIVES}) OR (${CHANNEL_RECEIVES}))`;

/** The enabled endpoints `e` matching `receives` that existed when the event `o` happened, as a JSON array of their sending columns. */
const receiversJson = (receives: typeof PARTNER_RECEIVES) => sql`
  coalesce((SELECT json_agg(json_build_object('id', e.id, 'partner_id', e.partner_id, 'channel_id', e.channel_id, 'url', e.url, 'status', e.status,
                                              'failing_since', e.failing_since, 'secret_sealed', e.secret_sealed,
                                              'previous_secret_sealed', e.previous_secret_sealed, 'previous_secret_until', e.previous_secret_until) ORDER BY e.id)
            FROM webhook_endpoints e
            WHERE e.status = 'enabled' AND e.created_at <= o.created_at AND o.type = ANY(e.events) AND ${receives}), '[]'::json)`;

/** A SendingEndpoint from receiversJson (JSON carries its timestamps as text). */
const sendingEndpointOf = (j: SendingEndpoint & { failing_since: string | null; previous_secret_until: string | null }): SendingEndpoint => ({
  ...j,
  failing_since: j.failing_since === null ? null : new Date(j.failing_since),
  previous_secret_until: j.previous_secret_until === null ? null : new Date(j.previous_secret_until),
});

/**
 * Claimed fan-out jobs' events, each with the enabled endpoints that receive it and existed when it
 * happened and the columns sending to them needs (so the fan-out sends its first attempts without
 * reading again), partners' and channels' apart (each receives its own view), in one read for many
 * jobs (issue 28: the jobs a runner claims together): `found` null without the event. A job whose
 * event is gone or has nobody to receive it is ended by the same statement, fenced on its own
 * claim, so that is its only statement: `jobEnded` says whether it was (false when there are
 * receivers, or its claim was taken over meanwhile). One answer per job, in order. A named
 * statement (its text is the same whatever the number of jobs): planning it cost PostgreSQL more
 * than running it (log_min_duration_statement, bench/pat.ts).
 */
export async function findEventsWithReceivers(
  db: Pick<Db, 'kysely'>,
  wanted: Array<{ eventId: string; fence: JobContext['fence'] }>,
): Promise<Array<{ found: { event: OutboxRow; receivers: Record<Audience, SendingEndpoint[]> } | null; jobEnded: boolean }>> {
  type Json = Parameters<typeof sendingEndpointOf>[0];
  type Row = Partial<OutboxRow> & { fan_out_job: string; receivers: Json[] | null; channel_receivers: Json[] | null; job_ended: boolean };
  const query = sql<Row>`
    WITH ${fencesCte('f', wanted.map((w) => w.fence))},
    w AS (SELECT * FROM unnest(${wanted.map((w) => w.fence.jobId)}::uuid[], ${wanted.map((w) => w.eventId)}::uuid[]) AS w(job_id, event_id)),
    ev AS (
      SELECT w.job_id AS fan_out_job, o.id, o.partner_id, o.venue_id, o.type, o.entity_id, o.sequence, o.data, o.channel_id, o.channel_data, o.created_at,
             ${receiversJson(PARTNER_RECEIVES)} AS receivers, ${receiversJson(CHANNEL_RECEIVES)} AS channel_receivers
      FROM w JOIN outbox o ON o.id = w.event_id),
    ended AS (
      DELETE FROM jobs j USING f WHERE ${claimedBy('j', 'f')}
        AND NOT EXISTS (SELECT 1 FROM ev WHERE ev.fan_out_job = f.job_id AND json_array_length(ev.receivers) + json_array_length(ev.channel_receivers) > 0)
      RETURNING j.id)
    SELECT w.job_id::text AS fan_out_job, ev.id, ev.partner_id, ev.venue_id, ev.type, ev.entity_id, ev.sequence, ev.data, ev.channel_id, ev.channel_data, ev.created_at,
           ev.receivers, ev.channel_receivers, EXISTS (SELECT 1 FROM ended WHERE ended.id = w.job_id) AS job_ended
    FROM w LEFT JOIN ev ON ev.fan_out_job = w.job_id`.compile(db.kysely);
  const byJob = new Map((await db.kysely.executeQuery<Row>(query)).rows.map((r) => [r.fan_out_job, r]));
  return wanted.map((w) => {
    const { fan_out_job: _job, receivers, channel_receivers: channelReceivers, job_ended: jobEnded, ...event } = byJob.get(w.fence.jobId)!;
    const found = event.id
      ? { event: event as OutboxRow, receivers: { partner: (receivers ?? []).map(sendingEndpointOf), channel: (channelReceivers ?? []).map(sendingEndpointOf) } }
      : null;
    return { found, jobEnded };
  });
}

/** Events of a window that an endpoint receives but has no delivery of (missed: disabled, or before it existed). */
export async function missedEvents(ex: Executor, endpointId: string, since: Date, until: Date, limit: number): Promise<OutboxRow[]> {
  const { rows } = await sql<OutboxRow>`
    SELECT o.id, o.partner_id, o.venue_id, o.type, o.entity_id, o.sequence, o.data, o.channel_id, o.channel_data, o.created_at
    FROM webhook_endpoints e JOIN outbox o ON o.created_at >= ${since} AND o.created_at <= ${until}
    WHERE e.id = ${endpointId} AND o.sequence IS NOT NULL AND ${RECEIVES}
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.event_id = o.id)
    ORDER BY o.created_at, o.id LIMIT ${limit}`.execute(ex);
  return rows;
}

/** The new deliveries of one event (one per endpoint) and each one's first attempt job, as one statement writes them. */
export interface NewDeliveries {
  event: Pick<OutboxRow, 'id' | 'type' | 'created_at'>;
  rows: Array<Pick<DeliveryRow, 'id' | 'endpoint_id' | 'webhook_id' | 'body'> & { jobId: string }>;
  /** The first attempt's job kind and key (`deliverJobKey(id, 1)` is `<prefix><id>:1`). */
  jobKind: string;
  jobKeyPrefix: string;
}

/** What insertDeliveries wrote for one event. */
export interface DeliveriesWritten {
  created: number;
  /** The fan-out job was ended (always false without a fence). */
  jobEnded: boolean;
  /** The first attempts' jobs written: their delivery's id and their own. */
  jobs: Array<{ deliveryId: string; jobId: string }>;
}

/**
 * Writes the deliveries of one event and their first attempts' jobs (with the wake-up NOTIFY) in one
 * statement, whatever the number of endpoints: an endpoint that already has a delivery of the event
 * gets nothing new. With `fence`, the same statement ends the fan-out job that claimed the event,
 * and writes nothing unless it did (the claim was not taken over): the fan-out is then this one
 * statement, atomic without a transaction of its own. With `claim`, the jobs are written already
 * claimed by the process that will run them at once (jobs.ts claimFor), and wake nobody.
 */
export async function insertDeliveries(
  ex: Executor,
  n: NewDeliveries,
  now: Date,
  fence: JobContext['fence'] | null,
  claim: NewClaim | null = null,
): Promise<DeliveriesWritten> {
  return (await insertDeliveriesOfEvents(ex, [{ event: n.event, rows: n.rows, fence, now }], n, claim))[0]!;
}

/**
 * insertDeliveries for many events in one statement (issue 28: the fan-outs a runner claimed
 * together), each event's rows gated on its own fan-out job's fence: a claim taken over writes
 * nothing of its event and does not keep the others from being written. One answer per event, in order.
 */
export async function insertDeliveriesOfEvents(
  ex: Executor,
  events: Array<Pick<NewDeliveries, 'event' | 'rows'> & { fence: JobContext['fence'] | null; now: Date }>,
  job: Pick<NewDeliveries, 'jobKind' | 'jobKeyPrefix'>,
  claim: NewClaim | null,
): Promise<DeliveriesWritten[]> {
  // The rows as one JSON parameter: pg's encoding of ten array parameters (every body escaped for an
  // array literal in JavaScript) was ~3% of the sender's CPU (bench/webhooks.ts profile, issue 28).
  const rows = events.flatMap((e) => e.rows.map((r) => ({
    id: r.id, endpoint_id: r.endpoint_id, webhook_id: r.webhook_id, body: r.body, job_id: r.jobId, event_id: e.event.id, type: e.event.type,
    event_at: e.event.created_at, at: e.now, fan_out_job: e.fence?.jobId ?? null,
  })));
  const fences = events.flatMap((e) => (e.fence ? [e.fence] : []));
  const query = sql<{ created: string[] | null; ended: string[] | null; jobs: Array<{ deliveryId: string; jobId: string }> | null }>`
    WITH ${fencesCte('f', fences)},
    ended AS (DELETE FROM jobs j USING f WHERE ${claimedBy('j', 'f')} RETURNING j.id),
    u AS (SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json)
          AS u(id uuid, endpoint_id uuid, webhook_id text, body text, job_id uuid, event_id uuid, type text, event_at timestamptz, at timestamptz, fan_out_job uuid)),
    d AS (
      INSERT INTO webhook_deliveries (id, endpoint_id, event_id, webhook_id, type, body, status, next_attempt_at, event_at, created_at, updated_at)
      SELECT u.id, u.endpoint_id, u.event_id, u.webhook_id, u.type, u.body, 'pending', u.at, u.event_at, u.at, u.at
      FROM u WHERE u.fan_out_job IS NULL OR u.fan_out_job IN (SELECT id FROM ended)
      ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id),
    j AS (
      INSERT INTO jobs (id, kind, dedupe_key, payload, run_at, created_at${claim ? sql`, locked_by, locked_until, attempts, claims` : sql``})
      SELECT u.job_id, ${job.jobKind}::text, ${job.jobKeyPrefix}::text || d.id::text || ':1', jsonb_build_object('deliveryId', d.id::text),
             u.at, u.at${claim ? sql`, ${claimedJobColumns(claim)}` : sql``}
      FROM d JOIN u ON u.id = d.id
      ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, kind, payload->>'deliveryId' AS delivery_id)
    SELECT (SELECT array_agg(id::text) FROM d) AS created, (SELECT array_agg(id::text) FROM ended) AS ended, ${claim ? sql`0` : notifyJobs('j')} AS notified,
           (SELECT json_agg(json_build_object('deliveryId', j.delivery_id, 'jobId', j.id)) FROM j) AS jobs`.compile(ex);
  const r = (await ex.executeQuery(query)).rows[0]!;
  const created = new Set(r.created ?? []);
  const ended = new Set(r.ended ?? []);
  const jobOf = new Map((r.jobs ?? []).map((j) => [j.deliveryId, j]));
  return events.map((e) => ({
    created: e.rows.filter((row) => created.has(row.id)).length,
    jobEnded: e.fence !== null && ended.has(e.fence.jobId),
    jobs: e.rows.flatMap((row) => jobOf.get(row.id) ?? []),
  }));
}

/** A new delivery, pending; null when the endpoint already has one of this event. */
export async function insertDelivery(
  ex: Executor,
  d: Pick<DeliveryRow, 'id' | 'endpoint_id' | 'event_id' | 'webhook_id' | 'type' | 'body' | 'event_at'>,
  now: Date,
): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`
    INSERT INTO webhook_deliveries (id, endpoint_id, event_id, webhook_id, type, body, status, next_attempt_at, event_at, created_at, updated_at)
    VALUES (${d.id}, ${d.endpoint_id}, ${d.event_id}, ${d.webhook_id}, ${d.type}, ${d.body}, 'pending', ${now}, ${d.event_at}, ${now}, ${now})
    ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id`.execute(ex);
  return rows[0]?.id ?? null;
}

/** What an attempt needs, in one read: the delivery and the columns of its endpoint that sending and recording use. */
export type SendingEndpoint = Pick<EndpointRow, 'id' | 'partner_id' | 'channel_id' | 'url' | 'status' | 'failing_since' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_until'>;

/** A successful attempt to record (recordSuccesses). */
export interface Success {
  attemptId: string;
  attempt: AttemptRow;
  /** Clear the endpoint's failing_since (an event's delivery succeeded). */
  healthy: boolean;
  fence: JobContext['fence'];
}

/**
 * Successful attempts of jobs' deliveries, many in one statement: for each, the attempt, the
 * delivery succeeded, its endpoint no longer failing (when `healthy`) and its job ended, fenced on
 * its own claim; nothing is written for a job whose claim was taken over meanwhile (the run that
 * holds it records its own attempt). Returns, per success in order, whether its job was ended.
 */
export async function recordSuccesses(ex: Executor, all: Success[]): Promise<boolean[]> {
  // Arrays, not one JSON parameter as insertDeliveriesOfEvents: PostgreSQL sizes unnest() of an
  // array by its length, json_to_recordset() at 100 rows, which made the fenced DELETE below a hash
  // join over a sequential scan of jobs (auto_explain, bench/webhooks.ts backlog; issue 28). These
  // arrays hold no bodies, so pg's encoding of them is cheap.
  const col = <T>(f: (s: Success) => T) => all.map(f);
  const query = sql<{ id: string }>`
    WITH u AS (
      SELECT * FROM unnest(${col((s) => s.fence.jobId)}::uuid[], ${col((s) => s.fence.lockedBy)}::text[], ${col((s) => s.fence.claim)}::int[],
                           ${col((s) => s.attemptId)}::uuid[], ${col((s) => s.attempt.delivery_id)}::uuid[], ${col((s) => s.attempt.endpoint_id)}::uuid[],
                           ${col((s) => s.attempt.attempt)}::int[], ${col((s) => s.attempt.response_code)}::int[], ${col((s) => s.attempt.duration_ms)}::int[],
                           ${col((s) => s.attempt.at)}::timestamptz[], ${col((s) => s.healthy)}::boolean[])
        AS u(job_id, locked_by, claim, attempt_id, delivery_id, endpoint_id, attempt, response_code, duration_ms, at, healthy)),
    ended AS (DELETE FROM jobs j USING u WHERE ${claimedBy('j', 'u')} RETURNING j.id),
    e AS (SELECT u.* FROM u JOIN ended ON ended.id = u.job_id),
    -- The attempts of the deliveries still there, which the UPDATE returns (it locks them, waits for
    -- a removal under way and skips what it removed): a partner may remove an endpoint, its
    -- deliveries with it, while they are in flight, and one attempt without its delivery failed the
    -- whole statement on its foreign key, so the batch's other jobs ran again and their receivers got
    -- the same event twice (issue 28's bench). A removed delivery's job ends with nothing to record.
    delivery AS (
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1, status = 'succeeded', next_attempt_at = NULL, updated_at = e.at
      FROM e WHERE d.id = e.delivery_id RETURNING d.id),
    attempt AS (
      INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, response_code, error, duration_ms, at)
      SELECT e.attempt_id, e.delivery_id, e.endpoint_id, e.attempt, 'succeeded', e.response_code, NULL, e.duration_ms, e.at
      FROM e JOIN delivery ON delivery.id = e.delivery_id RETURNING 1),
    healthy AS (
      UPDATE webhook_endpoints w SET failing_since = NULL
      FROM e WHERE w.id = e.endpoint_id AND e.healthy AND w.failing_since IS NOT NULL RETURNING 1)
    SELECT id::text AS id FROM ended`.compile(ex);
  // An endpoint's removal cascades over its deliveries in its own order while this locks them in
  // the batch's: PostgreSQL may end this statement to break the deadlock (the ninth round's full
  // bench), which would leave every success of the batch unrecorded and run all their jobs again.
  // One statement, rolled back whole, so it is asked again (outside a transaction only: a
  // transaction ended by PostgreSQL is its caller's to run again).
  const run = () => ex.executeQuery(query);
  const { rows } = ex.isTransaction ? await run() : await retryingDeadlocks(run);
  const ended = new Set(rows.map((r) => r.id));
  return all.map((s) => ended.has(s.fence.jobId));
}

/** findForSending for many deliveries in one read: one answer per id, in the ids' order (null: no such delivery). */
export async function findManyForSending(ex: Executor, ids: string[]): Promise<Array<{ d: DeliveryRow; ep: SendingEndpoint } | null>> {
  const { rows } = await sql<DeliveryRow & { e_partner_id: string | null; e_channel_id: string | null; e_url: string; e_status: EndpointRow['status']; e_failing_since: Date | null;
    e_secret_sealed: string; e_previous_secret_sealed: string | null; e_previous_secret_until: Date | null }>`
    SELECT d.*, e.partner_id AS e_partner_id, e.channel_id AS e_channel_id, e.url AS e_url, e.status AS e_status, e.failing_since AS e_failing_since,
           e.secret_sealed AS e_secret_sealed, e.previous_secret_sealed AS e_previous_secret_sealed,
           e.previous_secret_until AS e_previous_secret_until
    FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = ANY(${ids}::uuid[])`.execute(ex);
  const found = new Map<string, { d: DeliveryRow; ep: SendingEndpoint }>();
  for (const r of rows) {
    const { e_partner_id, e_channel_id, e_url, e_status, e_failing_since, e_secret_sealed, e_previous_secret_sealed, e_previous_secret_until, ...d } = r;
    found.set(d.id, {
      d,
      ep: { id: d.endpoint_id, partner_id: e_partner_id, channel_id: e_channel_id, url: e_url, status: e_status, failing_since: e_failing_since, secret_sealed: e_secret_sealed,
        previous_secret_sealed: e_previous_secret_sealed, previous_secret_until: e_previous_secret_until },
    });
  }
  return ids.map((id) => found.get(id) ?? null);
}

/** Counts an attempt and sets what follows it, in one statement. */
export async function settleAttempt(ex: Executor, id: string, status: DeliveryRow['status'], nextAttemptAt: Date | null, now: Date): Promise<void> {
  await sql`UPDATE webhook_deliveries SET attempts = attempts + 1, status = ${status}, next_attempt_at = ${nextAttemptAt}, updated_at = ${now}
            WHERE id = ${id}`.execute(ex);
}

export async function settle(ex: Executor, id: string, status: DeliveryRow['status'], nextAttemptAt: Date | null, now: Date): Promise<void> {
  await sql`UPDATE webhook_deliveries SET status = ${status}, next_attempt_at = ${nextAttemptAt}, updated_at = ${now} WHERE id = ${id}`.execute(ex);
}

export interface AttemptRow {
  delivery_id: string;
  endpoint_id: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  response_code: number | null;
  error: string | null;
  duration_ms: number;
  at: Date;
}

export async function insertAttempt(ex: Executor, id: string, a: AttemptRow): Promise<void> {
  await sql`
    INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, response_code, error, duration_ms, at)
    VALUES (${id}, ${a.delivery_id}, ${a.endpoint_id}, ${a.attempt}, ${a.status}, ${a.response_code}, ${a.error}, ${a.duration_ms}, ${a.at})`.execute(ex);
}

export async function listAttempts(
  ex: Executor,
  endpointId: string,
  offset: number,
  limit: number,
): Promise<{ total: number; rows: Array<AttemptRow & { webhook_id: string; type: string }> }> {
  const { rows } = await sql<AttemptRow & { webhook_id: string; type: string }>`
    SELECT a.*, d.webhook_id, d.type FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
    WHERE a.endpoint_id = ${endpointId} ORDER BY a.at DESC, a.id DESC OFFSET ${offset} LIMIT ${limit}`.execute(ex);
  const { rows: c } = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_attempts WHERE endpoint_id = ${endpointId}`.execute(ex);
  return { total: Number(c[0]!.n), rows };
}

/** Deliveries of a window that did not succeed: failed for good, or waiting for a retry. */
export async function unsuccessful(ex: Executor, endpointId: string, since: Date, until: Date, limit: number): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`
    SELECT * FROM webhook_deliveries
    WHERE endpoint_id = ${endpointId} AND event_at >= ${since} AND event_at <= ${until} AND status <> 'succeeded'
    ORDER BY event_at, id LIMIT ${limit}`.execute(ex);
  return rows;
}
