-- Seating under POS faults (issue 26, DESIGN 8.8a, BKG-37..39). Additive: the previous release
-- neither reads nor writes these columns.
--   pos_outcome   what earlier attempts may have left on the POS: NULL nothing (no create reached it),
--                 'unknown' a create may have reached it (timeout after sending, 5xx, an attempt that
--                 died mid-call), 'created' the POS answered 2xx but the body did not say which order.
--                 Anything but NULL: an attempt looks for the order on the POS before it creates.
--   absent_since  when a look found no such order (a create is sent again only once a second look,
--                 30 s or more later, finds none either)
--   pos_hint      the POS's order id from a 2xx answer that was otherwise unreadable ({"id"} alone)
ALTER TABLE seatings ADD COLUMN pos_outcome text CHECK (pos_outcome IN ('unknown', 'created'));
ALTER TABLE seatings ADD COLUMN absent_since timestamptz;
ALTER TABLE seatings ADD COLUMN pos_hint text;
