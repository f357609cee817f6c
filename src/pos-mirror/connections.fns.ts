import { sql } from 'kysely';
import type { PosAdapter } from '../pos/pos-client.ts';
import type { PosType } from '../pos/pos-types.ts';

// A venue and its POS connection: their stored rows, the venue resolved to the POS it talks to
// (`ConnectedVenue`, what this folder's services hand each other and their callers), and both read
// in one row (venues v LEFT JOIN pos_connections c), as the mirror's own reads and the larger
// one-statement reads of other features (the stored bill, a payment's submission) select it, with
// that row split back into the two records.

/** The columns of a venue the POS mirror and its callers need. */
export interface VenueRow {
  id: string;
  name: string;
  country_code: string | null;
  city: string | null;
  timezone: string | null;
  currency: string | null;
  pos_type: string | null;
}

export type SuspensionReason = 'credentials_refused' | 'operator';

export interface ConnectionRow {
  venue_id: string;
  pos_type: string;
  pos_venue_id: string;
  status: 'active' | 'suspended';
  /** Why it is suspended (null while active): see migration 008. */
  suspended_reason: SuspensionReason | null;
  connected_at: Date;
  tables_synced_at: Date | null;
  orders_synced_until: Date | null;
}

export interface VenueWithConnection {
  venue: VenueRow;
  connection: ConnectionRow | null;
}

/** A venue with an active or suspended connection, its POS type and the client to reach that POS. */
export interface ConnectedVenue {
  /** A connected venue always has a currency: connect() refuses one without. */
  venue: VenueRow & { currency: string };
  connection: ConnectionRow;
  posType: PosType;
  pos: PosAdapter;
}

export type VenueConnectionColumns = VenueRow & {
  c_pos_type: string | null;
  c_pos_venue_id: string | null;
  c_status: ConnectionRow['status'] | null;
  c_suspended_reason: SuspensionReason | null;
  c_connected_at: Date | null;
  c_tables_synced_at: Date | null;
  c_orders_synced_until: Date | null;
};

/** The select list for `venues v LEFT JOIN pos_connections c`. */
export const VENUE_CONNECTION_COLUMNS = sql`
  v.id, v.name, v.country_code, v.city, v.timezone, v.currency, v.pos_type,
  c.pos_type AS c_pos_type, c.pos_venue_id AS c_pos_venue_id, c.status AS c_status,
  c.suspended_reason AS c_suspended_reason, c.connected_at AS c_connected_at,
  c.tables_synced_at AS c_tables_synced_at, c.orders_synced_until AS c_orders_synced_until`;

export function venueWithConnectionOf(r: VenueConnectionColumns): VenueWithConnection {
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
