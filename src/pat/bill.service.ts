import type { Db } from '../db/db.ts';
import { notFound } from '../lib/errors.ts';
import { toWire } from '../lib/money.ts';
import { checkTotals, itemOf, orderTotals } from './bill.fns.ts';
import type { OrderRow } from '../pos-mirror/orders.fns.ts';
import type { OrdersService } from '../pos-mirror/orders.service.ts';
import type { TablesService } from '../pos-mirror/tables.service.ts';
import { listOrderPayments } from './payments.repository.ts';
import type { VenueContexts } from './venue-context.ts';

// GET …/table/{tableId}/bill (spec 2.10, 4.7). With billRetrieval the open order is read live from
// the POS and the stored record refreshed; without it the stored state answers, in the same shape,
// even while the POS is down.

export const NO_OPEN_ORDER = 'No open order for this table: nothing to pay right now.';

export interface BillServiceDeps {
  db: Pick<Db, 'kysely'>;
  contexts: VenueContexts;
  tables: Pick<TablesService, 'get'>;
  orders: Pick<OrdersService, 'liveOpenOrderForTable' | 'storedOpenOrderForTable' | 'openChecks'>;
}

export function createBillService({ db, contexts, tables, orders }: BillServiceDeps) {
  async function render(order: OrderRow, venueId: string, table: { id: string; name: string }) {
    const [open, payments] = await Promise.all([orders.openChecks(order.id), listOrderPayments(db.kysely, order.id)]);
    const money = (minor: number) => toWire(minor, order.currency);
    const totals = orderTotals(open, order.prepayment_minor, payments.map((p) => ({ status: p.status, amountMinor: p.amount_minor, tipMinor: p.tip_minor })));
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
      const ctx = await contexts.active(partnerId, venueId);
      const live = ctx.posType.billRetrieval;
      const table = await tables.get(ctx, tableId, live);
      const order = live
        ? await orders.liveOpenOrderForTable(ctx, table.pos_table_id)
        : await orders.storedOpenOrderForTable(ctx, table.pos_table_id);
      if (!order) throw notFound(NO_OPEN_ORDER);
      return render(order, ctx.venue.id, table);
    },
  };
}

export type BillService = ReturnType<typeof createBillService>;
