-- Availability at Google's scale (issue 28): a process keeps booking channels' credentials and RMS
-- partners' booking-services connections in memory under the same lease and epoch as partners'
-- credentials (migration 016, src/auth/credential-cache.ts), so a revoke, a change of a channel's
-- protocol or a new booking-services URL or key is refused on every process once it returns.
--
-- Additive: triggers only. A change that matters bumps auth_epoch in its own transaction; health
-- notes (last_check_*) and a channel's logo do not, so they never empty the caches.
CREATE TRIGGER channel_credentials_auth_epoch AFTER UPDATE OR DELETE ON channel_credentials
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER booking_channels_auth_epoch AFTER UPDATE OF name, protocol OR DELETE ON booking_channels
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER rms_booking_services_auth_epoch AFTER UPDATE OF base_url, api_key_sealed OR DELETE ON rms_booking_services
  FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_bump();
