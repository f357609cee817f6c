-- Authentication without a round trip (issue 14): processes may keep the credentials they have
-- checked in memory, under a lease, and a revocation waits until every live lease has dropped
-- what it held (src/auth/credential-cache.ts, docs/decisions.md).
--
-- auth_epoch: one counter, bumped in the transaction of every change to a partner, an access
-- token or an API key, by trigger, so no code path (nor a hand-written UPDATE) can change a
-- credential without it. A cached credential is tagged with the epoch it was read at, in the same
-- statement, so a read that raced a revocation is never served after the process has learned the
-- new epoch.
CREATE TABLE auth_epoch (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  epoch bigint NOT NULL
);
INSERT INTO auth_epoch (id, epoch) VALUES (true, 0);

-- One row per process that serves from its cache: it may do so only while its lease is valid,
-- and it renews the lease only once it has acknowledged the current epoch. A revocation returns
-- once no valid lease is behind its epoch (each live process has acknowledged, or its lease ran
-- out), so every request that starts after it returns checks the credential in the database.
CREATE TABLE auth_leases (
  holder text PRIMARY KEY,
  valid_until timestamptz NOT NULL,
  acked_epoch bigint NOT NULL
);

CREATE FUNCTION auth_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE auth_epoch SET epoch = epoch + 1;
  -- A hint that wakes the holders at once; the lease renewal finds the epoch anyway.
  PERFORM pg_notify('tableside_auth', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER partners_auth_epoch AFTER UPDATE OR DELETE ON partners
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER access_tokens_auth_epoch AFTER UPDATE OR DELETE ON access_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER api_keys_auth_epoch AFTER UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
