-- Booking creates under RMS faults (DESIGN 8.8b, issue 26). Additive only: the previous release
-- keeps working on this schema (it never reads these columns).
--
-- gave_up_at: Tableside stopped sending a create whose outcome stayed unknown for 15 minutes. The
-- row is then settled as sync 'refused' with refusal_code 'rms_unavailable' (so the previous
-- release, which knows no other settled state, answers the same key with the same failure and
-- never sends the create again); gave_up_at tells it apart from an RMS refusal, and starts the hour
-- in which Tableside looks for a booking of it at the RMS and cancels it.
ALTER TABLE bookings ADD COLUMN gave_up_at timestamptz;

-- The channel's paymentToken, sealed (lib/sealed.ts, the RMS partners' sealing key), kept only while
-- the create may still be sent again under its key; cleared when the create is settled. The create
-- body in `request` no longer holds it.
ALTER TABLE bookings ADD COLUMN payment_token_sealed text;

-- A cancel through Tableside in flight (DESIGN 8.4a): one at a time per booking, so of two cancels
-- at once one is the cancel and the other answers booking_already_cancelled. A lease (database
-- clock), so a process that dies mid-call does not block the booking for ever.
ALTER TABLE bookings ADD COLUMN cancel_claimed_until timestamptz;

-- Tokens the previous releases kept in clear: gone from every settled create (a create still in
-- flight keeps its clear copy until it settles, then it is removed with it).
UPDATE bookings SET request = request - 'paymentToken' WHERE sync <> 'creating' AND request ? 'paymentToken';
