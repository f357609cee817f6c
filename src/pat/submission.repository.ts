import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { isUuid } from '../lib/ids.ts';
import type { OrderRow } from '../pos-mirror/orders.fns.ts';
import type { PaymentRow } from './payments.fns.ts';
import { VENUE_CONNECTION_COLUMNS, venueWithConnectionOf, type VenueConnectionColumns, type VenueWithConnection } from '../pos-mirror/connections.fns.ts';
import { SCOPED_VENUE_FROM } from './scope.repository.ts';

// What a payment submission reads before it claims, in one prepared statement (issue 14): the venue
// in the partner's scope with its connection, the order of that venue, and the payment the partner
// already has under this externalReference. It was three round trips. The order and the payment
// come back as JSON (their columns are many and change with migrations); their times are revived.

export interface Submission {
  /** null when the venue is not in the partner's scope (or does not exist). */
  scoped: VenueWithConnection | null;
  order: OrderRow | null;
  existing: PaymentRow | null;
}

interface Row extends VenueConnectionColumns {
  order_row: Record<string, unknown> | null;
  payment_row: Record<string, unknown> | null;
}

/** JSON of a row, with its timestamp columns (`…_at`, `…_date`, `…_until`) as Dates again. */
function revive<T>(json: Record<string, unknown> | null): T | null {
  if (!json) return null;
  for (const [k, v] of Object.entries(json)) {
    if (typeof v === 'string' && /_(at|date|until)$/.test(k)) json[k] = new Date(v);
  }
  return json as T;
}

/** venueId must be a UUID; an orderId that is not one finds no order. */
export async function findSubmission(db: Pick<Db, 'kysely'>, partnerId: string, venueId: string, orderId: string, externalReference: string): Promise<Submission> {
  const query = sql<Row>`
    SELECT ${VENUE_CONNECTION_COLUMNS},
           (SELECT to_jsonb(o) FROM orders o WHERE o.id = ${isUuid(orderId) ? orderId : null}::uuid AND o.venue_id = v.id) AS order_row,
           (SELECT to_jsonb(p) FROM payments p
             WHERE p.partner_id = pv.partner_id AND p.external_reference = ${externalReference}::text) AS payment_row
    ${SCOPED_VENUE_FROM}
    WHERE pv.partner_id = ${partnerId}::uuid AND pv.venue_id = ${venueId}::uuid`.compile(db.kysely);
  const [r] = (await db.kysely.executeQuery<Row>(query)).rows;
  if (!r) return { scoped: null, order: null, existing: null };
  return { scoped: venueWithConnectionOf(r), order: revive<OrderRow>(r.order_row), existing: revive<PaymentRow>(r.payment_row) };
}
