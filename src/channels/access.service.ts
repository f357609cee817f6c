import { randomBytes } from 'node:crypto';
import { awaitEpoch, currentEpoch, type CredentialCache } from '../auth/credential-cache.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { badRequest, notFound } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import { hashSecret, secretMatches } from '../lib/secrets.ts';
import * as repo from './access.repository.ts';
import type { ChannelIdentity, ChannelProtocol } from './access.repository.ts';

export type { ChannelIdentity, ChannelProtocol };

// A channel's credentials (DESIGN 8.4 intro): a `tableside` channel gets an API key for /v1/bc, a
// `google-v3` channel a Basic username and password for /v3 and its feeds. Shown once, stored as
// SHA-256 hashes (256 bits of entropy, so an unsalted hash is safe), compared in constant time,
// revoked with `tableside key revoke --key <apiKey|password>`.
//
// A process keeps the credential rows it has read in the partners' credential cache (issue 28: a
// /v3 lookup began with this round trip): under its lease, dropped at every epoch, which a revoke or
// a change of a channel's name or protocol bumps by trigger (migration 025). A revoke returns once
// every live holder has acknowledged it, so it is refused on every process from then on.

export const PROTOCOLS: readonly ChannelProtocol[] = ['tableside', 'google-v3'];
const KEY_PREFIX = 'tbc_';
const PASSWORD_PREFIX = 'tbp_';
const USER_PREFIX = 'chn_';
/** What `issue` hands out as a username: the prefix and base64url (16 characters today; room for longer). */
const ISSUED_USERNAME = /^chn_[A-Za-z0-9_-]{1,60}$/;

export type ChannelCredentials = { apiKey: string } | { username: string; password: string };
export type ChannelAuthOutcome = { ok: true; channel: ChannelIdentity } | { ok: false; failure: 'unknown' | 'revoked' | 'malformed' };

const secret = (prefix: string, bytes = 32) => prefix + randomBytes(bytes).toString('base64url');

/** Whether a value is a channel secret this module issued (so `key revoke` knows whose it is). */
export const isChannelSecret = (value: string) => value.startsWith(KEY_PREFIX) || value.startsWith(PASSWORD_PREFIX);

/** `Authorization: Basic …` → username and password; null when absent or not Basic. */
export function basicCredentials(header: string | undefined): { username: string; password: string } | null {
  const m = header ? /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header) : null;
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const UNCACHED: Pick<CredentialCache, 'lookup'> = { lookup: (_kind, _hash, load) => load() };

export interface ChannelAccessDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  /** Where checked credentials are kept between requests (none: every request reads its credential). */
  credentials?: Pick<CredentialCache, 'lookup'>;
}

export function createChannelAccessService({ db, clock, credentials = UNCACHED }: ChannelAccessDeps) {
  const outcome = (row: repo.CredentialRow | null, ok: boolean): ChannelAuthOutcome => {
    if (!row || !ok) return { ok: false, failure: 'unknown' };
    if (row.revoked_at) return { ok: false, failure: 'revoked' };
    return { ok: true, channel: { id: row.id, name: row.name, protocol: row.protocol } };
  };

  return {
    /** Sets a new channel's protocol and issues its first credentials (answered once). */
    async issue(channelId: string, protocol: string): Promise<{ protocol: ChannelProtocol; credentials: ChannelCredentials }> {
      if (!PROTOCOLS.includes(protocol as ChannelProtocol)) throw badRequest(`--protocol must be one of ${PROTOCOLS.join(', ')}`);
      const p = protocol as ChannelProtocol;
      return db.kysely.transaction().execute(async (tx) => {
        if (!(await repo.findChannel(tx, channelId))) throw notFound(`No channel ${channelId}.`);
        await repo.setProtocol(tx, channelId, p);
        const now = clock.now();
        if (p === 'tableside') {
          const apiKey = secret(KEY_PREFIX);
          await repo.insertCredential(tx, { id: uuidv7(), channelId, kind: 'api_key', username: null, secretHash: hashSecret(apiKey) }, now);
          return { protocol: p, credentials: { apiKey } };
        }
        const username = secret(USER_PREFIX, 12);
        const password = secret(PASSWORD_PREFIX);
        await repo.insertCredential(tx, { id: uuidv7(), channelId, kind: 'basic', username, secretHash: hashSecret(password) }, now);
        return { protocol: p, credentials: { username, password } };
      });
    },

    async authenticateKey(key: string): Promise<ChannelAuthOutcome> {
      if (!key.startsWith(KEY_PREFIX)) return { ok: false, failure: 'malformed' };
      const hash = hashSecret(key);
      return outcome(await credentials.lookup('channel-key', hash, () => repo.findByKeyHash(db.kysely, hash)), true);
    },

    async authenticateBasic(username: string, password: string): Promise<ChannelAuthOutcome> {
      // Only a name of the form issued is looked up: a decoded header may hold anything, a NUL
      // included, which the database refuses (ERR-06); such a name is a failed authentication.
      if (!ISSUED_USERNAME.test(username)) return { ok: false, failure: 'malformed' };
      // Cached by username; the password is compared on every request.
      const row = await credentials.lookup('channel-basic', username, () => repo.findByUsername(db.kysely, username));
      // Compared even for an unknown user, so timing does not tell which usernames exist.
      const ok = secretMatches(password, row?.secret_hash ?? '0'.repeat(64));
      return outcome(row, ok);
    },

    /** Returns once no process can accept the credential from memory (auth/credential-cache.ts). */
    async revoke(secretValue: string): Promise<void> {
      const epoch = await db.kysely.transaction().execute(async (tx) =>
        ((await repo.revokeByHash(tx, hashSecret(secretValue), clock.now())) ? currentEpoch(tx) : null));
      if (epoch === null) throw notFound('No such active channel credential.');
      await awaitEpoch(db.kysely, epoch);
    },

    find: (channelId: string) => repo.findChannel(db.kysely, channelId),
  };
}

export type ChannelAccessService = ReturnType<typeof createChannelAccessService>;
