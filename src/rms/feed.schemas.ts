import Type from 'typebox';
import { Nullable, Timestamp } from '../server/schemas.ts';

// DESIGN 8.3b: the availability feed an RMS pushes, in shards. Records are checked one by one by the
// service (feed.fns.ts) so a bad one is named by its index and nothing of its nonce is kept.

/** This route alone takes large bodies: a shard of a partner's 30 days x 200 venues x 10 party sizes. */
export const FEED_BODY_LIMIT = 32 * 1024 * 1024;

export const FeedBody = Type.Object({
  metadata: Type.Object({
    total_shards: Type.Integer({ minimum: 1, maximum: 100_000 }),
    shard_number: Type.Integer({ minimum: 0, maximum: 99_999, description: 'counts from 0 (as in Google feeds): 0..total_shards-1' }),
    nonce: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$', description: 'one value for every shard of one feed' }),
    date: Type.Optional(Type.String({ maxLength: 64, description: 'when the feed was generated (ISO 8601 or Unix seconds)' })),
  }),
  data: Type.Array(Type.Unknown(), {
    maxItems: 200_000,
    description: 'records {venueId, date (YYYY-MM-DD), partySize, areaId?, duration?, slotData:[8.2 slots]}',
  }),
});
export type FeedBody = Type.Static<typeof FeedBody>;

export const FeedAccepted = Type.Object({
  nonce: Type.String(),
  status: Type.Union([Type.Literal('received'), Type.Literal('duplicate'), Type.Literal('complete'), Type.Literal('superseded')], {
    description: 'superseded: the feed completed but was generated before the current snapshot, which stays',
  }),
  receivedShards: Type.Integer(),
  totalShards: Type.Integer(),
});

export const FeedStatus = Type.Object({
  nonce: Nullable(Type.String({ description: "the current snapshot's nonce; null before the first complete feed" })),
  date: Nullable(Type.String()),
  records: Type.Integer(),
  venues: Type.Integer(),
  completedAt: Nullable(Timestamp),
  incomplete: Type.Array(Type.Object({ nonce: Type.String(), receivedShards: Type.Integer(), totalShards: Type.Integer() })),
});
export type FeedStatus = Type.Static<typeof FeedStatus>;
