-- Outbound webhooks (issue 13, DESIGN 8.5). Partners register endpoints; every outbox event an
-- endpoint subscribed to, of a venue its partner may see, becomes one delivery to it, tried until it
-- succeeds or the retry schedule ends; every try is an attempt row (the delivery log).

-- A per-entity counter, bumped by emit() in the transaction of the change, so each event of one
-- entity carries a sequence in commit order (receivers order what arrives out of order). The entity
-- kind is the event type's first segment (payment, order, venue, booking…), since ids of different
-- kinds are not guaranteed distinct.
CREATE TABLE outbox_sequences (
  entity_kind  text NOT NULL,
  entity_id    text NOT NULL,
  last         bigint NOT NULL,
  PRIMARY KEY (entity_kind, entity_id)
);
-- Rows written before this migration have none; they are never delivered (see below).
ALTER TABLE outbox ADD COLUMN sequence bigint;

CREATE TABLE webhook_endpoints (
  id                      uuid PRIMARY KEY,
  partner_id              uuid NOT NULL REFERENCES partners (id),
  url                     text NOT NULL,
  description             text,
  events                  text[] NOT NULL,
  status                  text NOT NULL CHECK (status IN ('enabled', 'disabled')),
  -- 'gone': the endpoint answered 410; 'failing': every delivery failed for 5 days; 'partner': PUT.
  disabled_reason         text CHECK (disabled_reason IN ('gone', 'failing', 'partner')),
  disabled_at             timestamptz,
  -- Since when every attempt has failed (null after a success): the 5-day rule.
  failing_since           timestamptz,
  -- The signing secret, sealed with AES-256-GCM (lib/sealed.ts); never stored in clear, never answered again.
  secret_sealed           text NOT NULL,
  -- After rotate-secret the old secret signs too, until previous_secret_until (24 h).
  previous_secret_sealed  text,
  previous_secret_until   timestamptz,
  created_at              timestamptz NOT NULL,
  updated_at              timestamptz NOT NULL,
  CONSTRAINT webhook_endpoints_disabled_consistent CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL))
);
CREATE INDEX webhook_endpoints_partner ON webhook_endpoints (partner_id, created_at, id);

-- One event to one endpoint. webhook_id is stable across retries and replays.
CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY,
  endpoint_id      uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- The outbox event; null for a test event.
  event_id         uuid REFERENCES outbox (id),
  webhook_id       text NOT NULL,
  type             text NOT NULL,
  -- The exact JSON sent, so every retry signs and sends the same bytes.
  body             text NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  event_at         timestamptz NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries (endpoint_id, event_id);
CREATE INDEX webhook_deliveries_window ON webhook_deliveries (endpoint_id, event_at);

CREATE TABLE webhook_attempts (
  id             uuid PRIMARY KEY,
  delivery_id    uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  endpoint_id    uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  attempt        integer NOT NULL,
  status         text NOT NULL CHECK (status IN ('succeeded', 'failed')),
  response_code  integer,
  error          text,
  duration_ms    integer NOT NULL,
  at             timestamptz NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, at DESC, id DESC);
