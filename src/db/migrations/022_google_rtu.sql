-- Google's real-time updates for google-v3 channels (issue 27, DESIGN 8.7b). Additive only: the
-- release before ignores these tables.

-- A channel's RTU configuration (`tableside channel google-rtu`): its Google partner id, where the
-- Maps Booking API is, and the service account's key file; the private key sealed (db/sealing-key.ts,
-- setting google.sealing_key), never printed or answered.
CREATE TABLE google_rtu_configs (
  channel_id          uuid PRIMARY KEY REFERENCES booking_channels (id),
  partner_id          text NOT NULL,
  api_base            text NOT NULL,
  client_email        text NOT NULL,
  token_uri           text NOT NULL,
  private_key_sealed  text NOT NULL,
  enabled             boolean NOT NULL DEFAULT true,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);

-- What Google must be told, one row per target: a booking (`booking`, target its id), a venue's
-- local day read live (`day`, target venueId/YYYY-MM-DD), a venue's days from a completed feed
-- (`feed`, target the venue id). A change bumps `wanted` (in the change's transaction, with the
-- target's job); the job sends the target's state as it then is and records `done`, so one job per
-- target sends the newest state and an older one is never sent after it. `accepted`: for a
-- booking, the fields Google last accepted (status, startTime, partySize), the base of updateMask.
CREATE TABLE google_rtu_targets (
  channel_id     uuid NOT NULL REFERENCES booking_channels (id),
  kind           text NOT NULL CHECK (kind IN ('booking', 'day', 'feed')),
  target         text NOT NULL,
  wanted         integer NOT NULL DEFAULT 1,
  done           integer NOT NULL DEFAULT 0,
  accepted       jsonb,
  failures       integer NOT NULL DEFAULT 0,
  failing_since  timestamptz,
  updated_at     timestamptz NOT NULL,
  PRIMARY KEY (channel_id, kind, target)
);

-- The availability Google last accepted per venue and local day (a hash of that day's entries), so a
-- completed feed sends only the days that changed.
CREATE TABLE google_rtu_days (
  channel_id  uuid NOT NULL REFERENCES booking_channels (id),
  venue_id    uuid NOT NULL,
  day         date NOT NULL,
  hash        text NOT NULL,
  sent_at     timestamptz NOT NULL,
  PRIMARY KEY (channel_id, venue_id, day)
);

-- Every attempt to call Google, for `tableside channel google-rtu-log`.
CREATE TABLE google_rtu_attempts (
  id             uuid PRIMARY KEY,
  channel_id     uuid NOT NULL REFERENCES booking_channels (id),
  kind           text NOT NULL,
  target         text NOT NULL,
  status         text NOT NULL CHECK (status IN ('sent', 'retrying', 'failed', 'skipped')),
  response_code  integer,
  answer         text,
  at             timestamptz NOT NULL
);
CREATE INDEX google_rtu_attempts_channel ON google_rtu_attempts (channel_id, at DESC, id DESC);
