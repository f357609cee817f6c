-- Analytics (spec 4.8, DESIGN 9): a venue's closed orders within a close-time window, most recent
-- first. Chosen from EXPLAIN ANALYZE on 1,000,000 closed orders across 20 venues (bench/README.md,
-- docs/analytics.md): the page is an index scan that stops after offset + limit rows, and the
-- total an index-only scan of the window. Partial on status = 'closed' because analytics serves
-- closed orders only (voided orders are left out, docs/decisions.md) and open orders are few and
-- served by orders_open_by_venue.
CREATE INDEX orders_closed_by_venue ON orders (venue_id, closed_at DESC, id DESC) WHERE status = 'closed';
