import { sql } from 'kysely';
import type { Db, Executor } from '../db/db.ts';
import { endClaimedJobCte, notifyJobs, type JobContext } from '../db/jobs.ts';
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

/**
 * An event and the enabled endpoints that receive it and existed when it happened, in one read
 * (`found` null without the event), partners' and channels' apart (each receives its own view). When nobody receives it (or the event is gone), the same
 * statement ends the fan-out job, fenced on its claim, so that is the job's only statement:
 * `jobEnded` says whether it did (false when there are receivers, or the claim was taken over
 * meanwhile). A named statement: every event runs it once, and planning it cost PostgreSQL 0.4 ms,
 * more than running it (log_min_duration_statement, bench/pat.ts).
 */
export async function findEventWithReceivers(
  db: Pick<Db, 'kysely'>,
  eventId: string,
  fence: JobContext['fence'],
): Promise<{ found: { event: OutboxRow; receivers: Record<Audience, string[]> } | null; jobEnded: boolean }> {
  type Row = Partial<OutboxRow> & { receivers: string[] | null; channel_receivers: string[] | null; job_ended: boolean };
  const query = sql<Row>`
    WITH ev AS (
      SELECT o.id, o.partner_id, o.venue_id, o.type, o.entity_id, o.sequence, o.data, o.channel_id, o.channel_data, o.created_at,
             array(SELECT e.id::text FROM webhook_endpoints e
                   WHERE e.status = 'enabled' AND e.created_at <= o.created_at AND o.type = ANY(e.events) AND ${PARTNER_RECEIVES}
                   ORDER BY e.id) AS receivers,
             array(SELECT e.id::text FROM webhook_endpoints e
                   WHERE e.status = 'enabled' AND e.created_at <= o.created_at AND o.type = ANY(e.events) AND ${CHANNEL_RECEIVES}
                   ORDER BY e.id) AS channel_receivers
      FROM outbox o WHERE o.id = ${eventId}),
    ${endClaimedJobCte('ended', fence, sql`NOT EXISTS (SELECT 1 FROM ev WHERE cardinality(ev.receivers) + cardinality(ev.channel_receivers) > 0)`)}
    SELECT ev.*, EXISTS (SELECT 1 FROM ended) AS job_ended
    FROM (SELECT 1) AS one LEFT JOIN ev ON true`.compile(db.kysely);
  const r = (await db.kysely.executeQuery<Row>(query)).rows[0];
  const { receivers, channel_receivers: channelReceivers, job_ended: jobEnded, ...event } = r;
  return { found: event.id ? { event: event as OutboxRow, receivers: { partner: receivers ?? [], channel: channelReceivers ?? [] } } : null, jobEnded };
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

/**
 * Writes the deliveries of one event and their first attempts' jobs (with the wake-up NOTIFY) in one
 * statement, whatever the number of endpoints: an endpoint that already has a delivery of the event
 * gets nothing new. With `fence`, the same statement ends the fan-out job that claimed the event,
 * and writes nothing unless it did (the claim was not taken over): the fan-out is then this one
 * statement, atomic without a transaction of its own. Returns how many deliveries were created and
 * whether the job was ended (always false without a fence).
 */
export async function insertDeliveries(
  ex: Executor,
  n: NewDeliveries,
  now: Date,
  fence: JobContext['fence'] | null,
): Promise<{ created: number; jobEnded: boolean }> {
  const col = <K extends keyof NewDeliveries['rows'][number]>(k: K) => n.rows.map((r) => r[k]);
  const gate = fence ? sql`WHERE EXISTS (SELECT 1 FROM ended)` : sql``;
  const query = sql<{ created: string; job_ended: boolean }>`
    WITH ${fence ? sql`${endClaimedJobCte('ended', fence, sql`true`)},` : sql``}
    u AS (SELECT * FROM unnest(${col('id')}::uuid[], ${col('endpoint_id')}::uuid[], ${col('webhook_id')}::text[], ${col('body')}::text[], ${col('jobId')}::uuid[])
          AS u(id, endpoint_id, webhook_id, body, job_id)),
    d AS (
      INSERT INTO webhook_deliveries (id, endpoint_id, event_id, webhook_id, type, body, status, next_attempt_at, event_at, created_at, updated_at)
      SELECT u.id, u.endpoint_id, ${n.event.id}::uuid, u.webhook_id, ${n.event.type}::text, u.body, 'pending', ${now}::timestamptz,
             ${n.event.created_at}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM u ${gate}
      ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id),
    j AS (
      INSERT INTO jobs (id, kind, dedupe_key, payload, run_at, created_at)
      SELECT u.job_id, ${n.jobKind}::text, ${n.jobKeyPrefix}::text || d.id::text || ':1', jsonb_build_object('deliveryId', d.id::text),
             ${now}::timestamptz, ${now}::timestamptz
      FROM d JOIN u ON u.id = d.id
      ON CONFLICT (dedupe_key) DO NOTHING RETURNING kind)
    SELECT (SELECT count(*) FROM d) AS created, ${notifyJobs('j')} AS notified,
           ${fence ? sql`EXISTS (SELECT 1 FROM ended)` : sql`false`} AS job_ended`.compile(ex);
  const r = (await ex.executeQuery(query)).rows[0]!;
  return { created: Number(r.created), jobEnded: r.job_ended };
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
  const col = <T>(f: (s: Success) => T) => all.map(f);
  const query = sql<{ id: string }>`
    WITH u AS (
      SELECT * FROM unnest(${col((s) => s.fence.jobId)}::uuid[], ${col((s) => s.fence.lockedBy)}::text[], ${col((s) => s.fence.claim)}::int[],
                           ${col((s) => s.attemptId)}::uuid[], ${col((s) => s.attempt.delivery_id)}::uuid[], ${col((s) => s.attempt.endpoint_id)}::uuid[],
                           ${col((s) => s.attempt.attempt)}::int[], ${col((s) => s.attempt.response_code)}::int[], ${col((s) => s.attempt.duration_ms)}::int[],
                           ${col((s) => s.attempt.at)}::timestamptz[], ${col((s) => s.healthy)}::boolean[])
        AS u(job_id, locked_by, claim, attempt_id, delivery_id, endpoint_id, attempt, response_code, duration_ms, at, healthy)),
    ended AS (DELETE FROM jobs j USING u WHERE j.id = u.job_id AND j.locked_by = u.locked_by AND j.claims = u.claim RETURNING j.id),
    e AS (SELECT u.* FROM u JOIN ended ON ended.id = u.job_id),
    attempt AS (
      INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, response_code, error, duration_ms, at)
      SELECT e.attempt_id, e.delivery_id, e.endpoint_id, e.attempt, 'succeeded', e.response_code, NULL, e.duration_ms, e.at FROM e RETURNING 1),
    delivery AS (
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1, status = 'succeeded', next_attempt_at = NULL, updated_at = e.at
      FROM e WHERE d.id = e.delivery_id RETURNING 1),
    healthy AS (
      UPDATE webhook_endpoints w SET failing_since = NULL
      FROM e WHERE w.id = e.endpoint_id AND e.healthy AND w.failing_since IS NOT NULL RETURNING 1)
    SELECT id::text AS id FROM ended`.compile(ex);
  const ended = new Set((await ex.executeQuery(query)).rows.map((r) => r.id));
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
