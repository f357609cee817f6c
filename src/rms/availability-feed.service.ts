import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { snapshotRead, transactionWithCopy, type CopyIn, type Db, type Executor } from '../db/db.ts';
import { emit } from '../db/outbox.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, validationFailed, type FieldProblems } from '../lib/errors.ts';
import { ShardCollector, type ReadShard } from './availability-feed-shard.fns.ts';
import { spareChunks } from './feed-chunks.ts';
import { isOlderFeed } from './availability-feed.fns.ts';
import {
  dropNonce, findSnapshot, firstReceivedOf, incompleteNonces, lockPartnerFeed, pruneAbandoned, recordShard, replaceSnapshot, shardsOf, snapshotRecord, SNAPSHOT_NONCE,
  snapshotVenueCopy, snapshotVenuePage, snapshotVenueRows, stageRecords, stagingLine, stagingPrefix,
  type SnapshotPageKey, type SnapshotRow,
} from './availability-feed.repository.ts';
import { FEED_BODY_LIMIT, MAX_INCOMPLETE_LISTED, type FeedBody, type FeedStatus } from './availability-feed.schemas.ts';
import { FeedJsonError, FeedJsonReader } from './feed-json.fns.ts';
import { readTime, ShapeError, type Slot } from './rms-client.fns.ts';

// DESIGN 8.3b: the availability feed. Each shard is checked record by record (a bad one: 400 naming
// it, and everything of its nonce forgotten), then staged in one transaction with the shard's row;
// the transaction of the last shard of a nonce also replaces the partner's snapshot, so readers see
// the old snapshot or the new one, never a mix. Every shard of one partner is serialised by an
// advisory lock (any order, any process), so two nonces completing at once replace the snapshot one
// after the other and it is always exactly one nonce's records (DESIGN 8.8d). A shard's body is read
// as it arrives, record by record (feed-json.fns.ts, availability-feed-shard.fns.ts), never parsed
// whole; its records' COPY text is kept as bytes until the whole body is checked, then staged with
// one COPY written in batches, with a yield to the event loop between them, so other requests keep
// being served. Nothing touches the database before the last byte is read and checked.

const BATCH = 500;
/** A feed with no new shard for this long is forgotten (the RMS sends a new one). */
const ABANDONED_MS = 24 * 3600_000;

/** A feed that became the partner's snapshot (DESIGN 8.3b), as its listeners hear it. */
export interface FeedCompletion { partnerId: string; nonce: string; at: Date }

/**
 * Hears each completed feed in the transaction that makes it the snapshot (Google's real-time
 * updates, 8.7b), so what it writes exists exactly when the snapshot does. It writes rows and jobs only.
 */
export type FeedCompleteListener = (tx: Executor, done: FeedCompletion) => Promise<void>;

export interface FeedDeps {
  db: Db;
  clock: Clock;
  log: Logger;
}

export interface SnapshotAvailability {
  source: 'snapshot';
  nonce: string;
  completedAt: Date;
  duration: number | null;
  slots: Slot[];
}

/**
 * A shard as checked: when its feed was generated, and its records' COPY text (every record valid).
 * Neither the body's text nor its records as objects are kept: a 14 MiB shard held both (27 MiB of
 * heap each), and the service's RSS grew by 201-246 MiB over a 1,000,000-record feed (bench/bulk.ts).
 */
interface Shard {
  nonce: string;
  number: number;
  total: number;
  feedDate: Date | null;
  count: number;
  batches: readonly Buffer[];
  /** What each line of `batches` begins with (stageRecords). */
  made: string;
}

/** Checks the body as the route's schema does, `data` set aside (its records counted): the problems, or null. */
export type FeedBodyCheck = (skeleton: unknown, records: number) => FieldProblems | null;

/** What storing a shard came to. */
type Stored =
  | { status: 'received' | 'duplicate' | 'superseded'; received: number }
  | { status: 'complete'; received: number; counts: { records: number; venues: number } | null }
  | { status: 'mismatch'; was: number }
  /** Fewer records staged than the nonce's shards recorded (a crash emptied the staging table): nothing replaced. */
  | { status: 'lost' };

/** Thrown inside the last shard's transaction so that it rolls back whole (replaceSnapshot found records lost). */
class StagedRecordsLost extends Error {}

interface ShardReceipt {
  nonce: string;
  status: 'received' | 'duplicate' | 'complete' | 'superseded';
  receivedShards: number;
  totalShards: number;
}

/**
 * A shard's body read to its end as it arrives (at most `limit` bytes), each chunk handed to the
 * reader at once. Stops at the first chunk over the limit or that cannot be JSON; what is left of
 * the body is not read (the HTTP server discards it once answered, as Fastify's own parser does).
 */
function readBody(source: Readable, limit: number, reader: FeedJsonReader): Promise<void> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const stop = (err?: Error) => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      if (err) reject(err);
      else resolve();
    };
    // Anything but a syntax error is the service's own fault: it fails this request (a 500), and is
    // never thrown out of the stream's 'data' listener, where it would take the process down.
    const notJson = (err: unknown): Error => {
      if (!(err instanceof FeedJsonError)) return err instanceof Error ? err : new Error(String(err));
      return reader.empty ? new AppError('bad_request', 'The request body is empty but its Content-Type says JSON.') : new AppError('bad_request', 'The request body is not valid JSON.');
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return stop(tooLarge(limit));
      try {
        reader.push(chunk);
      } catch (err) {
        stop(notJson(err));
      }
    };
    const onEnd = () => {
      try {
        reader.end();
        stop();
      } catch (err) {
        stop(notJson(err));
      }
    };
    const onError = () => stop(new AppError('bad_request', 'The request body could not be read to its end (the upload was cut).'));
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    source.resume();
  });
}

/** The shard's own columns as its metadata, not yet checked, gives them; '' when they cannot be the checked ones. */
function prefixOf(partnerId: string, metadata: unknown): string {
  const m = metadata as { nonce?: unknown; shard_number?: unknown } | null;
  return typeof m?.nonce === 'string' && Number.isSafeInteger(m.shard_number) ? stagingPrefix(partnerId, m.nonce, m.shard_number as number) : '';
}

export const tooLarge = (limit: number) => new AppError('payload_too_large', `The request body is larger than the limit of ${limit / 1048576} MiB for a feed shard; send the feed in more shards.`);

export function createFeedService(deps: FeedDeps) {
  const { db, clock, log } = deps;
  const listeners: FeedCompleteListener[] = [];
  const chunks = spareChunks();

  /** The shard, or the 400 naming what is wrong with it. */
  function checkShard(metadata: FeedBody['metadata'], read: ReadShard): Shard | AppError {
    const { nonce, shard_number: number, total_shards: total, date } = metadata;
    if (number >= total) return validationFailed({ 'metadata.shard_number': [`must be less than total_shards (${total}); shards count from 0`] });
    let feedDate: Date | null = null;
    if (date !== undefined) {
      try {
        feedDate = readTime(date, 'metadata.date');
      } catch (err) {
        if (!(err instanceof ShapeError)) throw err;
        return validationFailed({ 'metadata.date': ['must be ISO 8601 with an offset or Unix seconds'] });
      }
    }
    if (read.problems) return validationFailed(read.problems, `The shard has invalid records; nothing of nonce ${nonce} is kept: send every shard again.`);
    return { nonce, number, total, feedDate, count: read.count, batches: read.batches, made: read.prefix };
  }

  /** Everything of a nonce, dropped after a bad shard: the RMS sends every shard again. */
  const forget = (partnerId: string, nonce: string) =>
    db.kysely.transaction().execute(async (tx) => {
      await lockPartnerFeed(tx, partnerId);
      await dropNonce(tx, partnerId, nonce);
    });

  /** The shard staged under its nonce's lock; the nonce's last shard completes it in the same transaction. */
  function storeShard(partnerId: string, shard: Shard, now: Date): Promise<Stored> {
    return transactionWithCopy(db, async (tx, copy): Promise<Stored> => {
      await lockPartnerFeed(tx, partnerId);
      await pruneAbandoned(tx, partnerId, new Date(now.getTime() - ABANDONED_MS));
      const snapshot = await findSnapshot(tx, partnerId);
      if (snapshot?.nonce === shard.nonce) return { status: 'complete', received: shard.total, counts: null };
      const seen = await shardsOf(tx, partnerId, shard.nonce);
      if (seen.some((s) => s.total_shards !== shard.total)) return { status: 'mismatch', was: seen[0]!.total_shards };
      if (seen.some((s) => s.shard_number === shard.number)) return { status: 'duplicate', received: seen.length };
      await stage(tx, copy, partnerId, shard, now);
      const received = seen.length + 1;
      if (received < shard.total) return { status: 'received', received };
      return complete(tx, partnerId, shard, received, snapshot, now);
    }).catch((err: unknown) => {
      if (err instanceof StagedRecordsLost) return { status: 'lost' } as const;
      throw err;
    });
  }

  async function stage(tx: Executor, copy: CopyIn, partnerId: string, shard: Shard, now: Date): Promise<void> {
    if (shard.count > 0) await stageRecords(copy, stagingPrefix(partnerId, shard.nonce, shard.number), shard.batches, shard.made);
    await recordShard(tx, partnerId, shard.nonce, shard.number, shard.total, shard.feedDate, shard.count, now);
  }

  /** Every shard of the nonce is in: it replaces the partner's snapshot (availability_feed.processed). */
  async function complete(tx: Executor, partnerId: string, shard: Shard, received: number, current: SnapshotRow | null, now: Date): Promise<Stored> {
    // A feed generated (or, undated, begun) before the current snapshot's, completing late, must not step back.
    const firstReceivedAt = (await firstReceivedOf(tx, partnerId, shard.nonce)) ?? now;
    if (current && isOlderFeed({ feedDate: shard.feedDate, firstReceivedAt }, { feedDate: current.feed_date, firstReceivedAt: current.first_received_at })) {
      await dropNonce(tx, partnerId, shard.nonce);
      return { status: 'superseded', received };
    }
    const counts = await replaceSnapshot(tx, partnerId, shard.nonce, shard.feedDate, firstReceivedAt, now);
    if (!counts) throw new StagedRecordsLost();
    const data = { nonce: shard.nonce, date: shard.feedDate?.toISOString() ?? null, records: counts.records, venues: counts.venues, completedAt: now.toISOString() };
    await emit(tx, { partnerId }, { type: 'availability_feed.processed', entityId: shard.nonce, data }, now);
    for (const listener of listeners) await listener(tx, { partnerId, nonce: shard.nonce, at: now });
    return { status: 'complete', received, counts };
  }

  return {
    /** Registers a listener of every completed feed (the composition root wires Google's). */
    onComplete(listener: FeedCompleteListener): void {
      listeners.push(listener);
    },

    /**
     * One shard, its body read from `body` as it arrives (undefined: none was sent). The 400s come
     * in the order a body parsed whole met them: not JSON; a NUL anywhere (the input guard's);
     * the body's schema (`check`); then the shard's own checks and its records, which also forget
     * the nonce.
     */
    async receive(partnerId: string, body: Readable | undefined, check: FeedBodyCheck): Promise<ShardReceipt> {
      const collector = new ShardCollector(stagingLine, (m) => prefixOf(partnerId, m), BATCH, chunks);
      // The shard's COPY text is freed as soon as nothing can read it (collector.release), rather than
      // at V8's next full collection: unless its COPY failed midway, when a write of it may still be
      // in flight (V8 frees it once nothing holds it).
      let copying = false;
      try {
        if (body) await readBody(body, FEED_BODY_LIMIT, new FeedJsonReader(collector));
        const read = collector.result();
        if (Object.keys(read.nul).length > 0) throw validationFailed(read.nul);
        const invalid = check(body ? read.skeleton : undefined, read.count);
        if (invalid) throw validationFailed(invalid);
        const { metadata } = read.skeleton as FeedBody;
        const { nonce, total_shards: total } = metadata;
        const shard = checkShard(metadata, read);
        if (shard instanceof AppError) {
          await forget(partnerId, nonce);
          throw shard;
        }
        copying = true;
        const stored = await storeShard(partnerId, shard, clock.now());
        copying = false;
        collector.release();
        if (stored.status === 'mismatch') {
          await forget(partnerId, nonce);
          throw validationFailed({ 'metadata.total_shards': [`must be the same for every shard of a nonce (an earlier shard said ${stored.was})`] }, `Nothing of nonce ${nonce} is kept: send every shard again.`);
        }
        if (stored.status === 'lost') {
          await forget(partnerId, nonce);
          throw conflict(`Records of nonce ${nonce}'s earlier shards were lost by the service (a restart); the snapshot is unchanged and nothing of nonce ${nonce} is kept: send every shard again.`, { nonce });
        }
        if (stored.status === 'complete' && stored.counts) log.info({ partnerId, nonce, ...stored.counts }, 'availability feed processed');
        return { nonce, status: stored.status, receivedShards: stored.received, totalShards: total };
      } finally {
        if (!copying) collector.release();
      }
    },

    async status(partnerId: string): Promise<FeedStatus> {
      const snapshot = await findSnapshot(db.kysely, partnerId);
      const incomplete = await incompleteNonces(db.kysely, partnerId, MAX_INCOMPLETE_LISTED);
      return {
        nonce: snapshot?.nonce ?? null,
        date: snapshot?.feed_date?.toISOString() ?? null,
        records: snapshot?.records ?? 0,
        venues: snapshot?.venues ?? 0,
        completedAt: snapshot?.completed_at.toISOString() ?? null,
        incomplete: incomplete.map((n) => ({ nonce: n.nonce, receivedShards: n.received, totalShards: n.total })),
      };
    },

    /**
     * The latest complete snapshot's slots for one RMS venue, venue-local date and party size (what
     * the channel API answers when the RMS does not within 1 s, BKG-09); null when the snapshot has
     * no such record. With `areaId`, that area's record, else the record without an area.
     */
    async snapshotAvailability(partnerId: string, rmsVenueId: string, date: string, partySize: number, areaId: string | null = null): Promise<SnapshotAvailability | null> {
      // Exactly the record asked for (an area's slots are not the venue's, nor another area's), in
      // one statement: it answers once the live call's 1 s is spent, so every round trip shows.
      const row = await snapshotRecord(db.kysely, partnerId, rmsVenueId, date, partySize, areaId);
      if (!row) return null;
      return {
        source: 'snapshot',
        nonce: row.nonce,
        completedAt: row.completed_at,
        duration: row.duration,
        slots: row.slots.map((s) => ({ start: new Date(s.startSec * 1000), totalSpots: s.totalSpots, openSpots: s.openSpots, deposit: s.deposit, depositAmount: s.depositAmount, requiresCc: s.requiresCc })),
      };
    },

    /**
     * One RMS venue's snapshot records (area-less) between two venue-local dates, as snapshotVenue
     * lists them, of party sizes 1..`read.sizes.maxPartySize`, for the channels' feeds (DESIGN 8.8e:
     * they stream), in batches of `read.rows` lines `<party size><TAB><duration><TAB><slots>\n` as
     * bytes (snapshotVenuePage's slots; a record without slots has no line; a record without a
     * duration has `read.sizes.defaultDuration`). Each batch carries the nonce of the snapshot it
     * was read from, also when it has no record (an empty venue), so the reader can tell a snapshot
     * replaced between batches; nothing when the partner has no complete snapshot. A batch's bytes
     * are the reader's until it asks for the next, then reused.
     *
     * On PostgreSQL a venue is read in one snapshot (its nonce, then one COPY TO STDOUT), its bytes
     * copied into `read.scratch` (grown as needed, kept for the next venue), and the connection is
     * given back at once: rows read by `pg` become JavaScript strings and objects, and those read
     * while the reader's writes were awaited survived V8's scavenges, were moved to its old
     * generation and collected late: most of the feeds' RSS (bench/bulk.ts). PGlite reads pages of
     * `read.rows` records, one statement each.
     */
    async *snapshotVenueBatches(
      partnerId: string, rmsVenueId: string, from: string, to: string,
      read: { rows: number; sizes: { maxPartySize: number; defaultDuration: number }; scratch?: { bytes: Buffer } },
    ): AsyncGenerator<{ nonce: string; lines: Buffer }> {
      if (db.kind === 'postgres') {
        const scratch = read.scratch ?? { bytes: Buffer.alloc(0) };
        let length = 0;
        const nonce = await snapshotRead(db, async (reader) => {
          const [snapshot] = await reader.query<{ nonce: string }>(SNAPSHOT_NONCE, [partnerId]);
          if (!snapshot) return null;
          await reader.copyOut(snapshotVenueCopy(partnerId, rmsVenueId, from, to, read.sizes), (chunk) => {
            if (length + chunk.length > scratch.bytes.length) {
              const bigger = Buffer.allocUnsafe(Math.max(2 * scratch.bytes.length, length + chunk.length, 1 << 18));
              scratch.bytes.copy(bigger, 0, 0, length);
              scratch.bytes = bigger;
            }
            length += chunk.copy(scratch.bytes, length);
          });
          return snapshot.nonce;
        });
        if (nonce === null) return;
        const bytes = scratch.bytes;
        let at = 0;
        do {
          let end = at;
          for (let i = 0; i < read.rows && end < length; i++) end = bytes.indexOf(10, end) + 1;
          yield { nonce, lines: bytes.subarray(at, end) };
          at = end;
        } while (at < length);
        return;
      }
      let after: SnapshotPageKey | null = null;
      for (;;) {
        const page = await snapshotVenuePage(db.kysely, partnerId, rmsVenueId, from, to, after, read.rows, read.sizes);
        if (page.length === 0) return;
        const last = page[page.length - 1]!;
        const lines = page.filter((r) => r.slots !== null).map((r) => `${r.partySize}\t${r.duration}\t${r.slots}\n`).join('');
        yield { nonce: page[0]!.nonce, lines: Buffer.from(lines) };
        if (page.length < read.rows || last.date === null) return;
        after = { date: last.date, partySize: last.partySize, row: last.row };
      }
    },

    /**
     * One RMS venue's snapshot records (area-less) between two venue-local dates, for the channels'
     * feeds (DESIGN 8.4c); null when the partner has no complete snapshot.
     */
    async snapshotVenue(partnerId: string, rmsVenueId: string, from: string, to: string) {
      const snapshot = await findSnapshot(db.kysely, partnerId);
      if (!snapshot) return null;
      const rows = await snapshotVenueRows(db.kysely, partnerId, rmsVenueId, from, to);
      return {
        nonce: snapshot.nonce,
        completedAt: snapshot.completed_at,
        records: rows.map((r) => ({
          date: r.date, partySize: r.party_size, duration: r.duration,
          slots: r.slots.map((s) => ({ startSec: s.startSec, totalSpots: s.totalSpots, openSpots: s.openSpots })),
        })),
      };
    },
  };
}

export type FeedService = ReturnType<typeof createFeedService>;
