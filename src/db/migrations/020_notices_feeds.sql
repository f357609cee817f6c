-- Issue 26, DESIGN 8.8c and 8.8d: update notices and the availability feed under faults.
-- Additive only: the release before ignores these columns and keeps working on this schema.

-- 8.8c: when a notice's re-read of the booking began. A notice identical to one whose re-read has
-- not begun is coalesced with it; once the re-read has begun, a new identical notice is a new
-- change and gets its own re-read.
ALTER TABLE rms_notices ADD COLUMN reread_started_at timestamptz;

-- 8.8c: re-reads of one booking run one at a time. The running re-read's claim (a token) and the
-- end of its lease, on the database's clock; its write is fenced on the token, so a re-read that
-- outlived its lease never overwrites the one that took over.
ALTER TABLE bookings ADD COLUMN reread_claim uuid;
ALTER TABLE bookings ADD COLUMN reread_until timestamptz;

-- 8.3b: when the snapshot's feed began arriving (its first shard, on Tableside's clock), so a feed
-- without metadata.date that began earlier and completes later does not replace it.
ALTER TABLE rms_feed_snapshots ADD COLUMN first_received_at timestamptz;
