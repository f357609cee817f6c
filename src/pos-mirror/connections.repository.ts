import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import { emit } from '../db/outbox.ts';
import {
  VENUE_CONNECTION_COLUMNS, venueWithConnectionOf, type ConnectionRow, type SuspensionReason, type VenueConnectionColumns, type VenueWithConnection,
} from './connections.fns.ts';

// SQL of POS connections: which POS location a venue is connected to, whether the connection is
// active, and when its tables and orders were last read.

/** A venue with its POS connection (null when none), in one round trip; null when there is no such venue. */
export async function findVenueWithConnection(ex: Executor, venueId: string): Promise<VenueWithConnection | null> {
  const { rows } = await sql<VenueConnectionColumns>`
    SELECT ${VENUE_CONNECTION_COLUMNS}
    FROM venues v
    LEFT JOIN pos_connections c ON c.venue_id = v.id
    WHERE v.id = ${venueId}`.execute(ex);
  return rows[0] ? venueWithConnectionOf(rows[0]) : null;
}

/** Like findVenueWithConnection, but only a venue in the partner's scope (created by it or granted to it). */
export async function findScopedVenue(ex: Executor, partnerId: string, venueId: string): Promise<VenueWithConnection | null> {
  const { rows } = await sql<VenueConnectionColumns>`
    SELECT ${VENUE_CONNECTION_COLUMNS}
    FROM partner_venues pv
    JOIN venues v ON v.id = pv.venue_id
    LEFT JOIN pos_connections c ON c.venue_id = v.id
    WHERE pv.partner_id = ${partnerId} AND pv.venue_id = ${venueId}`.execute(ex);
  return rows[0] ? venueWithConnectionOf(rows[0]) : null;
}

export async function findConnection(ex: Executor, venueId: string): Promise<ConnectionRow | null> {
  const { rows } = await sql<ConnectionRow>`SELECT * FROM pos_connections WHERE venue_id = ${venueId}`.execute(ex);
  return rows[0] ?? null;
}

export async function findConnectionByLocation(ex: Executor, posType: string, posVenueId: string): Promise<ConnectionRow | null> {
  const { rows } = await sql<ConnectionRow>`
    SELECT * FROM pos_connections WHERE pos_type = ${posType} AND pos_venue_id = ${posVenueId}`.execute(ex);
  return rows[0] ?? null;
}

export async function insertConnection(ex: Executor, c: Pick<ConnectionRow, 'venue_id' | 'pos_type' | 'pos_venue_id'>, now: Date): Promise<void> {
  await sql`INSERT INTO pos_connections (venue_id, pos_type, pos_venue_id, status, connected_at, updated_at)
            VALUES (${c.venue_id}, ${c.pos_type}, ${c.pos_venue_id}, 'active', ${now}, ${now})`.execute(ex);
}

export async function setTablesSyncedAt(ex: Executor, venueId: string, at: Date): Promise<void> {
  await sql`UPDATE pos_connections SET tables_synced_at = ${at} WHERE venue_id = ${venueId}`.execute(ex);
}

export async function setOrdersSyncedUntil(ex: Executor, venueId: string, until: Date): Promise<void> {
  await sql`UPDATE pos_connections SET orders_synced_until = ${until}, updated_at = ${until} WHERE venue_id = ${venueId}`.execute(ex);
}

/**
 * Suspends a venue's connection. An operator's suspension overrides a credentials one (and is not
 * lifted by a successful sync); a credentials suspension never replaces an operator's. Returns the
 * row as it is now, or null when the venue has no connection.
 */
export async function suspendConnection(ex: Executor, venueId: string, reason: SuspensionReason, now: Date): Promise<ConnectionRow | null> {
  return inTransaction(ex, async (tx) => {
    const r = await sql`UPDATE pos_connections
                 SET status = 'suspended', suspended_reason = ${reason}, suspended_at = ${now}, updated_at = ${now}
               WHERE venue_id = ${venueId}
                 AND (status = 'active' OR (${reason} = 'operator' AND suspended_reason <> 'operator'))`.execute(tx);
    const row = await findConnection(tx, venueId);
    if (row && Number(r.numAffectedRows ?? 0) > 0) await announce(tx, 'pos_connection.suspended', row, now);
    return row;
  });
}

/**
 * `pos_connection.suspended` / `.resumed` for the venue's partners, with the change (an operator's
 * suspension replacing a credentials one is announced again, with its new reason).
 */
async function announce(tx: Executor, type: string, row: ConnectionRow, now: Date): Promise<void> {
  await emit(tx, { venueId: row.venue_id }, {
    type,
    entityId: row.venue_id,
    data: { venueId: row.venue_id, posType: row.pos_type, status: row.status, reason: row.suspended_reason },
  }, now);
}

/** The caller's transaction, or a new one, so a change and its announcement commit together. */
const inTransaction = <T>(ex: Executor, fn: (tx: Executor) => Promise<T>): Promise<T> =>
  ex.isTransaction ? fn(ex) : ex.transaction().execute(fn);

/**
 * Makes a suspended connection active again. With `onlyReason`, only a suspension for that reason
 * is lifted (a successful sync lifts a credentials suspension, never an operator's).
 */
export async function resumeConnection(ex: Executor, venueId: string, now: Date, onlyReason?: SuspensionReason): Promise<ConnectionRow | null> {
  return inTransaction(ex, async (tx) => {
    const r = await sql`UPDATE pos_connections
                 SET status = 'active', suspended_reason = NULL, suspended_at = NULL, updated_at = ${now}
               WHERE venue_id = ${venueId} AND status = 'suspended'
                 AND (${onlyReason ?? null}::text IS NULL OR suspended_reason = ${onlyReason ?? null})`.execute(tx);
    const row = await findConnection(tx, venueId);
    if (row && Number(r.numAffectedRows ?? 0) > 0) await announce(tx, 'pos_connection.resumed', row, now);
    return row;
  });
}
