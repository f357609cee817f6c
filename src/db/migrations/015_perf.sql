-- Free-text "contains" filters of the content venue list (filters[criteria], filters[city]) by
-- trigram index (issue 14; pg_trgm is allowed by DESIGN 3). A b-tree cannot narrow
-- lower(name) LIKE '%casa 1%', so every new search counted the partner's whole list; a GIN trigram
-- index answers it from the trigrams of the pattern. The extension lives in `public`, once per
-- database, so every schema on the server (tests use one per run) shares it and dropping a schema
-- never drops it; the operator class is therefore named with its schema. Two processes creating
-- it at the same moment on a new database: the loser's unique violation means it exists.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
EXCEPTION WHEN unique_violation OR duplicate_object THEN
  NULL;
END
$$;

CREATE INDEX venues_name_trgm ON venues USING gin (lower(name) public.gin_trgm_ops);
CREATE INDEX venues_city_trgm ON venues USING gin (lower(city) public.gin_trgm_ops);
