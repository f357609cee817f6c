-- Availability at Google's scale (issue 28): a process keeps what a channel request reads of a venue
-- (its link to the channel, its timezone, currency, RMS owner and external id, its company's booking
-- settings: channels/channel-api.repository.ts, bookableVenue) in memory under the credential cache's
-- lease and epoch (migration 016, src/auth/credential-cache.ts), so an unlink or an edit of one of
-- those is seen by every process once the write returns (the content writes wait for the leases).
--
-- Additive: triggers only, on the columns that row reads. The content API writes every column of a
-- venue or a company on each update (a nightly sync sends the same values again), so the row-level
-- triggers fire only when one of those columns really changes: a bump empties every process's
-- credential entries. No per-request path writes these tables (bookings, feeds and their shards do not).
CREATE TRIGGER venues_auth_epoch AFTER UPDATE ON venues
  FOR EACH ROW WHEN ((OLD.id, OLD.timezone, OLD.currency, OLD.owner_partner_id, OLD.external_id, OLD.company_id)
    IS DISTINCT FROM (NEW.id, NEW.timezone, NEW.currency, NEW.owner_partner_id, NEW.external_id, NEW.company_id))
  EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER venues_deleted_auth_epoch AFTER DELETE ON venues
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER companies_auth_epoch AFTER UPDATE ON companies
  FOR EACH ROW WHEN ((OLD.id, OLD.min_advance_booking, OLD.min_advance_booking_cancelling, OLD.include_source_in_notes)
    IS DISTINCT FROM (NEW.id, NEW.min_advance_booking, NEW.min_advance_booking_cancelling, NEW.include_source_in_notes))
  EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER companies_deleted_auth_epoch AFTER DELETE ON companies
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
-- A link too: a process may hold a venue read while it was not linked (refused), which a link must end.
CREATE TRIGGER venue_booking_channels_auth_epoch AFTER INSERT OR DELETE OR UPDATE OF channel_id, venue_id ON venue_booking_channels
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
