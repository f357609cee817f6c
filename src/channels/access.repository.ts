import { sql } from 'kysely';
import type { Executor } from '../db/db.ts';

// SQL of channels' protocols and credentials (migration 014). Secrets appear here only as hashes.

export type ChannelProtocol = 'tableside' | 'google-v3';

export interface ChannelIdentity { id: string; name: string; protocol: ChannelProtocol }

export async function findChannel(ex: Executor, id: string): Promise<ChannelIdentity | null> {
  const { rows } = await sql<ChannelIdentity>`SELECT id, name, protocol FROM booking_channels WHERE id = ${id}`.execute(ex);
  return rows[0] ?? null;
}

export async function setProtocol(ex: Executor, id: string, protocol: ChannelProtocol): Promise<void> {
  await sql`UPDATE booking_channels SET protocol = ${protocol} WHERE id = ${id}`.execute(ex);
}

export async function insertCredential(
  ex: Executor,
  row: { id: string; channelId: string; kind: 'api_key' | 'basic'; username: string | null; secretHash: string },
  now: Date,
): Promise<void> {
  await sql`INSERT INTO channel_credentials (id, channel_id, kind, username, secret_hash, created_at)
            VALUES (${row.id}, ${row.channelId}, ${row.kind}, ${row.username}, ${row.secretHash}, ${now})`.execute(ex);
}

export interface CredentialRow extends ChannelIdentity {
  kind: 'api_key' | 'basic';
  secret_hash: string;
  revoked_at: Date | null;
  /** The credential epoch the row was read at, in the same statement (auth/credential-cache.ts). */
  auth_epoch: string;
}

const CREDENTIAL = sql`SELECT c.id, c.name, c.protocol, k.kind, k.secret_hash, k.revoked_at, (SELECT epoch FROM auth_epoch) AS auth_epoch
  FROM channel_credentials k JOIN booking_channels c ON c.id = k.channel_id`;

export async function findByKeyHash(ex: Executor, hash: string): Promise<CredentialRow | null> {
  const { rows } = await sql<CredentialRow>`${CREDENTIAL} WHERE k.kind = 'api_key' AND k.secret_hash = ${hash}`.execute(ex);
  return rows[0] ?? null;
}

export async function findByUsername(ex: Executor, username: string): Promise<CredentialRow | null> {
  const { rows } = await sql<CredentialRow>`${CREDENTIAL} WHERE k.kind = 'basic' AND k.username = ${username}`.execute(ex);
  return rows[0] ?? null;
}

/** Revokes the credential whose secret (API key or password) has this hash; whether one was live. */
export async function revokeByHash(ex: Executor, hash: string, now: Date): Promise<boolean> {
  const r = await sql`UPDATE channel_credentials SET revoked_at = ${now} WHERE secret_hash = ${hash} AND revoked_at IS NULL`.execute(ex);
  return Number(r.numAffectedRows ?? 0) > 0;
}
