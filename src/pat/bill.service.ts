import type { Db } from '../db/db.ts';
import { notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import { toWire } from '../lib/money.ts';
import { checkTotals, itemOf, orderTotals, type PaymentForBill } from './bill.fns.ts';
import { findBillParts, findStoredBill, type BillCheck } from './bill.repository.ts';
import type { OrderRow } from '../pos-mirror/orders.fns.ts';
import type { OrdersService } from '../pos-mirror/orders.service.ts';
import { TABLE_UNKNOWN, type TablesService } from '../pos-mirror/tables.service.ts';
import type { VenueContexts } from './venue-context.ts';

// GET …/table/{tableId}/bill (spec 2.10, 4.7). With billRetrieval the open order is read live from
// the POS and the stored record refreshed; without it the stored state answers, in the same shape,
// even while the POS is down. The stored bill is one statement after authentication
// (bill.repository.ts); that statement also checks the scope and connection of a live one.

export const NO_OPEN_ORDER = 'No open order for this table: nothing to pay right now.';

export interface BillServiceDeps {
  db: Pick<Db, 'kysely'>;
  contexts: VenueContexts;
  tables: Pick<TablesService, 'current'>;
  orders: Pick<OrdersService, 'liveOpenOrderForTable'>;
}

export function createBillService({ db, contexts, tables, orders }: BillServiceDeps) {
  type BillOrder = Pick<OrderRow, 'id' | 'currency' | 'prepayment_minor' | 'party_size'>;

  function render(order: BillOrder, venueId: string, table: { id: string; name: string }, open: readonly BillCheck[], payments: readonly PaymentForBill[]) {
    const money = (minor: number) => toWire(minor, order.currency);
    const totals = orderTotals(open, order.prepayment_minor, payments);
    return {
      orderId: order.id,
      venueId,
      tableId: table.id,
      tableName: table.name,
      status: 'open' as const,
      partySize: order.party_size,
      totals: Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, money(v)])) as Record<keyof typeof totals, number>,
      checks: open.map((c) => {
        const t = checkTotals(c);
        return {
          checkNumber: c.checkNumber,
          status: c.status,
          totals: { subtotal: money(t.subtotal), tax: money(t.tax), tip: money(t.tip), discount: money(t.discount), total: money(t.total) },
          paymentMethod: c.paymentMethod,
          items: c.items.map((raw) => {
            const item = itemOf(raw);
            const unitPrice = money(item.unitPrice);
            return { id: item.id, name: item.name, quantity: item.quantity, unitPrice, price: unitPrice, total: money(item.total) };
          }),
        };
      }),
    };
  }

  return {
    async get(partnerId: string, venueId: string, tableId: string) {
      const stored = isUuid(venueId) ? await findStoredBill(db, partnerId, venueId, tableId) : null;
      const ctx = contexts.activeFrom(stored?.scoped ?? null);
      if (!ctx.posType.billRetrieval) {
        if (!stored!.table) throw notFound(TABLE_UNKNOWN);
        if (!stored!.order) throw notFound(NO_OPEN_ORDER);
        return render(stored!.order, ctx.venue.id, stored!.table, stored!.checks, stored!.payments);
      }
      // A live bill: the table (its name refreshed per the TTL) and the order as the POS says now.
      // What the stored bill's statement read stands where it is still current: the table unless
      // the tables were refreshed, the order and its checks unless the POS says something new.
      const table = await tables.current(ctx, tableId, stored!.table);
      const live = await orders.liveOpenOrderForTable(ctx, table.pos_table_id, stored!.order);
      if (!live) throw notFound(NO_OPEN_ORDER);
      const { checks, payments } = live.asKnown ? stored! : await findBillParts(db, live.order.id);
      return render(live.order, ctx.venue.id, table, checks, payments);
    },
  };
}

export type BillService = ReturnType<typeof createBillService>;
