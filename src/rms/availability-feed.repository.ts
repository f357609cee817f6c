import { sql } from 'kysely';
import pg from 'pg';
import { copyText, type CopyIn, type Executor } from '../db/db.ts';
import type { FeedRecord } from './availability-feed.fns.ts';
import { slotWire } from './availability-feed.fns.ts';

// SQL of the availability feed (migration 010): shards staged per nonce, the partner's snapshot.

/**
 * Serialises every shard of the partner's feeds (across processes): the last shard of a nonce
 * completes it, and two nonces completing at once replace the snapshot one after the other
 * (DESIGN 8.8d). Per nonce was not enough: under READ COMMITTED the second replace's DELETE does
 * not see the rows the first inserted, and the snapshot became both nonces' records.
 */
export async function lockPartnerFeed(tx: Executor, partnerId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`rms-feed:${partnerId}`}, 0))`.execute(tx);
}

/** Forgets the partner's feeds left incomplete: no shard for a day. */
export async function pruneAbandoned(tx: Executor, partnerId: string, before: Date): Promise<void> {
  const { rows } = await sql<{ nonce: string }>`SELECT nonce FROM rms_feed_shards WHERE partner_id = ${partnerId}
    GROUP BY nonce HAVING max(received_at) < ${before}`.execute(tx);
  for (const { nonce } of rows) await dropNonce(tx, partnerId, nonce);
}

export async function shardsOf(ex: Executor, partnerId: string, nonce: string): Promise<Array<{ shard_number: number; total_shards: number }>> {
  const { rows } = await sql<{ shard_number: number; total_shards: number }>`SELECT shard_number, total_shards FROM rms_feed_shards
    WHERE partner_id = ${partnerId} AND nonce = ${nonce}`.execute(ex);
  return rows;
}

const STAGING_COLUMNS = ['partner_id', 'nonce', 'shard_number', 'rms_venue_id', 'date', 'party_size', 'area_id', 'duration', 'slots'] as const;

/** A valid record's COPY text for rms_feed_staging, without the shard's own columns (stageRecords adds them). */
export function stagingLine(r: FeedRecord): string {
  return `${copyText(r.venueId)}\t${r.date}\t${r.partySize}\t${copyText(r.areaId)}\t${copyText(r.duration)}\t${copyText(JSON.stringify(r.slots.map(slotWire)))}\n`;
}

/** The shard's own columns, in front of each of its records' stagingLine. */
export function stagingPrefix(partnerId: string, nonce: string, shard: number): string {
  return `${copyText(partnerId)}\t${copyText(nonce)}\t${shard}\t`;
}

/**
 * Stages a shard's records with one COPY (DESIGN 8.3b). Their text was made as the body was read
 * (a batch a Buffer, each line `made` + stagingLine) and is written as it is when `made` is the
 * shard's prefix (its metadata came before its data), else with each line's prefix replaced (COPY
 * text escapes every newline inside a value: a newline ends a row). A turn of the event loop
 * between batches, so a shard of tens of thousands of records does not block other requests.
 */
export async function stageRecords(copy: CopyIn, prefix: string, batches: readonly Buffer[], made: string): Promise<void> {
  async function* lines() {
    for (const batch of batches) {
      yield made === prefix ? batch : `${batch.toString('utf8').slice(0, -1).split('\n').map((l) => prefix + l.slice(made.length)).join('\n')}\n`;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  await copy('rms_feed_staging', STAGING_COLUMNS, lines());
}

export async function recordShard(tx: Executor, partnerId: string, nonce: string, shard: number, total: number, feedDate: Date | null, records: number, now: Date): Promise<void> {
  await sql`INSERT INTO rms_feed_shards (partner_id, nonce, shard_number, total_shards, feed_date, records, received_at)
    VALUES (${partnerId}, ${nonce}, ${shard}, ${total}, ${feedDate}, ${records}, ${now})`.execute(tx);
}

/** Forgets everything of a nonce (a bad shard, or once it became the snapshot). */
export async function dropNonce(tx: Executor, partnerId: string, nonce: string): Promise<void> {
  await sql`DELETE FROM rms_feed_staging WHERE partner_id = ${partnerId} AND nonce = ${nonce}`.execute(tx);
  await sql`DELETE FROM rms_feed_shards WHERE partner_id = ${partnerId} AND nonce = ${nonce}`.execute(tx);
}

/**
 * Replaces the partner's availability with the nonce's records; returns the snapshot's counts, or
 * null when fewer records are staged than its shards recorded (the UNLOGGED staging table was
 * emptied by a crash or a failover, migration 026): the caller must roll back, nothing replaced.
 * The counts come from the INSERT's own rows (grouped per venue: a hash of a few hundred venues, not
 * a sort of every record) rather than a second scan of the table just written.
 */
export async function replaceSnapshot(tx: Executor, partnerId: string, nonce: string, feedDate: Date | null, firstReceivedAt: Date, now: Date): Promise<{ records: number; venues: number } | null> {
  const { rows: shards } = await sql<{ records: number }>`SELECT coalesce(sum(records), 0)::int AS records FROM rms_feed_shards
    WHERE partner_id = ${partnerId} AND nonce = ${nonce}`.execute(tx);
  await sql`DELETE FROM rms_availability WHERE partner_id = ${partnerId}`.execute(tx);
  const { rows } = await sql<{ records: number; venues: number }>`WITH inserted AS (
      INSERT INTO rms_availability (partner_id, rms_venue_id, date, party_size, area_id, duration, slots)
      SELECT partner_id, rms_venue_id, date, party_size, area_id, duration, slots FROM rms_feed_staging
      WHERE partner_id = ${partnerId} AND nonce = ${nonce}
      RETURNING rms_venue_id)
    SELECT coalesce(sum(n), 0)::int AS records, count(*)::int AS venues
    FROM (SELECT rms_venue_id, count(*) AS n FROM inserted GROUP BY rms_venue_id) per_venue`.execute(tx);
  const { records, venues } = rows[0]!;
  if (records !== shards[0]!.records) return null;
  await sql`INSERT INTO rms_feed_snapshots (partner_id, nonce, feed_date, records, venues, completed_at, first_received_at)
    VALUES (${partnerId}, ${nonce}, ${feedDate}, ${records}, ${venues}, ${now}, ${firstReceivedAt})
    ON CONFLICT (partner_id) DO UPDATE SET nonce = excluded.nonce, feed_date = excluded.feed_date, records = excluded.records,
      venues = excluded.venues, completed_at = excluded.completed_at, first_received_at = excluded.first_received_at`.execute(tx);
  await dropNonce(tx, partnerId, nonce);
  return { records, venues };
}

export interface SnapshotRow {
  nonce: string; feed_date: Date | null; records: number; venues: number; completed_at: Date;
  /** Null for a snapshot the release before migration 020 completed. */
  first_received_at: Date | null;
}

export async function findSnapshot(ex: Executor, partnerId: string): Promise<SnapshotRow | null> {
  const { rows } = await sql<SnapshotRow>`SELECT nonce, feed_date, records, venues, completed_at, first_received_at
    FROM rms_feed_snapshots WHERE partner_id = ${partnerId}`.execute(ex);
  return rows[0] ?? null;
}

/** When the nonce's first staged shard arrived (on Tableside's clock). */
export async function firstReceivedOf(ex: Executor, partnerId: string, nonce: string): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`SELECT min(received_at) AS at FROM rms_feed_shards
    WHERE partner_id = ${partnerId} AND nonce = ${nonce}`.execute(ex);
  return rows[0]?.at ?? null;
}

export async function incompleteNonces(ex: Executor, partnerId: string, limit: number): Promise<Array<{ nonce: string; received: number; total: number }>> {
  const { rows } = await sql<{ nonce: string; received: number; total: number }>`
    SELECT nonce, count(*)::int AS received, max(total_shards)::int AS total FROM rms_feed_shards
    WHERE partner_id = ${partnerId} GROUP BY nonce ORDER BY min(received_at), nonce LIMIT ${limit}`.execute(ex);
  return rows;
}

export interface AvailabilityRow { duration: number | null; area_id: string | null; slots: Array<ReturnType<typeof slotWire>> }

/**
 * The complete snapshot's record for one venue, date, party size and area (null: the venue's own),
 * with the snapshot's nonce, in one statement (the snapshot is swapped in one transaction, so the
 * two always agree); null when there is no complete snapshot or no such record.
 */
export async function snapshotRecord(
  ex: Executor, partnerId: string, rmsVenueId: string, date: string, partySize: number, areaId: string | null,
): Promise<(AvailabilityRow & { nonce: string; completed_at: Date }) | null> {
  const { rows } = await sql<AvailabilityRow & { nonce: string; completed_at: Date }>`
    SELECT s.nonce, s.completed_at, a.duration, a.area_id, a.slots
    FROM rms_feed_snapshots s JOIN rms_availability a ON a.partner_id = s.partner_id
    WHERE s.partner_id = ${partnerId} AND a.rms_venue_id = ${rmsVenueId} AND a.date = ${date}::date AND a.party_size = ${partySize}
      AND a.area_id IS NOT DISTINCT FROM ${areaId}
    LIMIT 1`.execute(ex);
  return rows[0] ?? null;
}

export interface VenueSnapshotRow { date: string; party_size: number; duration: number | null; slots: Array<ReturnType<typeof slotWire>> }

/** Every area-less record of one RMS venue's snapshot between two venue-local dates (inclusive). */
export async function snapshotVenueRows(ex: Executor, partnerId: string, rmsVenueId: string, from: string, to: string): Promise<VenueSnapshotRow[]> {
  const { rows } = await sql<VenueSnapshotRow>`SELECT to_char(date, 'YYYY-MM-DD') AS date, party_size, duration, slots FROM rms_availability
    WHERE partner_id = ${partnerId} AND rms_venue_id = ${rmsVenueId} AND date BETWEEN ${from}::date AND ${to}::date AND area_id IS NULL
    ORDER BY date, party_size`.execute(ex);
  return rows;
}

/** Where a batch of snapshotVenuePage ended: the last row's date, party size and physical row id. */
export interface SnapshotPageKey { date: string; partySize: number; row: string }

export interface SnapshotPageRow {
  nonce: string;
  /** Null (with the other fields) when the snapshot has no record of the venue after `after`. */
  date: string | null;
  partySize: number;
  row: string;
  /** The record's duration, or the default given. */
  duration: number;
  /** The record's slots as `<start>,<total>,<open>,…` (the numbers as the snapshot holds them); null when it has none. */
  slots: string | null;
}

/** A record's slots as numbers separated by commas, each slot's start, total and open spots, in the record's order (SQL, of `a`, a row of rms_availability). */
const SLOTS_TEXT = `(SELECT string_agg((e->>'startSec') || ',' || (e->>'totalSpots') || ',' || (e->>'openSpots'), ',' ORDER BY n)
    FROM jsonb_array_elements(a.slots) WITH ORDINALITY x(e, n))`;

/**
 * At most `limit` area-less records of one RMS venue's snapshot between two venue-local dates after
 * `after` (null: from the first), of party sizes 1..maxPartySize, in the order snapshotVenueRows
 * reads them, each with the snapshot's nonce, in one statement (so a batch is never half one
 * snapshot and half the next; see snapshotRecord), with their slots as text (SLOTS_TEXT: no jsonb
 * parsed by `pg` into objects). No row: the partner has no complete snapshot; one row with a null
 * date: no record after `after`. The row's physical id (ctid) orders records of the same date and
 * party size (nothing makes them unique), so a keyset read neither skips nor repeats one: rows are
 * only ever inserted and deleted (replaceSnapshot), never updated, and a replace changes the nonce.
 */
export async function snapshotVenuePage(
  ex: Executor, partnerId: string, rmsVenueId: string, from: string, to: string, after: SnapshotPageKey | null, limit: number,
  sizes: { maxPartySize: number; defaultDuration: number },
): Promise<SnapshotPageRow[]> {
  const key = after ?? { date: from, partySize: -2_147_483_648, row: '(0,0)' };
  const { rows } = await sql<SnapshotPageRow>`SELECT s.nonce, to_char(a.date, 'YYYY-MM-DD') AS date, a.party_size AS "partySize", a.ctid::text AS row,
      coalesce(a.duration, ${sizes.defaultDuration}::int) AS duration, ${sql.raw(SLOTS_TEXT)} AS slots
    FROM rms_feed_snapshots s LEFT JOIN rms_availability a ON a.partner_id = s.partner_id AND a.rms_venue_id = ${rmsVenueId}
      AND a.date BETWEEN ${from}::date AND ${to}::date AND a.area_id IS NULL AND a.party_size BETWEEN 1 AND ${sizes.maxPartySize}::int
      AND (a.date, a.party_size, a.ctid) > (${key.date}::date, ${key.partySize}::int, ${key.row}::tid)
    WHERE s.partner_id = ${partnerId}
    ORDER BY a.date, a.party_size, a.ctid LIMIT ${limit}`.execute(ex);
  return rows;
}

/** The nonce of the partner's complete snapshot; undefined when it has none. */
export const SNAPSHOT_NONCE = 'SELECT nonce FROM rms_feed_snapshots WHERE partner_id = $1';

/**
 * snapshotVenuePage's records of a whole venue as one `COPY … TO STDOUT` (PostgreSQL): one line
 * per record with a slot, its party size, duration and slots (SLOTS_TEXT), tab-separated, in
 * snapshotVenueRows' order. COPY takes no parameters: the ids and dates are escaped literals. Read
 * in the transaction that read the snapshot's nonce (SNAPSHOT_NONCE), it is that snapshot's.
 */
export function snapshotVenueCopy(partnerId: string, rmsVenueId: string, from: string, to: string, sizes: { maxPartySize: number; defaultDuration: number }): string {
  for (const n of [sizes.maxPartySize, sizes.defaultDuration]) if (!Number.isSafeInteger(n)) throw new Error(`not a whole number: ${n}`);
  const lit = (v: string) => pg.escapeLiteral(v);
  return `COPY (SELECT a.party_size, coalesce(a.duration, ${sizes.defaultDuration}), ${SLOTS_TEXT}
    FROM rms_availability a WHERE a.partner_id = ${lit(partnerId)}::uuid AND a.rms_venue_id = ${lit(rmsVenueId)}
      AND a.date BETWEEN ${lit(from)}::date AND ${lit(to)}::date AND a.area_id IS NULL AND a.party_size BETWEEN 1 AND ${sizes.maxPartySize}
      AND jsonb_array_length(a.slots) > 0
    ORDER BY a.date, a.party_size, a.ctid) TO STDOUT`;
}
