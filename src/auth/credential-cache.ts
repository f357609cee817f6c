import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { uuidv7 } from '../lib/ids.ts';

// Credentials checked without a round trip (issue 14), and a revocation that still holds on every
// process for every request that starts after it returns (spec 5, DES-058).
//
// On two cores a database round trip costs more than the work most requests do, and every
// authenticated request began with one. A process now keeps the credentials it has checked, but
// only under a lease in the database (migration 016):
//   - every change to a partner, token or key bumps `auth_epoch` (trigger) and notifies;
//   - a lookup reads the credential and the epoch in one statement; the entry is served only while
//     the process's known epoch is still that one, so a read that raced a revocation is dropped;
//   - the process serves from memory only while its lease is valid by its own monotonic clock,
//     which ends before the database's `valid_until`; it renews the lease only once it has
//     acknowledged the current epoch, so a lease behind a revocation cannot be extended;
//   - a revocation commits, then waits until no valid lease is behind its epoch: every live
//     process has learned it (and dropped its entries) or its lease has run out.
// A process that cannot reach the database stops serving from memory when its lease ends.

/**
 * What a holder keeps: partners' tokens and keys; booking channels' API keys and Basic usernames
 * (channels/access.service.ts); RMS partners' booking-services connections (rms/booking-services.service.ts);
 * a venue as a channel sees it, its link and its company's booking settings (channels/channel-api.service.ts).
 * Each is invalidated by the same epoch: its tables bump it by trigger (migrations 016, 025, 027).
 */
export type CredentialKind = 'token' | 'key' | 'channel-key' | 'channel-basic' | 'rms-connection' | 'channel-venue';

/** A credential row as the lookup returns it, with the epoch it was read at. */
export interface Epoched {
  auth_epoch: string | number;
}

export interface CredentialCacheOptions {
  db: Pick<Db, 'kysely' | 'listen'>;
  log: Logger;
  /** How long a lease lasts in the database (default 3 s): the longest a revocation can wait. */
  leaseMs?: number;
  /** How often the lease is renewed (default a quarter of the lease). */
  renewMs?: number;
  /** The longest an entry is kept, whatever the epoch (default 5 min). */
  entryTtlMs?: number;
  maxEntries?: number;
}

const NOTIFY_CHANNEL = 'tableside_auth';
/** The part of a lease this process does not use, for clock rate differences and scheduling. */
const MARGIN = 0.2;

interface Entry<R> {
  epoch: number;
  row: R;
  at: number;
}

export interface CredentialCache {
  /** The cached row for a credential, or the loader's (which must read the epoch in the same statement). */
  lookup<R extends Epoched>(kind: CredentialKind, hash: string, load: () => Promise<R | null>): Promise<R | null>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Whether entries may be served now (a valid lease). */
  readonly serving: boolean;
}

export function createCredentialCache(opts: CredentialCacheOptions): CredentialCache {
  const { db, log } = opts;
  const leaseMs = opts.leaseMs ?? 3000;
  const renewMs = opts.renewMs ?? Math.floor(leaseMs / 4);
  const entryTtlMs = opts.entryTtlMs ?? 300_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const holder = `${hostname()}:${process.pid}:${uuidv7().slice(-12)}`;
  const entries = new Map<string, Entry<unknown>>();
  let known = -1;
  /** performance.now() until which entries may be served; 0 while there is no lease. */
  let servingUntil = 0;
  let timer: NodeJS.Timeout | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let renewing: Promise<void> | null = null;
  let again = false;
  let stopped = true;

  /** Learns an epoch: entries read before it are never served again. */
  function learn(epoch: number) {
    if (epoch > known) {
      known = epoch;
      entries.clear();
    }
  }

  /**
   * Renews the lease: reads the epoch and extends valid_until only if this holder has
   * acknowledged it; otherwise learns it, then acknowledges (extending the lease) in a second
   * statement. The local end is taken before the statement is sent, so it precedes the database's.
   */
  async function renewOnce(): Promise<void> {
    const sent = performance.now();
    const { rows } = await sql<{ epoch: string; extended: boolean }>`
      WITH e AS (SELECT epoch FROM auth_epoch),
      upd AS (
        UPDATE auth_leases l SET valid_until = now() + make_interval(secs => ${leaseMs / 1000})
        FROM e WHERE l.holder = ${holder} AND l.acked_epoch >= e.epoch
        RETURNING l.holder)
      SELECT e.epoch, EXISTS (SELECT 1 FROM upd) AS extended FROM e`.execute(db.kysely);
    const epoch = Number(rows[0].epoch);
    if (rows[0].extended && epoch <= known) {
      servingUntil = sent + leaseMs * (1 - MARGIN);
      return;
    }
    learn(epoch);
    const ackSent = performance.now();
    await upsertLease(db.kysely, holder, known, leaseMs);
    servingUntil = ackSent + leaseMs * (1 - MARGIN);
  }

  /** Renews now; a call while a renewal runs makes it run once more after (a notification may be newer). */
  function renew(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (renewing) {
      again = true;
      return renewing;
    }
    renewing = (async () => {
      do {
        again = false;
        try {
          await renewOnce();
        } catch (err) {
          // No lease renewed: entries stop being served when the current one ends.
          log.warn({ err }, 'credential cache: lease renewal failed');
        }
      } while (again && !stopped);
    })().finally(() => {
      renewing = null;
    });
    return renewing;
  }

  return {
    get serving() {
      return !stopped && performance.now() < servingUntil;
    },

    async lookup<R extends Epoched>(kind: CredentialKind, hash: string, load: () => Promise<R | null>): Promise<R | null> {
      const key = `${kind}:${hash}`;
      const now = performance.now();
      if (!stopped && now < servingUntil) {
        const hit = entries.get(key) as Entry<R> | undefined;
        if (hit && hit.epoch === known && now - hit.at < entryTtlMs) return hit.row;
      }
      const row = await load();
      // Kept only if read at the epoch this process knows now: a row read before a revocation
      // this process has meanwhile learned of carries the older epoch and is not kept.
      if (row && !stopped && Number(row.auth_epoch) === known) {
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { epoch: known, row, at: now });
      }
      return row;
    },

    async start() {
      if (!stopped) return;
      stopped = false;
      unlisten = await db.listen(NOTIFY_CHANNEL, () => void renew());
      await renew();
      timer = setInterval(() => void renew(), renewMs);
      timer.unref();
    },

    async stop() {
      if (stopped) return;
      stopped = true;
      servingUntil = 0;
      entries.clear();
      if (timer) clearInterval(timer);
      timer = null;
      await renewing;
      await unlisten?.().catch(() => {});
      unlisten = null;
      await sql`DELETE FROM auth_leases WHERE holder = ${holder}`.execute(db.kysely).catch(() => {});
    },
  };
}

/** Records this holder's acknowledgement of an epoch and extends its lease (creating it if needed). */
async function upsertLease(ex: Executor, holder: string, epoch: number, leaseMs: number): Promise<void> {
  await sql`
    INSERT INTO auth_leases (holder, valid_until, acked_epoch)
    VALUES (${holder}, now() + make_interval(secs => ${leaseMs / 1000}), ${epoch})
    ON CONFLICT (holder) DO UPDATE SET valid_until = excluded.valid_until,
      acked_epoch = greatest(auth_leases.acked_epoch, excluded.acked_epoch)`.execute(ex);
  // Leases of processes gone for a day are only clutter.
  await sql`DELETE FROM auth_leases WHERE valid_until < now() - interval '1 day'`.execute(ex);
}

/** The current credential epoch (read inside a revocation's transaction, after its change). */
export async function currentEpoch(ex: Executor): Promise<number> {
  const { rows } = await sql<{ epoch: string }>`SELECT epoch FROM auth_epoch`.execute(ex);
  return Number(rows[0].epoch);
}

/**
 * Waits until no valid lease is behind `epoch`: every process serving from memory has dropped
 * what it held before the change, or its lease has ended. Bounded by the longest lease, since a
 * holder behind the epoch cannot extend its lease.
 */
export async function awaitEpoch(ex: Executor, epoch: number, pollMs = 10): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ behind: boolean }>`
      SELECT EXISTS (SELECT 1 FROM auth_leases WHERE valid_until > now() AND acked_epoch < ${epoch}) AS behind`.execute(ex);
    if (!rows[0].behind) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
