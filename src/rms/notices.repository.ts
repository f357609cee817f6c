import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';

// SQL of update notices received from RMSs (migration 010).

export async function findByWebhookId(ex: Executor, partnerId: string, webhookId: string): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM rms_notices WHERE partner_id = ${partnerId} AND webhook_id = ${webhookId}`.execute(ex);
  return rows[0]?.id ?? null;
}

/** The first notice with this body since `since`, and whether it is still waiting to be processed. */
export async function findSameBody(ex: Executor, partnerId: string, bodyHash: string, since: Date): Promise<{ id: string; processed: boolean } | null> {
  const { rows } = await sql<{ id: string; processed: boolean }>`
    SELECT id, processed_at IS NOT NULL AS processed FROM rms_notices
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

export async function markProcessed(ex: Executor, ids: string[], outcome: string, now: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`UPDATE rms_notices SET processed_at = ${now}, outcome = ${outcome} WHERE id = ANY(${ids}::uuid[]) AND processed_at IS NULL`.execute(ex);
}
