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
import { allLinkedVenues, type FeedVenueRow } from './channel-api.repository.ts';
import {
  availabilityFrame, catalogueFiles, DEFAULT_SHARD_SIZE, feedMetadata, HORIZON_DAYS, horizonOf, recordTexts, shardName, type FeedKind,
} from './google-feeds.fns.ts';

// Google's feeds for a google-v3 channel (DESIGN 8.4c), built from the complete RMS snapshots
// (8.3b) of the venues linked to it: `tableside feeds export` writes them as files, and
// GET /v1/feeds/{channelId}/{kind} serves the latest to the channel itself.
//
// Both stream (DESIGN 8.8e) and read the snapshots once: a venue's records are read a batch of rows
// at a time and each record is written as JSON text as it is read (recordTexts), so neither a
// venue's records nor a shard is ever held whole (bench/bulk.ts: RSS). Every shard's metadata and
// name carry total_shards, known only once every record is counted: the export writes each shard's
// records to a part file as they come, and when the last is written, each part becomes its shard
// (head, the part, tail). Before, PostgreSQL counted every venue's records in a first pass, which
// cost more than reading them. A snapshot replaced while the export reads it (the nonce of a batch
// differs from the partner's first) makes it fail, rather than write a set of two snapshots.

/** Snapshot rows per statement: a batch of a venue's records, small enough to die young in V8's heap. */
const ROWS_PER_READ = 100;
/** Text written to a part file at once. */
const PIECE_CHARS = 64 * 1024;

/**
 * The export's file writes go through one buffer of its own: a Buffer made for every write (a
 * string written, a read stream's chunk) lives outside V8's heap and is freed only when V8 next
 * collects, which it does late for those: the export's RSS rose 30 MiB while it copied the parts.
 */
class FileBuffer {
  // A UTF-16 unit is at most 3 bytes of UTF-8: a piece of PIECE_CHARS always fits.
  private readonly bytes = Buffer.allocUnsafe(3 * PIECE_CHARS);

  async writeText(file: FileHandle, text: string): Promise<void> {
    if (text.length > PIECE_CHARS) throw new Error(`a piece of ${text.length} characters`);
    await this.writeAll(file, this.bytes.write(text, 'utf8'));
  }

  /** Appends the whole file at `path` to `file`. */
  async copy(path: string, file: FileHandle): Promise<void> {
    const from = await open(path, 'r');
    try {
      for (;;) {
        const { bytesRead } = await from.read(this.bytes, 0, this.bytes.length, null);
        if (bytesRead === 0) return;
        await this.writeAll(file, bytesRead);
      }
    } finally {
      await from.close();
    }
  }

  private async writeAll(file: FileHandle, length: number): Promise<void> {
    for (let at = 0; at < length;) at += (await file.write(this.bytes, at, length - at)).bytesWritten;
  }
}

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
   * The feed's records as JSON text, in feed order, a batch of snapshot rows at a time. `oneSnapshot`
   * (the export): every venue of a partner from the same snapshot; else each venue from one (the
   * HTTP feed, as when a venue was read in one statement). A replace in between: 409, or for the
   * HTTP feed a stream ended in error, which its reader sees as a cut-off document.
   */
  async function* recordBatches(venues: FeedVenueRow[], now: Date, oneSnapshot: boolean): AsyncGenerator<string[]> {
    const { from, to } = horizonOf(now);
    const nonces = new Map<string, string>();
    for (const v of venues) {
      const rms = rmsOf(v);
      if (!rms) continue;
      const dates = datesOf(v, now);
      const write = recordTexts(v, from, to);
      const key = oneSnapshot ? rms.partnerId : v.id;
      for await (const batch of feed.snapshotVenueBatches(rms.partnerId, rms.rmsVenueId, dates.from, dates.to, ROWS_PER_READ)) {
        if ((nonces.get(key) ?? batch.nonce) !== batch.nonce) throw conflict('An RMS availability snapshot was replaced while the feed was read; run it again.');
        nonces.set(key, batch.nonce);
        const texts: string[] = [];
        for (const r of batch.records) write(r, texts);
        yield texts;
      }
    }
  }

  /** The unsharded availability feed's JSON, in pieces of at most about PIECE_CHARS. */
  async function* availabilityText(venues: FeedVenueRow[], nonce: string, now: Date): AsyncGenerator<string> {
    const { head, tail } = availabilityFrame(feedMetadata(nonce, horizonOf(now).generation, 0, 1));
    let piece = head;
    let first = true;
    for await (const texts of recordBatches(venues, now, false)) {
      for (const text of texts) {
        piece += first ? text : `,${text}`;
        first = false;
        if (piece.length >= PIECE_CHARS) {
          yield piece;
          piece = '';
        }
      }
    }
    yield piece + tail;
  }

  /**
   * Writes the records of the availability feed in part files of `shardSize` records (the
   * shards' bodies, without head and tail), as they are read; returns the parts and the records.
   */
  async function writeParts(venues: FeedVenueRow[], now: Date, outDir: string, shardSize: number, buffer: FileBuffer): Promise<{ parts: string[]; records: number }> {
    const parts: string[] = [];
    let file: FileHandle | undefined;
    let inShard = 0;
    let piece = '';
    let records = 0;
    try {
      for await (const texts of recordBatches(venues, now, true)) {
        for (const text of texts) {
          if (!file) {
            parts.push(join(outDir, `.availability-${String(parts.length).padStart(5, '0')}.part`));
            file = await open(parts.at(-1)!, 'w');
          }
          const next = inShard === 0 ? text : `,${text}`;
          if (piece.length + next.length > PIECE_CHARS) {
            await buffer.writeText(file, piece);
            piece = '';
          }
          piece += next;
          records++;
          if (++inShard === shardSize) {
            await buffer.writeText(file, piece);
            await file.close();
            [file, piece, inShard] = [undefined, '', 0];
          }
        }
      }
      if (file) {
        await buffer.writeText(file, piece);
        await file.close();
        file = undefined;
      }
      return { parts, records };
    } catch (err) {
      await file?.close();
      await Promise.all(parts.map((p) => rm(p, { force: true })));
      throw err;
    }
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
      const buffer = new FileBuffer();
      const { parts, records } = await writeParts(venues, now, outDir, shardSize, buffer);
      const shards = Math.max(1, parts.length);
      try {
        for (let i = 0; i < shards; i++) {
          const { head, tail } = availabilityFrame(feedMetadata(nonce, generation, i, shards));
          const name = shardName('availability', i, shards);
          const file = await open(join(outDir, name), 'w');
          try {
            await buffer.writeText(file, head);
            if (parts[i]) await buffer.copy(parts[i]!, file);
            await buffer.writeText(file, tail);
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
      // One piece read ahead of the client at most (a Readable's default is 16): text waiting for
      // a slow socket lives long enough for V8 to move it to the old generation, collected late.
      if (kind === 'availability') return Readable.from(availabilityText(venues, nonce, now), { highWaterMark: 1 });
      const file = catalogueFiles(venues, nonce, horizonOf(now).generation).find((f) => f.kind === kind)!;
      return Readable.from([JSON.stringify(file.document)]);
    },
  };
}

export type FeedsService = ReturnType<typeof createFeedsService>;
