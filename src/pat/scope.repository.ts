import { sql } from 'kysely';
import type { ConnectionRow, VenueWithConnection } from '../pos-mirror/connections.service.ts';

// The venue in the partner's scope with its POS connection, as a part of a larger statement (the
// stored bill, a payment's submission), so the scope check costs no round trip of its own. The
// statement names the partner and the venue in WHERE: `pv.partner_id = … AND pv.venue_id = …`.

export interface ScopedVenueColumns {
  id: string;
  name: string;
  country_code: string | null;
  city: string | null;
  timezone: string | null;
  currency: string | null;
  pos_type: string | null;
  c_pos_type: string | null;
  c_pos_venue_id: string | null;
  c_status: ConnectionRow['status'] | null;
  c_suspended_reason: ConnectionRow['suspended_reason'];
  c_connected_at: Date | null;
  c_tables_synced_at: Date | null;
  c_orders_synced_until: Date | null;
}

export const SCOPED_VENUE_COLUMNS = sql`
  v.id, v.name, v.country_code, v.city, v.timezone, v.currency, v.pos_type,
  c.pos_type AS c_pos_type, c.pos_venue_id AS c_pos_venue_id, c.status AS c_status,
  c.suspended_reason AS c_suspended_reason, c.connected_at AS c_connected_at,
  c.tables_synced_at AS c_tables_synced_at, c.orders_synced_until AS c_orders_synced_until`;

export const SCOPED_VENUE_FROM = sql`
  FROM partner_venues pv
  JOIN venues v ON v.id = pv.venue_id
  LEFT JOIN pos_connections c ON c.venue_id = v.id`;

export function scopedOf(r: ScopedVenueColumns): VenueWithConnection {
  const connection: ConnectionRow | null = r.c_pos_type
    ? {
        venue_id: r.id,
        pos_type: r.c_pos_type,
        pos_venue_id: r.c_pos_venue_id!,
        status: r.c_status!,
        suspended_reason: r.c_suspended_reason,
        connected_at: r.c_connected_at!,
        tables_synced_at: r.c_tables_synced_at,
        orders_synced_until: r.c_orders_synced_until,
      }
    : null;
  return {
    venue: { id: r.id, name: r.name, country_code: r.country_code, city: r.city, timezone: r.timezone, currency: r.currency, pos_type: r.pos_type },
    connection,
  };
}
