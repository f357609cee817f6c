-- Jobs (issue 26, BKG-38): the claim a run holds is fenced on its own counter, `claims`, bumped by
-- every claim and never reset, so `attempts` can again count the failures in a row (reset when a
-- periodic job reschedules itself after a success) without a stale run of an earlier claim ever
-- matching a newer one. Additive: the previous release neither reads nor writes the column, and
-- its fence on `attempts` still holds against itself.
ALTER TABLE jobs ADD COLUMN claims bigint NOT NULL DEFAULT 0;
