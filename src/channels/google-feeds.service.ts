import { mkdir, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { badRequest, conflict, forbidden, notFound } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import { localDateText } from '../lib/iso/timezones.ts';
import type { FeedService } from '../rms/availability-feed.service.ts';
import { rmsOf } from '../rms/venues.service.ts';
import { findChannel, type ChannelIdentity } from './access.repository.ts';
import { appendFile, producedStream, writeAll } from './google-feeds.bytes.ts';
import { allLinkedVenues, type FeedVenueRow } from './channel-api.repository.ts';
import {
  availabilityBytes, availabilityFrame, catalogueFiles, DEFAULT_DURATION_SEC, DEFAULT_SHARD_SIZE, feedMetadata, HORIZON_DAYS, horizonOf, nthRecordAt, OutBytes,
  partySizesOf, shardName, type FeedKind,
} from './google-feeds.fns.ts';

// Google's feeds for a google-v3 channel (DESIGN 8.4c), built from the complete RMS snapshots
// (8.3b) of the venues linked to it: `tableside feeds export` writes them as files, and
// GET /v1/feeds/{channelId}/{kind} serves the latest to the channel itself.
//
// Both stream (DESIGN 8.8e) and read the snapshots once: a venue's records come as bytes (on
// PostgreSQL one COPY of their slot numbers, the next venue read while this one is written), and
// each batch of them is written as Google's JSON into one reused buffer (availabilityBytes, exactly
// recordTexts' text), so neither the feed nor a shard is ever held whole, and no record is ever a
// string or an object in the process (bench/bulk.ts: RSS). Every shard's metadata and name carry
// total_shards, known only once every record is counted: the export writes each shard's
// records to a part file as they come, and when the last is written, each part becomes its shard
// (head, the part, tail). Before, PostgreSQL counted every venue's records in a first pass, which
// cost more than reading them. A snapshot replaced while the export reads it (the nonce of a batch
// differs from the partner's first) makes it fail, rather than write a set of two snapshots.

/** Snapshot records per batch (per statement on PGlite). */
const ROWS_PER_READ = 100;
/** A buffer of the export's, for the parts' copy into their shards. */
const COPY_BYTES = 256 * 1024;
/** The HTTP feed's pieces: strings well under V8's large-object size (128 KiB), which would go to its old generation at once. */
const PIECE_BYTES = 64 * 1024;

export function createFeedsService({ db, clock, feed }: { db: Pick<Db, 'kysely'>; clock: Clock; feed: Pick<FeedService, 'snapshotVenueBatches'> }) {
  async function googleChannel(channelId: string): Promise<ChannelIdentity> {
    const channel = /^[0-9a-f-]{36}$/i.test(channelId) ? await findChannel(db.kysely, channelId) : null;
    if (!channel) throw notFound(`No channel ${channelId}.`);
    if (channel.protocol !== 'google-v3') throw badRequest(`Channel ${channelId} speaks ${channel.protocol}; feeds are for google-v3 channels.`);
    return channel;
  }

  /** The venue-local dates a feed generated at `now` reads of a venue's snapshot. */
  function datesOf(v: FeedVenueRow, now: Date) {
    const tz = v.timezone ?? 'UTC';
    return { from: localDateText(new Date(now.getTime() - 86_400_000), tz), to: localDateText(new Date(now.getTime() + (HORIZON_DAYS + 1) * 86_400_000), tz) };
  }

  /**
   * The feed's records as JSON text, in feed order, a batch of snapshot rows at a time: `take` is
   * given each batch's records as bytes (`bytes[0, length)`, every record after a comma) and how
   * many; the bytes are reused once what it returns is done. `oneSnapshot` (the export): every
   * venue of a partner from the same snapshot; else each venue from one (the HTTP feed, as when a
   * venue was read in one statement). A replace in between: 409, or for the HTTP feed a stream
   * ended in error, which its reader sees as a cut-off document.
   */
  async function eachBatch(
    venues: FeedVenueRow[], now: Date, oneSnapshot: boolean, take: (bytes: Buffer, length: number, count: number) => Promise<void>,
  ): Promise<void> {
    const { from, to } = horizonOf(now);
    const nonces = new Map<string, string>();
    const out = new OutBytes();
    // The next venue is read (into the other scratch buffer) while this one's records are written:
    // PostgreSQL writes one while the process writes the other.
    const scratches = [{ bytes: Buffer.alloc(0) }, { bytes: Buffer.alloc(0) }];
    const linked = venues.flatMap((v) => { const rms = rmsOf(v); return rms ? [{ v, rms }] : []; });
    const read = (i: number) => {
      const { v, rms } = linked[i]!;
      const dates = datesOf(v, now);
      const sizes = { maxPartySize: partySizesOf(v), defaultDuration: DEFAULT_DURATION_SEC };
      const batches = feed.snapshotVenueBatches(rms.partnerId, rms.rmsVenueId, dates.from, dates.to, { rows: ROWS_PER_READ, sizes, scratch: scratches[i % 2]! });
      const first = batches.next();
      first.catch(() => {}); // heard when awaited; not before, if the reader stopped first
      return { batches, first };
    };
    let next = linked.length > 0 ? read(0) : null;
    try {
      for (let i = 0; next; i++) {
        const { batches, first } = next;
        const { v, rms } = linked[i]!;
        const write = availabilityBytes(v, from, to);
        const key = oneSnapshot ? rms.partnerId : v.id;
        next = null;
        for (let step = await first; !step.done; step = await batches.next()) {
          // The next venue's read starts once this one's has ended (its batches are views of one buffer).
          if (!next && i + 1 < linked.length) next = read(i + 1);
          const batch = step.value;
          if ((nonces.get(key) ?? batch.nonce) !== batch.nonce) throw conflict('An RMS availability snapshot was replaced while the feed was read; run it again.');
          nonces.set(key, batch.nonce);
          out.length = 0;
          const count = write(batch.lines, out);
          if (count > 0) await take(out.bytes, out.length, count);
        }
        if (!next && i + 1 < linked.length) next = read(i + 1);
      }
    } finally {
      void next?.batches.return(undefined).catch(() => {});
    }
  }

  /**
   * Writes the records of the availability feed in part files of `shardSize` records (the
   * shards' bodies, without head and tail), as they are read; returns the parts and the records.
   */
  async function writeParts(venues: FeedVenueRow[], now: Date, outDir: string, shardSize: number): Promise<{ parts: string[]; records: number }> {
    const parts: string[] = [];
    let file: FileHandle | undefined;
    let inShard = 0;
    let records = 0;
    try {
      await eachBatch(venues, now, true, async (bytes, length, count) => {
        for (let at = 0; count > 0;) {
          if (!file) {
            parts.push(join(outDir, `.availability-${String(parts.length).padStart(5, '0')}.part`));
            file = await open(parts.at(-1)!, 'w');
          }
          // The records that fill this shard; the rest go to the next one. A shard's first has no comma before it.
          const n = Math.min(count, shardSize - inShard);
          const end = n === count ? length : nthRecordAt(bytes, at, length, n);
          await writeAll(file, bytes, inShard === 0 ? at + 1 : at, end);
          [at, count, inShard, records] = [end, count - n, inShard + n, records + n];
          if (inShard === shardSize) {
            await file.close();
            [file, inShard] = [undefined, 0];
          }
        }
      });
      if (file) await file.close();
      file = undefined;
      return { parts, records };
    } catch (err) {
      await file?.close();
      await Promise.all(parts.map((p) => rm(p, { force: true })));
      throw err;
    }
  }

  /**
   * The unsharded availability feed's JSON: the head, the records in pieces of at most PIECE_BYTES,
   * the tail. A piece is a string copied from the bytes (all ASCII: the ids are uuids, the rest numbers
   * and field names), made as the socket wants it: it lives in V8's young generation until written.
   */
  function availabilityStream(venues: FeedVenueRow[], nonce: string, now: Date): Readable {
    const { head, tail } = availabilityFrame(feedMetadata(nonce, horizonOf(now).generation, 0, 1));
    return producedStream(async (push) => {
      await push(head);
      let first = true;
      await eachBatch(venues, now, false, async (bytes, length) => {
        for (let at = first ? 1 : 0; at < length;) {
          const end = Math.min(length, at + PIECE_BYTES);
          await push(bytes.toString('latin1', at, end));
          at = end;
        }
        first = false;
      });
      await push(tail);
    });
  }

  return {
    async export(channelId: string, outDir: string, shardSize = DEFAULT_SHARD_SIZE) {
      if (!Number.isInteger(shardSize) || shardSize < 1) throw badRequest('--shard-size must be a whole number of records, at least 1');
      const channel = await googleChannel(channelId);
      const venues = await allLinkedVenues(db.kysely, channel.id);
      const now = clock.now();
      const { generation } = horizonOf(now);
      const nonce = uuidv7();

      await mkdir(outDir, { recursive: true });
      const files: string[] = [];
      for (const f of catalogueFiles(venues, nonce, generation)) {
        await writeFile(join(outDir, f.name), JSON.stringify(f.document));
        files.push(f.name);
      }
      const { parts, records } = await writeParts(venues, now, outDir, shardSize);
      const through = Buffer.allocUnsafe(COPY_BYTES);
      const shards = Math.max(1, parts.length);
      try {
        for (let i = 0; i < shards; i++) {
          const { head, tail } = availabilityFrame(feedMetadata(nonce, generation, i, shards));
          const name = shardName('availability', i, shards);
          const file = await open(join(outDir, name), 'w');
          try {
            await file.write(head);
            if (parts[i]) await appendFile(file, parts[i]!, through);
            await file.write(tail);
          } finally {
            await file.close();
          }
          if (parts[i]) await rm(parts[i]!);
          files.push(name);
        }
      } finally {
        await Promise.all(parts.map((p) => rm(p, { force: true })));
      }
      return { channelId: channel.id, nonce, dir: outDir, files, records };
    },

    /**
     * The latest feed of one kind, unsharded, for the channel that asks (another channel's → 403), as
     * its JSON text: what can fail before the first byte (the channel, its venues) fails here; the
     * availability records are read venue by venue as the stream is read.
     */
    async latest(channel: ChannelIdentity, channelId: string, kind: FeedKind): Promise<Readable> {
      if (channelId.toLowerCase() !== channel.id.toLowerCase()) throw forbidden("These are another channel's feeds.");
      await googleChannel(channel.id);
      const now = clock.now();
      const venues = await allLinkedVenues(db.kysely, channel.id);
      const nonce = uuidv7();
      if (kind === 'availability') return availabilityStream(venues, nonce, now);
      const file = catalogueFiles(venues, nonce, horizonOf(now).generation).find((f) => f.kind === kind)!;
      return Readable.from([JSON.stringify(file.document)]);
    },
  };
}

export type FeedsService = ReturnType<typeof createFeedsService>;
