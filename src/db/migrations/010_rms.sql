-- Reservations, Tableside's side (issue 10, DESIGN 8.1-8.3b): an RMS partner's booking-services
-- connection, the bookings made through Tableside with their history, the update notices the RMS
-- sends, and the availability feed (shards staged per nonce, the partner's current snapshot).

-- DESIGN 8.1: one booking-services endpoint per RMS partner. The key Tableside sends the RMS must be
-- readable again, so it is sealed (AES-256-GCM, src/lib/sealed.ts), never hashed, and never answered.
CREATE TABLE rms_booking_services (
  partner_id          uuid PRIMARY KEY REFERENCES partners (id),
  base_url            text NOT NULL,
  api_key_sealed      text NOT NULL,
  last_check_at       timestamptz NOT NULL,
  last_check_ok       boolean NOT NULL,
  last_check_message  text NOT NULL,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);

-- Every booking made through Tableside. `status` is the RMS's (DESIGN 8.2, DES-105); it is null
-- while the create has not been answered. `sync`: 'creating' (sent, outcome not known yet: the
-- create is retried under the same idempotency key until the RMS answers), 'created', 'refused'
-- (the RMS answered 402 `refusal_code`; no booking exists there).
CREATE TABLE bookings (
  id               uuid PRIMARY KEY,
  partner_id       uuid NOT NULL REFERENCES partners (id),
  venue_id         uuid NOT NULL REFERENCES venues (id),
  rms_venue_id     text NOT NULL,
  rms_booking_id   text,
  idempotency_key  text NOT NULL UNIQUE,
  channel_id       text,
  channel_name     text,
  sync             text NOT NULL CHECK (sync IN ('creating', 'created', 'refused')),
  refusal_code     text,
  status           text CHECK (status IN ('pending_confirmation', 'requires_payment', 'confirmed', 'rejected',
                                          'canceled', 'no-show', 'seated', 'completed')),
  party_size       integer NOT NULL CHECK (party_size > 0),
  start_at         timestamptz NOT NULL,
  area_id          text,
  tables           jsonb,
  contact          jsonb NOT NULL,
  notes            text,
  deposit          jsonb,
  -- What was sent in the create, so a retry sends the very same body with the same key.
  request          jsonb NOT NULL,
  rms_updated_at   timestamptz,
  version          integer NOT NULL DEFAULT 1,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CONSTRAINT bookings_created_has_rms_id CHECK ((sync = 'created') = (rms_booking_id IS NOT NULL)),
  UNIQUE (partner_id, rms_booking_id)
);
CREATE INDEX bookings_venue_start ON bookings (venue_id, start_at);
CREATE INDEX bookings_creating ON bookings (partner_id) WHERE sync = 'creating';

-- The history of a booking: one row per change Tableside recorded (who caused it and what changed).
CREATE TABLE booking_changes (
  id          uuid PRIMARY KEY,
  booking_id  uuid NOT NULL REFERENCES bookings (id),
  cause       text NOT NULL,
  changes     jsonb NOT NULL,
  at          timestamptz NOT NULL
);
CREATE INDEX booking_changes_booking ON booking_changes (booking_id, at);

-- DESIGN 8.3a: notices received. A webhook-id is seen once per partner; `body_hash` finds the same
-- body within 24 h. `outcome` is set when the notice has been processed.
CREATE TABLE rms_notices (
  id           uuid PRIMARY KEY,
  partner_id   uuid NOT NULL REFERENCES partners (id),
  webhook_id   text,
  body_hash    text NOT NULL,
  entity_id    text NOT NULL,
  action       text NOT NULL,
  duplicate_of uuid REFERENCES rms_notices (id),
  outcome      text,
  received_at  timestamptz NOT NULL,
  processed_at timestamptz,
  UNIQUE (partner_id, webhook_id)
);
CREATE INDEX rms_notices_body ON rms_notices (partner_id, body_hash, received_at);

-- DESIGN 8.3b: shards of a nonce not yet complete. Their records wait in rms_feed_staging; when the
-- last shard arrives they replace the partner's rows in rms_availability in one transaction.
CREATE TABLE rms_feed_shards (
  partner_id    uuid NOT NULL REFERENCES partners (id),
  nonce         text NOT NULL,
  shard_number  integer NOT NULL,
  total_shards  integer NOT NULL,
  feed_date     timestamptz,
  records       integer NOT NULL,
  received_at   timestamptz NOT NULL,
  PRIMARY KEY (partner_id, nonce, shard_number)
);

CREATE TABLE rms_feed_staging (
  partner_id    uuid NOT NULL,
  nonce         text NOT NULL,
  shard_number  integer NOT NULL,
  rms_venue_id  text NOT NULL,
  date          date NOT NULL,
  party_size    integer NOT NULL,
  area_id       text,
  duration      integer,
  slots         jsonb NOT NULL
);
CREATE INDEX rms_feed_staging_nonce ON rms_feed_staging (partner_id, nonce);

CREATE TABLE rms_availability (
  partner_id    uuid NOT NULL REFERENCES partners (id),
  rms_venue_id  text NOT NULL,
  date          date NOT NULL,
  party_size    integer NOT NULL,
  area_id       text,
  duration      integer,
  slots         jsonb NOT NULL
);
CREATE INDEX rms_availability_lookup ON rms_availability (partner_id, rms_venue_id, date, party_size);

CREATE TABLE rms_feed_snapshots (
  partner_id    uuid PRIMARY KEY REFERENCES partners (id),
  nonce         text NOT NULL,
  feed_date     timestamptz,
  records       integer NOT NULL,
  venues        integer NOT NULL,
  completed_at  timestamptz NOT NULL
);
