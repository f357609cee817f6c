-- The outbox (issue 9): every event a feature emits is a row written in the transaction of the
-- change it describes (db/outbox.ts), so an event exists exactly when its change committed. It was
-- the `events` table of 005 (late POS answers, onboarded venues); a delivery feature (webhooks)
-- reads it. Each row names who may receive it: a partner, or the partners that see a venue.

ALTER TABLE events RENAME TO outbox;
ALTER TABLE outbox RENAME CONSTRAINT events_pkey TO outbox_pkey;
ALTER TABLE outbox RENAME CONSTRAINT events_partner_id_fkey TO outbox_partner_id_fkey;
ALTER INDEX events_partner RENAME TO outbox_partner;
ALTER TABLE outbox RENAME COLUMN payload TO data;

-- The venue whose partners may see the event (with or without a partner recipient).
ALTER TABLE outbox ADD COLUMN venue_id uuid REFERENCES venues (id);
-- The id of the thing the event is about (a payment, a venue, a booking…), for ordering per entity.
ALTER TABLE outbox ADD COLUMN entity_id text;

-- Rows written before: both kinds carried their venue and entity in the payload.
UPDATE outbox o SET venue_id = v.id FROM venues v WHERE v.id::text = o.data->>'venueId';
UPDATE outbox SET entity_id = coalesce(data->>'paymentId', data->>'venueId', id::text);

ALTER TABLE outbox ALTER COLUMN entity_id SET NOT NULL;
ALTER TABLE outbox ADD CONSTRAINT outbox_scope CHECK (partner_id IS NOT NULL OR venue_id IS NOT NULL);
CREATE INDEX outbox_venue ON outbox (venue_id, created_at) WHERE venue_id IS NOT NULL;
