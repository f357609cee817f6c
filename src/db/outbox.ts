import { sql, type RawBuilder } from 'kysely';
import { uuidv7 } from '../lib/ids.ts';
import type { Executor } from './db.ts';
import { jobCte, notifyJobs } from './jobs.ts';

// The outbox: one way for every feature to say "this happened". A feature calls emit() inside the
// transaction of its change, so the event exists exactly when the change commits (none for a
// rolled-back one). Delivery (webhooks) and reconciliation read the rows; emit() never sends
// anything itself, so no outbound call ever waits inside a transaction. See db/README.md.

/**
 * Who may receive an event: a partner (the one whose payment it is, say), and/or a venue (every
 * partner that sees the venue). At least one of the two.
 */
export type OutboxScope = { partnerId: string; venueId?: string | null } | { partnerId?: null; venueId: string };

export interface OutboxEvent {
  /** Dotted, past tense, from the webhook catalogue: `payment.late_confirmation`, `venue.onboarded`, … */
  type: string;
  /** The id of the thing the event is about (a payment, a venue, a booking), for ordering per entity. */
  entityId: string;
  /** The event's JSON body, as a receiver will read it. */
  data: Record<string, unknown>;
}

const EVENT_TYPE = /^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/;

/**
 * One sequence per entity (WHK-03), so a type prefix names its entity's kind: an order's events
 * are `order.*` and `pos_order.*`, a venue's `venue.*` and `pos_connection.*`; every other prefix
 * (payment, booking, availability_feed, webhook) is its kind. A mapping, not a migration: counter
 * rows stay keyed (kind, id), so the release before, which counted per prefix, runs on the same
 * table during a rolling upgrade.
 */
const ENTITY_KIND: Readonly<Record<string, string>> = { pos_order: 'order', pos_connection: 'venue' };

/** The prefixes the release before counted apart, per kind: a kind's next number goes above them. */
const LEGACY_COUNTERS: Readonly<Record<string, readonly string[]>> = { order: ['pos_order'], venue: ['pos_connection'] };

/** The kind of entity an event type is numbered under. */
function entityKindOf(type: string): string {
  const prefix = type.slice(0, type.indexOf('.'));
  return ENTITY_KIND[prefix] ?? prefix;
}

/**
 * The durable job that hands a new event to its deliverers (the webhooks feature registers it).
 * One job per event, written with the event: a delivery feature never has to scan the outbox for
 * rows committed out of id order, and an event exists for it exactly when its change committed.
 */
export const OUTBOX_EVENT_JOB = 'outbox.event';

/** Writes an event in the caller's transaction; returns its id (time-ordered: a UUIDv7). */
export async function emit(tx: Executor, scope: OutboxScope, event: OutboxEvent, now: Date): Promise<string> {
  const emitted = emitting('emitted', scope, event, now);
  // One round trip (issue 14): the counter, the event, its fan-out job and the job's NOTIFY.
  await sql`WITH ${emitted.ctes} SELECT ${emitted.notify}`.execute(tx);
  return emitted.id;
}

/**
 * emit() as parts of a caller's own statement, so a change and its event are one round trip: the
 * counter, the event and its fan-out job as CTEs named `<name>_seq`, `<name>_event` and
 * `<name>_job`, written only when `when` holds (a condition on the caller's CTEs, e.g. that its
 * INSERT wrote a row), and the NOTIFY expression the caller's outer SELECT must read. The same rows
 * emit() writes; emit() is this, alone in its statement.
 */
export function emitting(
  name: string,
  scope: OutboxScope,
  event: OutboxEvent,
  now: Date,
  when: RawBuilder<unknown> = sql`true`,
): { id: string; ctes: RawBuilder<unknown>; notify: RawBuilder<unknown> } {
  if (!EVENT_TYPE.test(event.type)) throw new Error(`outbox: event type "${event.type}" is not dotted lower-case (e.g. payment.confirmed)`);
  if (!scope.partnerId && !scope.venueId) throw new Error('outbox: an event needs a partner or a venue to be delivered to');
  const id = uuidv7();
  // The entity's next sequence number, taken under the counter's row lock in this transaction, so
  // the numbers of one entity follow the order its changes commit in. The entity kind keeps a
  // payment and a booking that happen to share an id apart.
  const kind = entityKindOf(event.type);
  const legacy = LEGACY_COUNTERS[kind];
  // Above what the release before numbered this entity under its other type prefixes (read, not
  // locked: only that release writes those rows).
  const above = legacy
    ? sql`(SELECT max(last) FROM outbox_sequences WHERE entity_kind = ANY(${legacy}::text[]) AND entity_id = ${event.entityId}::text)`
    : sql`0`;
  const seq = sql.raw(`${name}_seq`);
  const ctes = sql`${seq} AS (
              INSERT INTO outbox_sequences (entity_kind, entity_id, last)
              SELECT ${kind}::text, ${event.entityId}::text, 1 + COALESCE(${above}, 0) WHERE ${when}
              ON CONFLICT (entity_kind, entity_id) DO UPDATE SET last = GREATEST(outbox_sequences.last, excluded.last - 1) + 1
              RETURNING last),
            ${sql.raw(`${name}_event`)} AS (
              INSERT INTO outbox (id, partner_id, venue_id, type, entity_id, data, created_at, sequence)
              SELECT ${id}::uuid, ${scope.partnerId ?? null}::uuid, ${scope.venueId ?? null}::uuid, ${event.type}::text,
                     ${event.entityId}::text, ${JSON.stringify(event.data)}::jsonb, ${now}::timestamptz, ${seq}.last
              FROM ${seq}
              RETURNING id),
            ${jobCte(`${name}_job`, { kind: OUTBOX_EVENT_JOB, runAt: now, payload: { eventId: id } }, now, `${name}_event`)}`;
  return { id, ctes, notify: notifyJobs(`${name}_job`) };
}

/**
 * Makes a booking channel a second audience of an event written in this transaction (DESIGN 8.7a):
 * the channel the event's booking was made through, with the view of it that channel may see. One
 * row, one sequence, two views: partners' endpoints read `data`, the channel's read `channel_data`.
 * Nothing happens when no channel has that id (a booking made through no channel Tableside knows).
 * The event's fan-out job was written with it, so no deliverer reads the row before this commits.
 */
export async function addChannelAudience(tx: Executor, eventId: string, channelId: string, data: Record<string, unknown>): Promise<boolean> {
  const result = await sql`
    UPDATE outbox o SET channel_id = c.id, channel_data = ${JSON.stringify(data)}::jsonb
    FROM booking_channels c WHERE o.id = ${eventId} AND c.id::text = ${channelId}`.execute(tx);
  return Number(result.numAffectedRows ?? 0) === 1;
}
