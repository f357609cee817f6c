import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { badRequest, forbidden, notFound } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { FeedService } from '../rms/feed.service.ts';
import { findChannel, type ChannelIdentity } from './access.repository.ts';
import { allLinkedVenues } from './bc.repository.ts';
import { buildFeedSet, DEFAULT_SHARD_SIZE, HORIZON_DAYS, type FeedFile, type FeedKind, type VenueRecords } from './feeds.fns.ts';
import { localDate } from './v3.fns.ts';

// Google's feeds for a google-v3 channel (DESIGN 8.4c), built from the complete RMS snapshots
// (8.3b) of the venues linked to it: `tableside feeds export` writes them as files, and
// GET /v1/feeds/{channelId}/{kind} serves the latest to the channel itself.

export function createFeedsService({ db, clock, feed }: { db: Pick<Db, 'kysely'>; clock: Clock; feed: Pick<FeedService, 'snapshotVenue'> }) {
  async function venueRecords(channelId: string): Promise<VenueRecords[]> {
    const now = clock.now();
    const out: VenueRecords[] = [];
    for (const v of await allLinkedVenues(db.kysely, channelId)) {
      if (!v.ownerPartnerId || !v.externalId) continue;
      const tz = v.timezone ?? 'UTC';
      const from = localDate(new Date(now.getTime() - 86_400_000), tz);
      const to = localDate(new Date(now.getTime() + (HORIZON_DAYS + 1) * 86_400_000), tz);
      const snap = await feed.snapshotVenue(v.ownerPartnerId, v.externalId, from, to);
      out.push({ venue: v, records: snap?.records ?? [] });
    }
    return out;
  }

  async function build(channelId: string, shardSize: number): Promise<FeedFile[]> {
    const channel = /^[0-9a-f-]{36}$/i.test(channelId) ? await findChannel(db.kysely, channelId) : null;
    if (!channel) throw notFound(`No channel ${channelId}.`);
    if (channel.protocol !== 'google-v3') throw badRequest(`Channel ${channelId} speaks ${channel.protocol}; feeds are for google-v3 channels.`);
    return buildFeedSet(await venueRecords(channelId), { nonce: uuidv7(), now: clock.now(), shardSize });
  }

  return {
    async export(channelId: string, outDir: string, shardSize = DEFAULT_SHARD_SIZE) {
      if (!Number.isInteger(shardSize) || shardSize < 1) throw badRequest('--shard-size must be a whole number of records, at least 1');
      const files = await build(channelId, shardSize);
      await mkdir(outDir, { recursive: true });
      for (const f of files) await writeFile(join(outDir, f.name), JSON.stringify(f.document));
      const nonce = files[0]!.document.metadata.nonce;
      const records = files.filter((f) => f.kind === 'availability')
        .reduce((n, f) => n + ((f.document.service_availability as Array<{ availability: unknown[] }>)[0]!.availability.length), 0);
      return { channelId, nonce, dir: outDir, files: files.map((f) => f.name), records };
    },

    /** The latest feed of one kind, unsharded, for the channel that asks (another channel's → 403). */
    async latest(channel: ChannelIdentity, channelId: string, kind: FeedKind): Promise<FeedFile['document']> {
      if (channelId.toLowerCase() !== channel.id.toLowerCase()) throw forbidden('These are another channel\'s feeds.');
      const files = await build(channel.id, Number.MAX_SAFE_INTEGER);
      return files.find((f) => f.kind === kind)!.document;
    },
  };
}

export type FeedsService = ReturnType<typeof createFeedsService>;
