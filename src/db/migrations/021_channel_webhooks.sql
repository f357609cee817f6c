-- Channel webhooks (issue 27, DESIGN 8.7a). A `tableside` booking channel owns webhook endpoints
-- as a partner does, and hears of the bookings made through it.
--
-- An endpoint belongs to a partner or to a channel, exactly one. Additive for the release before:
-- it reads endpoints by partner_id only, so it never finds a channel's (partner_id null), and its
-- scope rule (partner_id / venue_id of the event against the endpoint's partner) never matches one.
ALTER TABLE webhook_endpoints ALTER COLUMN partner_id DROP NOT NULL;
ALTER TABLE webhook_endpoints ADD COLUMN channel_id uuid REFERENCES booking_channels (id);
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_one_owner CHECK ((partner_id IS NULL) <> (channel_id IS NULL));
CREATE INDEX webhook_endpoints_channel ON webhook_endpoints (channel_id, created_at, id) WHERE channel_id IS NOT NULL;

-- A booking event is one outbox row per recorded change, as before (partner_id, venue_id: the
-- venue's RMS partner). The channel the booking was made through is a second audience of the same
-- row, with the view it may see (Tableside's ids only, previousStatus, changedBy) in channel_data,
-- so both audiences read one event with one per-booking sequence. The release before ignores both
-- columns and keeps delivering the row to the partners exactly as it did.
ALTER TABLE outbox ADD COLUMN channel_id uuid REFERENCES booking_channels (id);
ALTER TABLE outbox ADD COLUMN channel_data jsonb;
ALTER TABLE outbox ADD CONSTRAINT outbox_channel_data CHECK ((channel_id IS NULL) = (channel_data IS NULL));
-- A channel endpoint's recovery reads its channel's events of a window.
CREATE INDEX outbox_channel ON outbox (channel_id, created_at) WHERE channel_id IS NOT NULL;
