import { sql } from 'kysely';
import { uuidv7 } from '../lib/ids.ts';
import type { Executor } from './db.ts';

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

/** Writes an event in the caller's transaction; returns its id (time-ordered: a UUIDv7). */
export async function emit(tx: Executor, scope: OutboxScope, event: OutboxEvent, now: Date): Promise<string> {
  if (!EVENT_TYPE.test(event.type)) throw new Error(`outbox: event type "${event.type}" is not dotted lower-case (e.g. payment.confirmed)`);
  if (!scope.partnerId && !scope.venueId) throw new Error('outbox: an event needs a partner or a venue to be delivered to');
  const id = uuidv7();
  await sql`INSERT INTO outbox (id, partner_id, venue_id, type, entity_id, data, created_at)
            VALUES (${id}, ${scope.partnerId ?? null}, ${scope.venueId ?? null}, ${event.type}, ${event.entityId},
                    ${JSON.stringify(event.data)}::jsonb, ${now})`.execute(tx);
  return id;
}

