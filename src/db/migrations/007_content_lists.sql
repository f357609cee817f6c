-- Content venue list speed (GET /v1/rms/venues; measured in bench/README.md).
--
-- The list indexes of 004 now carry every filtered column, so the page and its total (a count,
-- which the "contains" filters cannot narrow with a b-tree) are index-only scans of a narrow index
-- instead of reads of the wide venues rows. The service writes the contains filters as
-- lower(col) LIKE lower(pattern) to match them.
DROP INDEX venues_owner_name;
CREATE INDEX venues_owner_name ON venues (owner_partner_id, lower(name), id)
  INCLUDE (name, city, country_code, fb_installed, ig_installed);
DROP INDEX venues_owner_country_name;
CREATE INDEX venues_owner_country_name ON venues (owner_partner_id, country_code, lower(name), id)
  INCLUDE (name, city, fb_installed, ig_installed);

-- A counter per partner, bumped in the same transaction as every change that can change which of
-- its venues a list filter matches (a venue written, a channel link changed). The service reuses a
-- list total counted under the current version, so a client paging through does not recount
-- 100,000 rows per page. Bumped last in its transaction (after the venue rows are locked), so
-- writers never wait on each other in a cycle.
CREATE TABLE content_list_versions (
  partner_id  uuid PRIMARY KEY REFERENCES partners (id),
  version     bigint NOT NULL
);
