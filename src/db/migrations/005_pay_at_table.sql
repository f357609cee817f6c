-- Pay-at-table (spec 2.8-2.15, 3, 4.7; DESIGN 6.3, 6.5, 7): onboarding, POS tables and orders
-- mirrored in the store, payments, and an outbox of events for reconciliation.

-- The POS type a pay-at-table partner chose when it created the venue (spec 2.14).
ALTER TABLE venues ADD COLUMN pos_type text;

-- When the venue's tables and orders were last read from its POS.
ALTER TABLE pos_connections ADD COLUMN tables_synced_at timestamptz;
ALTER TABLE pos_connections ADD COLUMN orders_synced_until timestamptz;

CREATE TABLE onboarding_requests (
  id            uuid PRIMARY KEY,          -- the requestId of spec 2.14
  venue_id      uuid NOT NULL REFERENCES venues (id),
  pos_type      text NOT NULL,
  secret_hash   text NOT NULL,             -- SHA-256 of the link's t parameter
  status        text NOT NULL CHECK (status IN ('rms_activation', 'active')),
  last_error    text,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  completed_at  timestamptz
);
CREATE INDEX onboarding_requests_venue ON onboarding_requests (venue_id);

-- A venue's tables, imported from its POS. The UUID is the canonical table id (spec 2.9) and
-- never changes for a POS table, whatever its name becomes.
CREATE TABLE venue_tables (
  id            uuid PRIMARY KEY,
  venue_id      uuid NOT NULL REFERENCES venues (id),
  pos_table_id  text NOT NULL,
  name          text NOT NULL,
  active        boolean NOT NULL DEFAULT true,   -- false once the POS no longer lists it
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  UNIQUE (venue_id, pos_table_id)
);

-- Orders read from the POS (DESIGN 6.3), with a stable UUID per POS order. status: open, closed,
-- or void (every check voided). closed_at is the close time analytics filters on.
CREATE TABLE orders (
  id                uuid PRIMARY KEY,
  venue_id          uuid NOT NULL REFERENCES venues (id),
  pos_order_id      text NOT NULL,
  status            text NOT NULL CHECK (status IN ('open', 'closed', 'void')),
  pos_tables        text[] NOT NULL,
  party_size        integer,                 -- null for walk-ins (spec 2.10)
  reservation_date  timestamptz,             -- null for walk-ins (spec 2.13)
  currency          text NOT NULL,
  prepayment_minor  bigint NOT NULL DEFAULT 0,
  open_at           timestamptz NOT NULL,    -- when the order opened on the POS
  closed_at         timestamptz,
  closed_by         text CHECK (closed_by IN ('pos', 'pat')),
  pos_updated_at    timestamptz NOT NULL,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  UNIQUE (venue_id, pos_order_id)
);
CREATE INDEX orders_open_by_venue ON orders (venue_id) WHERE status = 'open';

-- Checks of an order; items as the POS reported them (validated), amounts in minor units.
CREATE TABLE order_checks (
  id              uuid PRIMARY KEY,
  order_id        uuid NOT NULL REFERENCES orders (id),
  check_number    text NOT NULL,
  status          text NOT NULL,
  subtotal_minor  bigint NOT NULL,
  tax_minor       bigint NOT NULL,
  tip_minor       bigint NOT NULL,
  discount_minor  bigint NOT NULL,
  payment_method  text,
  items           jsonb NOT NULL,
  closed_at       timestamptz,
  voided_at       timestamptz,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  UNIQUE (order_id, check_number)
);

-- Payments (spec 2.11, 3.1; DESIGN 7). status:
--   in_flight       being forwarded synchronously to an immediate POS (not yet recorded: GET -> 404)
--   forward_failed  the synchronous forward failed (502 answered; not recorded; the same reference
--                   and payload may be retried and reuse this paymentId, so a POS never applies twice)
--   pending, confirmed, failed   as in spec 3.1
CREATE TABLE payments (
  id                  uuid PRIMARY KEY,        -- paymentId, also sent to the POS
  partner_id          uuid NOT NULL REFERENCES partners (id),
  external_reference  text NOT NULL,
  venue_id            uuid NOT NULL REFERENCES venues (id),
  order_id            uuid NOT NULL REFERENCES orders (id),
  type                text NOT NULL CHECK (type IN ('full', 'partial')),
  amount_minor        bigint NOT NULL,
  tip_minor           bigint,                  -- null when the request had no tip
  currency            text,
  payment_method      text,
  status              text NOT NULL CHECK (status IN ('in_flight', 'forward_failed', 'pending', 'confirmed', 'failed')),
  failure_code        text,
  forwarded           boolean NOT NULL DEFAULT false,   -- the POS accepted the forward (answered 200/202)
  recorded_at         timestamptz NOT NULL,
  confirmed_at        timestamptz,
  deadline_at         timestamptz NOT NULL,
  terminal_at         timestamptz,
  late_pos_status     text,                    -- what the POS said after the payment had timed out
  updated_at          timestamptz NOT NULL,
  UNIQUE (partner_id, external_reference)
);
-- One payment at a time per order: a second reference while one is in flight or pending is a 409,
-- and two partial payments can never both pass the balance.
CREATE UNIQUE INDEX payments_one_open_per_order ON payments (order_id) WHERE status IN ('in_flight', 'pending');
CREATE INDEX payments_order ON payments (order_id);

-- Events written in the same transaction as the change they describe (reconciliation, webhooks).
CREATE TABLE events (
  id          uuid PRIMARY KEY,
  partner_id  uuid REFERENCES partners (id),
  type        text NOT NULL,
  payload     jsonb NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX events_partner ON events (partner_id, created_at);
