-- The availability feed at scale (issue 28): a feed's records are staged per shard and read once,
-- when its last shard swaps the snapshot; written to the WAL they were about a third of a
-- 1,000,000-record ingest's WAL (the COPY, then the DELETE after the swap). UNLOGGED: no WAL, and a
-- crash (or a failover) empties the table while rms_feed_shards still lists the shards, so the swap
-- compares the records it staged with the shards' recorded counts and refuses a feed that lost any
-- (replaceSnapshot; docs/decisions.md "The availability feed's staging is UNLOGGED").
ALTER TABLE rms_feed_staging SET UNLOGGED;
