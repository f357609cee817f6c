import { sql } from 'kysely';

// The venue in the partner's scope with its POS connection, as a part of a larger statement (the
// stored bill, a payment's submission), so the scope check costs no round trip of its own. The
// statement selects the POS mirror's `VENUE_CONNECTION_COLUMNS` (pos-mirror/connections.fns.ts)
// FROM this, and names the partner and the venue in WHERE: `pv.partner_id = … AND pv.venue_id = …`.

export const SCOPED_VENUE_FROM = sql`
  FROM partner_venues pv
  JOIN venues v ON v.id = pv.venue_id
  LEFT JOIN pos_connections c ON c.venue_id = v.id`;
