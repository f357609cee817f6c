// Orders as the simulated POS keeps them: created by the partner (spec 4.6) or opened, added to,
// closed and voided by staff (the control API), and read back through the contract.

import type { CreateOrderBody } from './contract.schemas.ts';
import type { AddItemsInput, StaffItemInput, WalkInInput } from './control.schemas.ts';
import { SimError, badRequest, conflict, notFound } from './errors.ts';
import { toMinor } from './money.ts';
import { matchesFilter, orderView, type OrderFilter } from './orders.fns.ts';
import { paymentTipsMinor } from './payments.fns.ts';
import type { SimStore } from './store.ts';
import { parseLocalDateTime } from './time.ts';
import type { CheckState, ItemState, OrderState, PosOrder, VenueState } from './types.ts';
import type { VenuesService } from './venues.service.ts';

function amount(value: number | undefined, venue: VenueState, field: string): number {
  if (value === undefined) return 0;
  const minor = toMinor(value, venue.currency);
  if (minor === null || minor < 0) throw badRequest(`${field} is not a valid ${venue.currency} amount`);
  return minor;
}

function unknownTables(venue: VenueState, tables: string[]): void {
  const unknown = tables.filter((id) => !venue.tables.some((t) => t.id === id));
  if (unknown.length > 0) throw new SimError(422, { error: 'unknown table', unknownTables: unknown });
}

function unknownSkusError(skus: string[]): SimError {
  return new SimError(422, { error: `unknown sku: ${skus.join(', ')}`, unknownSkus: skus });
}

export function createOrdersService(store: SimStore, venues: VenuesService) {
  const view = (order: OrderState, venue: VenueState): PosOrder => orderView(order, venue, store.paymentsOf(venue.id, order.id));

  function touch(order: OrderState): void {
    order.updatedAt = store.now();
    store.save();
  }

  function getOrder(venueId: string, orderId: string): OrderState {
    venues.get(venueId);
    const order = store.order(venueId, orderId);
    if (!order) throw notFound(`order ${orderId}`);
    return order;
  }

  function openOrder(venueId: string, orderId: string): OrderState {
    const order = getOrder(venueId, orderId);
    if (order.status !== 'open') throw conflict(`order ${orderId} is closed`);
    return order;
  }

  function newCheck(venue: VenueState, checkNumber?: string): CheckState {
    return {
      checkNumber: checkNumber ?? String(venue.nextCheckNo++),
      status: 'open',
      items: [],
      taxMinor: 0,
      tipMinor: 0,
      discountMinor: 0,
      paymentMethod: '',
      closedAt: null,
      voidedAt: null,
    };
  }

  /** The next sequence number not already taken (staff may have picked ids of their own). */
  function nextOrderId(venue: VenueState): string {
    let id: string;
    do id = String(venue.nextOrderNo++);
    while (store.order(venue.id, id));
    return id;
  }

  function newOrder(venue: VenueState, fields: Partial<OrderState> & Pick<OrderState, 'tables' | 'source'>): OrderState {
    const now = store.now();
    return {
      id: fields.id ?? nextOrderId(venue),
      venueId: venue.id,
      status: 'open',
      reservationId: null,
      partySize: 0,
      guestName: '',
      guestEmail: null,
      guestTelephone: null,
      prepaymentMinor: 0,
      seatedAt: now,
      checks: [],
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      ...fields,
    };
  }

  function staffItems(venue: VenueState, inputs: StaffItemInput[]): ItemState[] {
    const unknown = inputs.filter((i) => i.sku !== undefined && !venue.menu.some((m) => m.sku === i.sku));
    if (unknown.length > 0) throw unknownSkusError([...new Set(unknown.map((i) => i.sku as string))]);
    return inputs.map((input) => {
      const entry = input.sku !== undefined ? venue.menu.find((m) => m.sku === input.sku) : undefined;
      const name = input.name ?? entry?.name;
      if (name === undefined) throw badRequest('an item needs a sku or a name');
      if (input.price === undefined && entry === undefined) throw badRequest(`item ${name} needs a price`);
      const priceMinor = input.price !== undefined ? amount(input.price, venue, 'price') : (entry as { priceMinor: number }).priceMinor;
      return {
        id: venue.nextItemId++,
        sku: input.sku ?? null,
        name,
        priceMinor,
        quantity: input.quantity,
        notes: input.notes ?? null,
        discountMinor: amount(input.discount, venue, 'discount'),
      };
    });
  }

  return {
    /** POST /venue/{venueId}/orders (spec 4.6). */
    createFromPartner(venueId: string, body: CreateOrderBody, opts: { echoId?: boolean } = {}): { id: string; checkNumber: string } {
      const venue = venues.get(venueId);
      unknownTables(venue, body.tables);
      const seatedAt = body.date === undefined ? store.now() : parseLocalDateTime(body.date, venue.timezone);
      if (seatedAt === null) throw badRequest("date must be a real time formatted 'Y-m-d H:i:s'");
      const prepaymentMinor = amount(body.prepayment, venue, 'prepayment');

      let itemInputs = body.items ?? [];
      if (!venue.itemsSupported) itemInputs = []; // spec 4.6 rule 2: accepted, ignored
      const unknown = [...new Set(itemInputs.map((i) => i.sku).filter((sku) => !venue.menu.some((m) => m.sku === sku)))];
      if (unknown.length > 0) {
        // Deliberately broken mode: pretend the unknown skus were never sent.
        if (store.broken === 'drop-unknown-skus') itemInputs = itemInputs.filter((i) => !unknown.includes(i.sku));
        else throw unknownSkusError(unknown);
      }

      // Deliberately broken mode: a POS that only remembers the first of merged tables.
      const tables = store.broken === 'drop-merged-tables' ? body.tables.slice(0, 1) : [...body.tables];
      const check = newCheck(venue);
      check.items = staffItems(venue, itemInputs.map((i) => ({ sku: i.sku, quantity: i.quantity, notes: i.notes })));
      // A POS that keeps the service's id as its own order id (when it is free).
      const echoed = opts.echoId && body.id !== undefined && !store.order(venueId, body.id) ? { id: body.id } : {};
      const order = newOrder(venue, {
        ...echoed,
        source: 'partner',
        reservationId: body.id ?? null,
        tables,
        partySize: body.partySize ?? 0,
        guestName: body.guestName ?? '',
        guestEmail: body.guestEmail ?? null,
        guestTelephone: body.guestTelephone ?? null,
        prepaymentMinor,
        seatedAt,
        checks: [check],
      });
      store.addOrder(order);
      store.save();
      return { id: order.id, checkNumber: check.checkNumber };
    },

    list(venueId: string, filter: OrderFilter): PosOrder[] {
      const venue = venues.get(venueId);
      return store.orders(venueId).filter((o) => matchesFilter(o, filter)).map((o) => view(o, venue));
    },

    get(venueId: string, orderId: string): PosOrder {
      const order = getOrder(venueId, orderId);
      return view(order, venues.get(venueId));
    },

    /** Staff open a table on the POS (a walk-in), possibly already split into several checks. */
    openWalkIn(venueId: string, input: WalkInInput): PosOrder {
      const venue = venues.get(venueId);
      unknownTables(venue, input.tables);
      if (input.id !== undefined && store.order(venueId, input.id)) throw conflict(`order ${input.id} exists`);
      const numbers = (input.checks ?? []).map((c) => c.checkNumber).filter((n) => n !== undefined);
      if (new Set(numbers).size !== numbers.length) throw badRequest('checkNumber must be unique within the order');
      const checks = (input.checks ?? [{}]).map((c) => {
        const check = newCheck(venue, c.checkNumber);
        check.items = staffItems(venue, c.items ?? []);
        check.taxMinor = amount(c.tax, venue, 'tax');
        check.tipMinor = amount(c.tip, venue, 'tip');
        check.discountMinor = amount(c.discount, venue, 'discount');
        return check;
      });
      const order = newOrder(venue, {
        ...(input.id !== undefined ? { id: input.id } : {}),
        source: 'pos',
        tables: [...input.tables],
        partySize: input.partySize ?? 0,
        guestName: input.guestName ?? '',
        prepaymentMinor: amount(input.prepayment, venue, 'prepayment'),
        checks,
      });
      store.addOrder(order);
      store.save();
      return view(order, venue);
    },

    /** Staff ring up more items on an open check (default: the first open check). */
    addItems(venueId: string, orderId: string, input: AddItemsInput): PosOrder {
      const venue = venues.get(venueId);
      const order = openOrder(venueId, orderId);
      const check = input.checkNumber === undefined
        ? order.checks.find((c) => c.status === 'open')
        : order.checks.find((c) => c.checkNumber === input.checkNumber);
      if (!check) throw notFound(`check ${input.checkNumber ?? '(open)'}`);
      if (check.status !== 'open') throw conflict(`check ${check.checkNumber} is ${check.status}`);
      check.items.push(...staffItems(venue, input.items));
      touch(order);
      return view(order, venue);
    },

    /**
     * Staff settle the order at the till: every open check closes with that payment method, keeping
     * the tips of partial payments already confirmed through the extension.
     */
    close(venueId: string, orderId: string, input: { paymentMethod?: string }): PosOrder {
      const order = openOrder(venueId, orderId);
      const confirmed = store.paymentsOf(venueId, orderId).filter((p) => p.status === 'confirmed');
      closeOrderState(order, store.now(), input.paymentMethod ?? 'cash', paymentTipsMinor(confirmed));
      touch(order);
      return view(order, venues.get(venueId));
    },

    /** Staff void one check, or every open check; an order whose checks are all void is closed. */
    void(venueId: string, orderId: string, input: { checkNumber?: string }): PosOrder {
      const order = openOrder(venueId, orderId);
      const now = store.now();
      const targets = order.checks.filter((c) => c.status === 'open' && (input.checkNumber === undefined || c.checkNumber === input.checkNumber));
      if (targets.length === 0) throw notFound(`open check ${input.checkNumber ?? ''}`.trim());
      for (const check of targets) {
        check.status = 'void';
        check.voidedAt = now;
      }
      if (order.checks.every((c) => c.status === 'void')) {
        order.status = 'closed';
        order.closedAt = now;
      } else if (order.checks.every((c) => c.status !== 'open')) {
        closeOrderState(order, now, '', 0);
      }
      touch(order);
      return view(order, venues.get(venueId));
    },
  };
}

/**
 * Closes every open check and the order. A tip taken with the payment is added to the first open
 * check's tip, so the closed check shows what the guest actually left.
 */
export function closeOrderState(order: OrderState, now: number, paymentMethod: string, extraTipMinor: number): void {
  const open = order.checks.filter((c) => c.status === 'open');
  open.forEach((check, i) => {
    check.status = 'closed';
    check.closedAt = now;
    if (paymentMethod !== '') check.paymentMethod = paymentMethod;
    if (i === 0) check.tipMinor += extraTipMinor;
  });
  order.status = 'closed';
  order.closedAt = now;
}

export type OrdersService = ReturnType<typeof createOrdersService>;
