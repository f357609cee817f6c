import { sql } from 'kysely';
import type { Executor } from '../../src/db/db.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { insertConnection, suspendConnection } from '../../src/pos-mirror/connections.repository.ts';

// Closed orders written straight into the store, for the analytics query tests: clearer than driving
// a POS when a test is about exact close times, time zones or paging.

export interface ItemInput {
  id?: string | null;
  name?: string;
  quantity?: number;
  priceMinor?: number;
  discountMinor?: number;
  /** What the POS sent (pass-through fields); defaults to the reliable fields. */
  raw?: Record<string, unknown>;
}

export interface CheckInput {
  checkNumber?: string;
  status?: string;
  subtotalMinor?: number;
  taxMinor?: number;
  tipMinor?: number;
  discountMinor?: number;
  paymentMethod?: string | null;
  items?: ItemInput[];
  closedAt?: Date | null;
  voidedAt?: Date | null;
}

export interface OrderInput {
  /** Close time; required unless status is open. */
  closedAt?: Date | string | null;
  status?: 'open' | 'closed' | 'void';
  posOrderId?: string;
  tables?: string[];
  partySize?: number | null;
  reservationDate?: Date | null;
  prepaymentMinor?: number;
  currency?: string;
  openAt?: Date;
  checks?: CheckInput[];
  /** Fixed id (tie-break tests). */
  id?: string;
}

let counter = 0;

export async function insertOrder(ex: Executor, venueId: string, input: OrderInput = {}): Promise<string> {
  const status = input.status ?? 'closed';
  const closedAt = input.closedAt === undefined || input.closedAt === null ? null : new Date(input.closedAt);
  if (status !== 'open' && !closedAt) throw new Error('a closed or void order needs closedAt');
  const openAt = input.openAt ?? new Date((closedAt ?? new Date()).getTime() - 3600_000);
  const id = input.id ?? uuidv7();
  const now = new Date();
  await sql`
    INSERT INTO orders (id, venue_id, pos_order_id, status, pos_tables, party_size, reservation_date, currency,
                        prepayment_minor, open_at, closed_at, closed_by, pos_updated_at, created_at, updated_at)
    VALUES (${id}, ${venueId}, ${input.posOrderId ?? `pos-${process.pid}-${++counter}`}, ${status},
            ${input.tables ?? ['1']}::text[], ${input.partySize ?? null}, ${input.reservationDate ?? null},
            ${input.currency ?? 'EUR'}, ${input.prepaymentMinor ?? 0}, ${openAt}, ${closedAt},
            ${status === 'open' ? null : 'pos'}, ${closedAt ?? openAt}, ${now}, ${now})`.execute(ex);
  const checks = input.checks ?? [{}];
  for (const [i, c] of checks.entries()) {
    const items = (c.items ?? [{}]).map((it, j) => {
      const item = {
        id: it.id === undefined ? String(100 + j) : it.id,
        name: it.name ?? 'Classic burger',
        quantity: it.quantity ?? 1,
        priceMinor: it.priceMinor ?? 1450,
        discountMinor: it.discountMinor ?? 0,
      };
      return { ...item, raw: it.raw ?? { id: item.id, name: item.name, quantity: item.quantity, price: item.priceMinor / 100 } };
    });
    const checkStatus = c.status ?? (status === 'void' ? 'void' : status === 'open' ? 'open' : 'closed');
    await sql`
      INSERT INTO order_checks (id, order_id, check_number, status, subtotal_minor, tax_minor, tip_minor, discount_minor,
                                payment_method, items, closed_at, voided_at, created_at, updated_at)
      VALUES (${uuidv7()}, ${id}, ${c.checkNumber ?? String(i + 1)}, ${checkStatus}, ${c.subtotalMinor ?? 1450},
              ${c.taxMinor ?? 0}, ${c.tipMinor ?? 0}, ${c.discountMinor ?? 0},
              ${c.paymentMethod === undefined ? 'card' : c.paymentMethod}, ${JSON.stringify(items)}::jsonb,
              ${c.closedAt === undefined ? (checkStatus === 'closed' ? closedAt : null) : c.closedAt},
              ${c.voidedAt === undefined ? (checkStatus === 'void' ? closedAt : null) : c.voidedAt}, ${now}, ${now})`.execute(ex);
  }
  return id;
}

/** A POS connection row for a venue (analytics venue availability). */
export async function connectVenue(ex: Executor, venueId: string, status: 'active' | 'suspended' = 'active'): Promise<void> {
  const now = new Date();
  await insertConnection(ex, { venue_id: venueId, pos_type: 'sim', pos_venue_id: `loc-${venueId}` }, now);
  if (status === 'suspended') await suspendConnection(ex, venueId, 'operator', now);
}
