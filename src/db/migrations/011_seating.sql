-- Seated reservations open the POS order (issue 12, DESIGN 8.3c). An RMS says a booking's guest is
-- seated; Tableside creates the POS order (spec 4.6) once per booking, however often the event is
-- sent and by however many processes: the unique (venue_id, booking_id) below is that rule.
--   opening   claimed: a process is creating the POS order now (lease_until bounds the attempt)
--   pending   the POS could not be reached: a durable job retries until deadline_at
--   opened    the POS order exists (pos_order_id) and is mirrored as orders.id = order_id
--   failed    the POS refused the order, or could not be reached for an hour

CREATE TABLE seatings (
  id                uuid PRIMARY KEY,
  partner_id        uuid NOT NULL REFERENCES partners (id),   -- the RMS partner that seated it
  venue_id          uuid NOT NULL REFERENCES venues (id),
  booking_id        text NOT NULL,                            -- the RMS's booking id
  order_id          uuid NOT NULL,                            -- Tableside's order id (the bill's orderId)
  status            text NOT NULL CHECK (status IN ('opening', 'pending', 'opened', 'failed')),
  party_size        integer NOT NULL,
  prepayment_minor  bigint NOT NULL,
  reservation_date  timestamptz NOT NULL,                     -- the booking's time
  seated_at         timestamptz NOT NULL,                     -- sent to the POS as `date`
  pos_request       jsonb NOT NULL,                           -- the create-order body (spec 4.6)
  pos_order_id      text,
  unknown_skus      text[] NOT NULL DEFAULT '{}',
  attempts          integer NOT NULL DEFAULT 0,
  lease_until       timestamptz,
  deadline_at       timestamptz NOT NULL,
  last_error        text,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  UNIQUE (venue_id, booking_id),
  UNIQUE (order_id)
);

-- Every reservation event an RMS sent, whatever its status (the ones other than seated change
-- nothing and are only recorded).
CREATE TABLE seating_events (
  id           uuid PRIMARY KEY,
  partner_id   uuid NOT NULL REFERENCES partners (id),
  venue_id     uuid NOT NULL REFERENCES venues (id),
  booking_id   text NOT NULL,
  status       text NOT NULL,
  body         jsonb NOT NULL,
  outcome      text NOT NULL,
  received_at  timestamptz NOT NULL
);
CREATE INDEX seating_events_booking ON seating_events (venue_id, booking_id, received_at);

-- An order opened from a seated reservation keeps the booking's party size, prepayment and time
-- (spec 2.10, 2.13) whatever the POS reports later; walk-ins have none.
ALTER TABLE orders ADD COLUMN booking_id text;
