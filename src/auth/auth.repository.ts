import { sql } from 'kysely';
import type { Db, Executor } from '../db/db.ts';
import type { AccessKind } from '../server/auth.ts';

// SQL for partners, their credentials and their venue scope. Secrets appear here only as hashes.

export interface PartnerRow {
  id: string;
  name: string;
  access: AccessKind[];
  active: boolean;
}

export interface CredentialRow {
  partner_id: string;
  partner_name: string;
  access: AccessKind[];
  active: boolean;
  revoked_at: Date | null;
  expires_at: Date | null;
}

export async function insertPartner(ex: Executor, p: PartnerRow, now: Date): Promise<void> {
  await sql`INSERT INTO partners (id, name, access, active, created_at)
            VALUES (${p.id}, ${p.name}, ${p.access}::text[], ${p.active}, ${now})`.execute(ex);
}

export async function findPartner(ex: Executor, id: string): Promise<PartnerRow | null> {
  const { rows } = await sql<PartnerRow>`SELECT id, name, access, active FROM partners WHERE id = ${id}`.execute(ex);
  return rows[0] ?? null;
}

export async function insertApiKey(ex: Executor, id: string, partnerId: string, keyHash: string, now: Date) {
  await sql`INSERT INTO api_keys (id, partner_id, key_hash, created_at)
            VALUES (${id}, ${partnerId}, ${keyHash}, ${now})`.execute(ex);
}

export async function insertClient(ex: Executor, clientId: string, partnerId: string, secretHash: string, now: Date) {
  await sql`INSERT INTO oauth_clients (client_id, partner_id, secret_hash, created_at)
            VALUES (${clientId}, ${partnerId}, ${secretHash}, ${now})`.execute(ex);
}

export async function insertToken(ex: Executor, tokenHash: string, partnerId: string, now: Date, expiresAt: Date) {
  await sql`INSERT INTO access_tokens (token_hash, partner_id, issued_at, expires_at)
            VALUES (${tokenHash}, ${partnerId}, ${now}, ${expiresAt})`.execute(ex);
}

// Every authenticated request that misses the credential cache runs one of these two, so they are
// prepared statements: parsed and planned once per pooled connection. Each also reads the
// credential epoch in the same statement: the cache keeps a row only under the epoch it was read
// at (credential-cache.ts), so a read that raced a revocation is never served after it.

export interface EpochedCredentialRow extends CredentialRow {
  auth_epoch: string;
}

export async function findApiKey(db: Pick<Db, 'kysely'>, keyHash: string): Promise<EpochedCredentialRow | null> {
  const query = sql<EpochedCredentialRow>`
    SELECT k.partner_id, p.name AS partner_name, p.access, p.active, k.revoked_at, NULL::timestamptz AS expires_at,
           (SELECT epoch FROM auth_epoch) AS auth_epoch
    FROM api_keys k JOIN partners p ON p.id = k.partner_id
    WHERE k.key_hash = ${keyHash}`.compile(db.kysely);
  return (await db.kysely.executeQuery<EpochedCredentialRow>(query)).rows[0] ?? null;
}

export async function findToken(db: Pick<Db, 'kysely'>, tokenHash: string): Promise<EpochedCredentialRow | null> {
  const query = sql<EpochedCredentialRow>`
    SELECT t.partner_id, p.name AS partner_name, p.access, p.active, t.revoked_at, t.expires_at,
           (SELECT epoch FROM auth_epoch) AS auth_epoch
    FROM access_tokens t JOIN partners p ON p.id = t.partner_id
    WHERE t.token_hash = ${tokenHash}`.compile(db.kysely);
  return (await db.kysely.executeQuery<EpochedCredentialRow>(query)).rows[0] ?? null;
}

export async function findClient(
  ex: Executor,
  clientId: string,
): Promise<(CredentialRow & { secret_hash: string }) | null> {
  const { rows } = await sql<CredentialRow & { secret_hash: string }>`
    SELECT c.partner_id, p.name AS partner_name, p.access, p.active, c.revoked_at, NULL::timestamptz AS expires_at,
           c.secret_hash
    FROM oauth_clients c JOIN partners p ON p.id = c.partner_id
    WHERE c.client_id = ${clientId}`.execute(ex);
  return rows[0] ?? null;
}

/** Marks a token or key revoked; returns whether one was found (and not already revoked). */
export async function revokeToken(ex: Executor, tokenHash: string, now: Date): Promise<boolean> {
  const r = await sql`UPDATE access_tokens SET revoked_at = ${now}
                      WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`.execute(ex);
  return Number(r.numAffectedRows) > 0;
}

export async function revokeApiKey(ex: Executor, keyHash: string, now: Date): Promise<boolean> {
  const r = await sql`UPDATE api_keys SET revoked_at = ${now}
                      WHERE key_hash = ${keyHash} AND revoked_at IS NULL`.execute(ex);
  return Number(r.numAffectedRows) > 0;
}

export async function venueExists(ex: Executor, venueId: string): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM venues WHERE id = ${venueId}`.execute(ex);
  return rows.length > 0;
}

export async function grantVenue(ex: Executor, partnerId: string, venueId: string, now: Date): Promise<void> {
  await sql`INSERT INTO partner_venues (partner_id, venue_id, granted_at) VALUES (${partnerId}, ${venueId}, ${now})
            ON CONFLICT (partner_id, venue_id) DO NOTHING`.execute(ex);
}
