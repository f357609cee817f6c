import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';

// SQL of update notices received from RMSs (migration 010).

export async function findByWebhookId(ex: Executor, partnerId: string, webhookId: string): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM rms_notices WHERE partner_id = ${partnerId} AND webhook_id = ${webhookId}`.execute(ex);
  return rows[0]?.id ?? null;
}

/**
 * The latest notice with this body since `since`, and whether its re-read has not begun yet (only
 * then may a new identical notice be coalesced with it, DESIGN 8.3a/8.8c).
 */
export async function findSameBody(ex: Executor, partnerId: string, bodyHash: string, since: Date): Promise<{ id: string; waiting: boolean } | null> {
  const { rows } = await sql<{ id: string; waiting: boolean }>`
    SELECT id, processed_at IS NULL AND reread_started_at IS NULL AS waiting FROM rms_notices
    WHERE partner_id = ${partnerId} AND body_hash = ${bodyHash} AND received_at >= ${since} AND duplicate_of IS NULL
    ORDER BY received_at DESC LIMIT 1`.execute(ex);
  return rows[0] ?? null;
}

export interface NewNotice {
  id: string; partnerId: string; webhookId: string | null; bodyHash: string; entityId: string; action: string; duplicateOf: string | null;
}

/** false when a notice with the same webhook-id got there first (a concurrent retry). */
export async function insertNotice(ex: Executor, n: NewNotice, now: Date): Promise<boolean> {
  const res = await sql`INSERT INTO rms_notices (id, partner_id, webhook_id, body_hash, entity_id, action, duplicate_of, outcome, received_at, processed_at)
    VALUES (${n.id}, ${n.partnerId}, ${n.webhookId}, ${n.bodyHash}, ${n.entityId}, ${n.action}, ${n.duplicateOf},
            ${n.duplicateOf ? 'duplicate' : null}, ${now}, ${n.duplicateOf ? now : null})
    ON CONFLICT (partner_id, webhook_id) DO NOTHING`.execute(ex);
  return Number(res.numAffectedRows ?? 0) === 1;
}

export async function pendingFor(ex: Executor, partnerId: string, entityId: string): Promise<Array<{ id: string; received_at: Date }>> {
  const { rows } = await sql<{ id: string; received_at: Date }>`SELECT id, received_at FROM rms_notices
    WHERE partner_id = ${partnerId} AND entity_id = ${entityId} AND processed_at IS NULL ORDER BY received_at`.execute(ex);
  return rows;
}

/**
 * Marks every notice of the booking still waiting as answered by the re-read that begins now (in the
 * transaction that claims it): a notice received after this is not coalesced and re-reads itself.
 */
export async function beginReread(ex: Executor, partnerId: string, entityId: string, now: Date): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`UPDATE rms_notices SET reread_started_at = ${now}
    WHERE partner_id = ${partnerId} AND entity_id = ${entityId} AND processed_at IS NULL RETURNING id`.execute(ex);
  return rows.map((r) => r.id);
}

export async function markProcessed(ex: Executor, ids: string[], outcome: string, now: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`UPDATE rms_notices SET processed_at = ${now}, outcome = ${outcome} WHERE id = ANY(${ids}::uuid[]) AND processed_at IS NULL`.execute(ex);
}
