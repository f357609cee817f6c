import type { Db, Executor } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { badRequest, notFound } from '../lib/errors.ts';
import { isUuid, uuidv7 } from '../lib/ids.ts';
import { hashSecret, looksLike, newSecret, secretMatches } from '../lib/secrets.ts';
import { ACCESS_KINDS, type AccessKind, type AuthOutcome } from '../server/auth.ts';
import * as repo from './auth.repository.ts';
import { awaitEpoch, currentEpoch, type CredentialCache } from './credential-cache.ts';

export type { AccessKind, AuthOutcome, Principal } from '../server/auth.ts';

export interface CreatedPartner {
  partnerId: string;
  apiKey?: string;
  clientId?: string;
  clientSecret?: string;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

export interface AuthServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  accessTokenTtlS: number;
  /** Where checked credentials are kept between requests (none: every request looks its credential up). */
  credentials?: Pick<CredentialCache, 'lookup'>;
}

const UNCACHED: Pick<CredentialCache, 'lookup'> = { lookup: (_kind, _hash, load) => load() };

export function parseAccess(list: string): AccessKind[] {
  const kinds = [...new Set(list.split(',').map((s) => s.trim()).filter(Boolean))];
  const unknown = kinds.filter((k) => !ACCESS_KINDS.includes(k as AccessKind));
  if (kinds.length === 0 || unknown.length) {
    throw badRequest(`access must be a comma-separated list of ${ACCESS_KINDS.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  }
  return kinds as AccessKind[];
}

function outcomeOf(row: repo.CredentialRow | null, now: Date): AuthOutcome {
  if (!row) return { ok: false, failure: 'unknown' };
  if (row.revoked_at) return { ok: false, failure: 'revoked' };
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return { ok: false, failure: 'expired' };
  return {
    ok: true,
    principal: { partnerId: row.partner_id, partnerName: row.partner_name, access: row.access, active: row.active },
  };
}

/** An API key with rms access, client credentials with pat or analytics access (DES-055). */
async function addCredentials(tx: Executor, partnerId: string, access: AccessKind[], now: Date): Promise<CreatedPartner> {
  const created: CreatedPartner = { partnerId };
  if (access.includes('rms')) {
    created.apiKey = newSecret('apiKey');
    await repo.insertApiKey(tx, uuidv7(), partnerId, hashSecret(created.apiKey), now);
  }
  if (access.includes('pat') || access.includes('analytics')) {
    created.clientId = newSecret('clientId');
    created.clientSecret = newSecret('clientSecret');
    await repo.insertClient(tx, created.clientId, partnerId, hashSecret(created.clientSecret), now);
  }
  return created;
}

export function createAuthService({ db, clock, accessTokenTtlS, credentials = UNCACHED }: AuthServiceDeps) {
  const ex = db.kysely;

  /**
   * A revocation returns only once no process can still accept the credential from memory: the
   * change bumps the credential epoch (trigger, migration 016) and this waits for every live
   * cache to acknowledge it (credential-cache.ts). So every request that starts after the
   * revoke command returns is refused, on every process (DES-058, DES-059).
   */
  async function revoke(change: (tx: Executor, now: Date) => Promise<boolean>, missing: string): Promise<void> {
    const epoch = await ex.transaction().execute(async (tx) => ((await change(tx, clock.now())) ? currentEpoch(tx) : null));
    if (epoch === null) throw notFound(missing);
    await awaitEpoch(ex, epoch);
  }

  async function issueToken(partnerId: string, ttlS: number = accessTokenTtlS): Promise<IssuedToken> {
    if (!Number.isInteger(ttlS) || ttlS < 1 || ttlS > 31_536_000) throw badRequest('ttl must be an integer number of seconds between 1 and 31536000');
    const partner = isUuid(partnerId) ? await repo.findPartner(ex, partnerId) : null;
    if (!partner) throw notFound(`No partner ${partnerId}.`);
    if (!partner.access.includes('pat') && !partner.access.includes('analytics')) {
      throw badRequest(`Partner ${partnerId} has neither pat nor analytics access; access tokens are for those APIs.`);
    }
    const accessToken = newSecret('accessToken');
    const now = clock.now();
    await repo.insertToken(ex, hashSecret(accessToken), partnerId, now, new Date(now.getTime() + ttlS * 1000));
    return { accessToken, expiresIn: ttlS };
  }

  return {
    async createPartner(input: { name: string; access: AccessKind[] }): Promise<CreatedPartner> {
      const name = input.name.trim();
      if (!name) throw badRequest('name must not be empty');
      const partnerId = uuidv7();
      const now = clock.now();
      return ex.transaction().execute(async (tx) => {
        await repo.insertPartner(tx, { id: partnerId, name, access: input.access, active: true }, now);
        return addCredentials(tx, partnerId, input.access, now);
      });
    },

    /** New credentials for an existing partner (the old ones stay valid until revoked). */
    async newCredentials(partnerId: string): Promise<CreatedPartner> {
      const partner = isUuid(partnerId) ? await repo.findPartner(ex, partnerId) : null;
      if (!partner) throw notFound(`No partner ${partnerId}.`);
      return ex.transaction().execute((tx) => addCredentials(tx, partnerId, partner.access, clock.now()));
    },

    issueToken,

    /** OAuth 2.0 client credentials grant (RFC 6749 4.4). */
    async exchangeClientCredentials(clientId: string, clientSecret: string): Promise<IssuedToken | null> {
      const client = looksLike('clientId', clientId) ? await repo.findClient(ex, clientId) : null;
      // Hash the presented secret even for an unknown client, so timing does not reveal which ids exist.
      const matches = secretMatches(clientSecret, client?.secret_hash ?? '0'.repeat(64));
      if (!client || !matches || client.revoked_at || !client.active) return null;
      return issueToken(client.partner_id);
    },

    // The outcome is decided on every request (expiry against the clock), from the cached row or a fresh one.
    async authenticateToken(token: string): Promise<AuthOutcome> {
      if (!looksLike('accessToken', token)) return { ok: false, failure: 'malformed' };
      const hash = hashSecret(token);
      return outcomeOf(await credentials.lookup('token', hash, () => repo.findToken(db, hash)), clock.now());
    },

    async authenticateKey(key: string): Promise<AuthOutcome> {
      if (!looksLike('apiKey', key)) return { ok: false, failure: 'malformed' };
      const hash = hashSecret(key);
      return outcomeOf(await credentials.lookup('key', hash, () => repo.findApiKey(db, hash)), clock.now());
    },

    async revokeToken(token: string): Promise<void> {
      await revoke((tx, now) => repo.revokeToken(tx, hashSecret(token), now), 'No such active access token.');
    },

    async revokeKey(key: string): Promise<void> {
      await revoke((tx, now) => repo.revokeApiKey(tx, hashSecret(key), now), 'No such active API key.');
    },

    async grantVenue(partnerId: string, venueId: string): Promise<void> {
      const partner = isUuid(partnerId) ? await repo.findPartner(ex, partnerId) : null;
      if (!partner) throw notFound(`No partner ${partnerId}.`);
      if (!isUuid(venueId) || !(await repo.venueExists(ex, venueId))) throw notFound(`No venue ${venueId}.`);
      await repo.grantVenue(ex, partnerId, venueId, clock.now());
    },

    /** Puts a venue the caller has just created in its creator's scope, in the caller's transaction. */
    async scopeNewVenue(tx: Executor, partnerId: string, venueId: string, now: Date): Promise<void> {
      await repo.grantVenue(tx, partnerId, venueId, now);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

