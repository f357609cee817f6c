import Type from 'typebox';
import { INT32_MAX, Int32, Nullable, Str, Timestamp } from '../server/schemas.ts';
import { ISO_WITH_OFFSET } from './rms-client.fns.ts';

// DESIGN 8.3b: the availability feed an RMS pushes, in shards. Records are checked one by one by the
// service (availability-feed.fns.ts) so a bad one is named by its index and nothing of its nonce is kept.

/** This route alone takes large bodies: a shard of a partner's 30 days x 200 venues x 10 party sizes. */
export const FEED_BODY_LIMIT = 32 * 1024 * 1024;
/** Shards of one feed at most. */
export const MAX_SHARDS = 100_000;
/** Incomplete feeds GET /v1/rms/availability-feed lists at most (the oldest first). */
export const MAX_INCOMPLETE_LISTED = 100;

const Nonce = (description: string) => Str(200, { minLength: 1, description });

export const FeedBody = Type.Object({
  metadata: Type.Object({
    total_shards: Int32(1, MAX_SHARDS),
    shard_number: Int32(0, MAX_SHARDS - 1, { description: 'counts from 0 (as in Google feeds): 0..total_shards-1' }),
    nonce: Nonce('one value for every shard of one feed'),
    date: Type.Optional(Str(64, {
      // The form is the schema's (a generator reads it); the range, 1970 to 5138, the service's.
      pattern: `^([0-9]{1,11}|${ISO_WITH_OFFSET.source.slice(1, -1)})$`,
      'x-problem': 'must be ISO 8601 with an offset or Unix seconds',
      description: 'when the feed was generated: ISO 8601 with an offset, or Unix seconds',
    })),
  }),
  data: Type.Array(Type.Unknown(), {
    maxItems: 200_000,
    description:
      'records {venueId (your venue id, at most 200 characters), date (YYYY-MM-DD), partySize (1..9999), areaId? (at most 200 characters), ' +
      'duration? (seconds), slotData: [8.2 slots, at most 1500]}; checked one by one, a bad record is named by its index',
  }),
});
export type FeedBody = Type.Static<typeof FeedBody>;

export const FeedAccepted = Type.Object({
  nonce: Nonce('the nonce of the shard'),
  status: Type.Union([Type.Literal('received'), Type.Literal('duplicate'), Type.Literal('complete'), Type.Literal('superseded')], {
    description: 'superseded: the feed completed but was generated before the current snapshot, which stays',
  }),
  receivedShards: Int32(0, MAX_SHARDS),
  totalShards: Int32(1, MAX_SHARDS),
});

export const FeedStatus = Type.Object({
  nonce: Nullable(Nonce("the current snapshot's nonce; null before the first complete feed")),
  date: Nullable(Timestamp),
  records: Int32(0, INT32_MAX),
  venues: Int32(0, INT32_MAX),
  completedAt: Nullable(Timestamp),
  incomplete: Type.Array(
    Type.Object({ nonce: Nonce('a feed still missing shards'), receivedShards: Int32(1, MAX_SHARDS), totalShards: Int32(1, MAX_SHARDS) }),
    { maxItems: MAX_INCOMPLETE_LISTED, description: `feeds still missing shards, the oldest first (at most ${MAX_INCOMPLETE_LISTED})` },
  ),
});
export type FeedStatus = Type.Static<typeof FeedStatus>;
