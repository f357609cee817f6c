-- Booking channels book (issue 11, DESIGN 8.4). A channel speaks one protocol: Tableside's channel
-- API (/v1/bc, an API key) or Google's Booking Server API v3 (/v3 and the feeds, HTTP Basic).
-- Credentials are stored as SHA-256 hashes only (shown once by `tableside channel create`) and are
-- revoked, never deleted, like partners' keys.
ALTER TABLE booking_channels ADD COLUMN protocol text NOT NULL DEFAULT 'tableside'
  CHECK (protocol IN ('tableside', 'google-v3'));

CREATE TABLE channel_credentials (
  id           uuid PRIMARY KEY,
  channel_id   uuid NOT NULL REFERENCES booking_channels (id),
  kind         text NOT NULL CHECK (kind IN ('api_key', 'basic')),
  -- Basic only: the username is an identifier, not a secret; the password is secret_hash.
  username     text UNIQUE,
  secret_hash  text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL,
  revoked_at   timestamptz,
  CONSTRAINT channel_credentials_basic_has_username CHECK ((kind = 'basic') = (username IS NOT NULL))
);
CREATE INDEX channel_credentials_channel ON channel_credentials (channel_id);

-- What the channel sent with its Idempotency-Key (a hash of the request as the channel wrote it), so
-- the same key with another body is a 409. The key itself is bookings.idempotency_key (unique),
-- scoped per channel by the channel service, which is what makes two processes agree on one booking.
ALTER TABLE bookings ADD COLUMN request_hash text;
CREATE INDEX bookings_channel ON bookings (channel_id, created_at) WHERE channel_id IS NOT NULL;
