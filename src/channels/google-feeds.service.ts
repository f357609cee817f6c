import { mkdir, writeFile } from 'node:fs/promises';
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
  availabilityDocument, availabilityFrame, availabilityOf, catalogueFiles, DEFAULT_SHARD_SIZE, feedMetadata, HORIZON_DAYS, horizonOf, partySizesOf, recordsText, shardName,
  type AvailabilityRecord, type FeedFile, type FeedKind, type VenueRecords,
} from './google-feeds.fns.ts';

// Google's feeds for a google-v3 channel (DESIGN 8.4c), built from the complete RMS snapshots
// (8.3b) of the venues linked to it: `tableside feeds export` writes them as files, and
// GET /v1/feeds/{channelId}/{kind} serves the latest to the channel itself.
//
// Both stream: the export holds one venue's records and one shard at a time, and the HTTP feed one
// venue's records, written as the client reads (DESIGN 8.8e), so 200 venues x 30 days x 10 party
// sizes never sit in memory together. The export reads the snapshots twice because every shard's
// metadata carries total_shards: first PostgreSQL counts each venue's records (before, every slot was read
// into the process twice, once only to be counted), then they are written; a snapshot replaced in between is detected
// by its nonce and the export says so rather than write an inconsistent set. The HTTP feed is one
// shard, so one pass.

/** Records per piece of the streamed feed: small enough for backpressure to act, large enough to be cheap. */
const RECORDS_PER_PIECE = 500;

export function createFeedsService({ db, clock, feed }: { db: Pick<Db, 'kysely'>; clock: Clock; feed: Pick<FeedService, 'snapshotVenue' | 'snapshotVenueCount'> }) {
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

  async function recordsOf(v: FeedVenueRow, now: Date): Promise<{ nonce: string | null; input: VenueRecords }> {
    const rms = rmsOf(v);
    if (!rms) return { nonce: null, input: { venue: v, records: [] } };
    const { from, to } = datesOf(v, now);
    const snap = await feed.snapshotVenue(rms.partnerId, rms.rmsVenueId, from, to);
    return { nonce: snap?.nonce ?? null, input: { venue: v, records: snap?.records ?? [] } };
  }

  /** How many records `availabilityOf(recordsOf(v))` makes, counted by the database (the export's first pass). */
  async function countOf(v: FeedVenueRow, now: Date): Promise<{ nonce: string | null; records: number }> {
    const rms = rmsOf(v);
    if (!rms) return { nonce: null, records: 0 };
    const { from, to } = datesOf(v, now);
    const { from: fromSec, to: toSec } = horizonOf(now);
    const counted = await feed.snapshotVenueCount(rms.partnerId, rms.rmsVenueId, from, to, { maxPartySize: partySizesOf(v), fromSec, toSec });
    return { nonce: counted?.nonce ?? null, records: counted?.records ?? 0 };
  }

  /** The unsharded availability feed's JSON, a venue's records at a time. */
  async function* availabilityText(venues: FeedVenueRow[], nonce: string, now: Date): AsyncGenerator<string> {
    const { generation, from, to } = horizonOf(now);
    const { head, tail } = availabilityFrame(feedMetadata(nonce, generation, 0, 1));
    yield head;
    let first = true;
    for (const v of venues) {
      const records = availabilityOf((await recordsOf(v, now)).input, from, to);
      for (let i = 0; i < records.length; i += RECORDS_PER_PIECE) {
        yield recordsText(records.slice(i, i + RECORDS_PER_PIECE), first);
        first = false;
      }
    }
    yield tail;
  }

  return {
    async export(channelId: string, outDir: string, shardSize = DEFAULT_SHARD_SIZE) {
      if (!Number.isInteger(shardSize) || shardSize < 1) throw badRequest('--shard-size must be a whole number of records, at least 1');
      const channel = await googleChannel(channelId);
      const venues = await allLinkedVenues(db.kysely, channel.id);
      const now = clock.now();
      const { generation, from, to } = horizonOf(now);
      const nonce = uuidv7();

      const seen = new Map<string, string | null>();
      let total = 0;
      for (const v of venues) {
        const counted = await countOf(v, now);
        seen.set(v.id, counted.nonce);
        total += counted.records;
      }
      const shards = Math.max(1, Math.ceil(total / shardSize));

      await mkdir(outDir, { recursive: true });
      const files: string[] = [];
      const write = async (f: Pick<FeedFile, 'name' | 'document'>) => {
        await writeFile(join(outDir, f.name), JSON.stringify(f.document));
        files.push(f.name);
      };
      for (const f of catalogueFiles(venues, nonce, generation)) await write(f);
      let buffer: AvailabilityRecord[] = [];
      let shard = 0;
      const flush = async () => {
        await write({ name: shardName('availability', shard, shards), document: availabilityDocument(feedMetadata(nonce, generation, shard, shards), buffer) });
        shard++;
        buffer = [];
      };
      for (const v of venues) {
        const { nonce: snap, input } = await recordsOf(v, now);
        if (snap !== seen.get(v.id)) throw conflict('An RMS availability snapshot was replaced during the export; run it again.');
        for (const r of availabilityOf(input, from, to)) {
          buffer.push(r);
          if (buffer.length === shardSize) await flush();
        }
      }
      if (buffer.length > 0 || shard === 0) await flush();
      return { channelId: channel.id, nonce, dir: outDir, files, records: total };
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
      if (kind === 'availability') return Readable.from(availabilityText(venues, nonce, now));
      const file = catalogueFiles(venues, nonce, horizonOf(now).generation).find((f) => f.kind === kind)!;
      return Readable.from([JSON.stringify(file.document)]);
    },
  };
}

export type FeedsService = ReturnType<typeof createFeedsService>;
