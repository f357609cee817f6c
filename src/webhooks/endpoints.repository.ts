import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';
import type { EndpointOwner } from './webhooks.fns.ts';

/** The owner's column equals its id. */
const ownedBy = (owner: EndpointOwner) => (owner.kind === 'channel' ? sql`channel_id = ${owner.id}` : sql`partner_id = ${owner.id}`);

// SQL of webhook endpoints. Every read is by the owner (a partner, or a booking channel): another
// owner's endpoint is simply not found.

export interface EndpointRow {
  id: string;
  /** The owner: a partner or a booking channel (exactly one of the two). */
  partner_id: string | null;
  channel_id: string | null;
  url: string;
  description: string | null;
  events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: 'gone' | 'failing' | 'partner' | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function insert(
  ex: Executor,
  owner: EndpointOwner,
  row: Pick<EndpointRow, 'id' | 'url' | 'description' | 'events' | 'secret_sealed'>,
  now: Date,
): Promise<EndpointRow> {
  const partnerId = owner.kind === 'partner' ? owner.id : null;
  const channelId = owner.kind === 'channel' ? owner.id : null;
  const { rows } = await sql<EndpointRow>`
    INSERT INTO webhook_endpoints (id, partner_id, channel_id, url, description, events, status, secret_sealed, created_at, updated_at)
    VALUES (${row.id}, ${partnerId}, ${channelId}, ${row.url}, ${row.description}, ${row.events}::text[], 'enabled', ${row.secret_sealed}, ${now}, ${now})
    RETURNING *`.execute(ex);
  return rows[0]!;
}

export async function find(ex: Executor, owner: EndpointOwner, id: string): Promise<EndpointRow | null> {
  const { rows } = await sql<EndpointRow>`SELECT * FROM webhook_endpoints WHERE id = ${id} AND ${ownedBy(owner)}`.execute(ex);
  return rows[0] ?? null;
}

export async function findById(ex: Executor, id: string): Promise<EndpointRow | null> {
  const { rows } = await sql<EndpointRow>`SELECT * FROM webhook_endpoints WHERE id = ${id}`.execute(ex);
  return rows[0] ?? null;
}

export async function list(ex: Executor, owner: EndpointOwner, offset: number, limit: number): Promise<{ total: number; rows: EndpointRow[] }> {
  const { rows } = await sql<EndpointRow & { total: string }>`
    SELECT *, count(*) OVER () AS total FROM webhook_endpoints WHERE ${ownedBy(owner)}
    ORDER BY created_at, id OFFSET ${offset} LIMIT ${limit}`.execute(ex);
  if (rows.length === 0 && offset > 0) {
    const { rows: c } = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_endpoints WHERE ${ownedBy(owner)}`.execute(ex);
    return { total: Number(c[0]!.n), rows: [] };
  }
  return { total: Number(rows[0]?.total ?? 0), rows: rows.map(({ total: _t, ...r }) => r) };
}

export async function update(
  ex: Executor,
  id: string,
  fields: { url?: string; description?: string | null; events?: string[]; enabled?: boolean },
  now: Date,
): Promise<EndpointRow> {
  const { rows } = await sql<EndpointRow>`
    UPDATE webhook_endpoints SET
      url = coalesce(${fields.url ?? null}, url),
      description = CASE WHEN ${fields.description !== undefined} THEN ${fields.description ?? null} ELSE description END,
      events = coalesce(${fields.events ?? null}::text[], events),
      status = CASE WHEN ${fields.enabled ?? null}::boolean IS NULL THEN status WHEN ${fields.enabled ?? null}::boolean THEN 'enabled' ELSE 'disabled' END,
      disabled_reason = CASE WHEN ${fields.enabled ?? null}::boolean IS NULL THEN disabled_reason
                             WHEN ${fields.enabled ?? null}::boolean THEN NULL
                             ELSE coalesce(disabled_reason, 'partner') END,
      disabled_at = CASE WHEN ${fields.enabled ?? null}::boolean IS NULL THEN disabled_at
                         WHEN ${fields.enabled ?? null}::boolean THEN NULL
                         ELSE coalesce(disabled_at, ${now}) END,
      failing_since = CASE WHEN ${fields.enabled ?? null}::boolean THEN NULL ELSE failing_since END,
      updated_at = ${now}
    WHERE id = ${id} RETURNING *`.execute(ex);
  return rows[0]!;
}

export async function remove(ex: Executor, owner: EndpointOwner, id: string): Promise<boolean> {
  const result = await sql`DELETE FROM webhook_endpoints WHERE id = ${id} AND ${ownedBy(owner)}`.execute(ex);
  return Number(result.numAffectedRows ?? 0) === 1;
}

export async function rotate(ex: Executor, id: string, sealed: string, previousSealed: string, previousUntil: Date, now: Date): Promise<EndpointRow> {
  const { rows } = await sql<EndpointRow>`
    UPDATE webhook_endpoints SET secret_sealed = ${sealed}, previous_secret_sealed = ${previousSealed},
      previous_secret_until = ${previousUntil}, updated_at = ${now}
    WHERE id = ${id} RETURNING *`.execute(ex);
  return rows[0]!;
}

/** Disables an enabled endpoint; false when it was not enabled (someone else did it first). */
export async function disable(ex: Executor, id: string, reason: 'gone' | 'failing', now: Date): Promise<boolean> {
  const result = await sql`
    UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ${reason}, disabled_at = ${now}, updated_at = ${now}
    WHERE id = ${id} AND status = 'enabled'`.execute(ex);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** After a success: the endpoint is no longer failing. */
export async function markHealthy(ex: Executor, id: string): Promise<void> {
  await sql`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${id} AND failing_since IS NOT NULL`.execute(ex);
}

/** After a failure: failing since the first failure in a row; returns that time. */
export async function markFailing(ex: Executor, id: string, now: Date): Promise<Date | null> {
  const { rows } = await sql<{ failing_since: Date }>`
    UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${now}) WHERE id = ${id}
    RETURNING failing_since`.execute(ex);
  return rows[0]?.failing_since ?? null;
}
