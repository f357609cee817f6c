// Venue configuration as the POS's back office would hold it: tables, menu (SKUs with prices),
// currency and timezone, and the per-venue payment behaviour knob. Driven by the control API.

import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from './errors.ts';
import { fromMinor, toMinor } from './money.ts';
import type { SimStore } from './store.ts';
import { isValidTimeZone } from './time.ts';
import type { VenueInput } from './control.schemas.ts';
import type { MenuEntry, TableState, VenueBehaviour, VenueState } from './types.ts';

export interface MenuInput { sku: string; name: string; price: number }

/** A venue as the control API shows it (prices as JSON numbers, no internal counters). */
export type VenueView = Pick<VenueState, 'id' | 'name' | 'timezone' | 'currency' | 'itemsSupported' | 'behaviour' | 'tables'> & {
  accessRevoked: boolean;
  menu: MenuInput[];
};

export function venueView(v: VenueState): VenueView {
  return {
    id: v.id,
    name: v.name,
    timezone: v.timezone,
    currency: v.currency,
    itemsSupported: v.itemsSupported,
    behaviour: { ...v.behaviour },
    accessRevoked: v.accessRevoked === true,
    tables: v.tables.map((t) => ({ ...t })),
    menu: v.menu.map((m) => ({ sku: m.sku, name: m.name, price: fromMinor(m.priceMinor, v.currency) })),
  };
}

function checkTables(tables: TableState[]): TableState[] {
  const ids = new Set<string>();
  for (const t of tables) {
    if (ids.has(t.id)) throw badRequest(`table id ${t.id} is listed twice`);
    ids.add(t.id);
  }
  return tables.map((t) => ({ id: t.id, name: t.name }));
}

function toMenu(menu: MenuInput[], currency: string): MenuEntry[] {
  const skus = new Set<string>();
  return menu.map((m) => {
    if (skus.has(m.sku)) throw badRequest(`sku ${m.sku} is listed twice`);
    skus.add(m.sku);
    const priceMinor = toMinor(m.price, currency);
    if (priceMinor === null || priceMinor < 0) throw badRequest(`price of ${m.sku} is not a valid ${currency} amount`);
    return { sku: m.sku, name: m.name, priceMinor };
  });
}

export function createVenuesService(store: SimStore) {
  function get(venueId: string): VenueState {
    const venue = store.venue(venueId);
    if (!venue) throw notFound(`venue ${venueId}`);
    return venue;
  }

  /** Creates the venue, or updates the fields given when the id exists (PUT semantics per field). */
  function upsert(input: VenueInput): VenueView {
    if (input.timezone !== undefined && !isValidTimeZone(input.timezone)) throw badRequest(`unknown timezone ${input.timezone}`);
    const currency = input.currency?.toUpperCase();
    if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) throw badRequest('currency must be an ISO 4217 code');
    const existing = input.id !== undefined ? store.venue(input.id) : undefined;

    if (!existing) {
      const cur = currency ?? 'EUR';
      const venue: VenueState = {
        id: input.id ?? `venue-${randomUUID().slice(0, 8)}`,
        name: input.name ?? 'Simulated venue',
        timezone: input.timezone ?? 'Europe/Paris',
        currency: cur,
        itemsSupported: input.itemsSupported ?? true,
        behaviour: input.behaviour ?? { payment: 'immediate' },
        accessRevoked: input.accessRevoked ?? false,
        tables: checkTables(input.tables ?? []),
        menu: toMenu(input.menu ?? [], cur),
        nextOrderNo: 1001,
        nextCheckNo: 1,
        nextItemId: 1,
      };
      store.addVenue(venue);
      store.save();
      return venueView(venue);
    }

    if (currency !== undefined && currency !== existing.currency) {
      // Stored prices are minor units of the old currency; reinterpreting them would change amounts.
      if (existing.menu.length > 0 || store.orders(existing.id).length > 0) {
        throw conflict('currency cannot change once the venue has a menu or orders');
      }
      existing.currency = currency;
    }
    if (input.name !== undefined) existing.name = input.name;
    if (input.timezone !== undefined) existing.timezone = input.timezone;
    if (input.itemsSupported !== undefined) existing.itemsSupported = input.itemsSupported;
    if (input.behaviour !== undefined) existing.behaviour = input.behaviour;
    if (input.accessRevoked !== undefined) existing.accessRevoked = input.accessRevoked;
    if (input.tables !== undefined) existing.tables = checkTables(input.tables);
    if (input.menu !== undefined) existing.menu = toMenu(input.menu, existing.currency);
    store.save();
    return venueView(existing);
  }

  return {
    get,
    upsert,
    list: (): VenueView[] => store.venues().map(venueView),
    view: (venueId: string): VenueView => venueView(get(venueId)),

    setTables(venueId: string, tables: TableState[]): TableState[] {
      const venue = get(venueId);
      venue.tables = checkTables(tables);
      store.save();
      return venue.tables;
    },

    /** Adds the table or renames it; the id is the POS's and never changes. */
    putTable(venueId: string, tableId: string, name: string): TableState {
      const venue = get(venueId);
      const table = venue.tables.find((t) => t.id === tableId);
      if (table) table.name = name;
      else venue.tables.push({ id: tableId, name });
      store.save();
      return { id: tableId, name };
    },

    removeTable(venueId: string, tableId: string): void {
      const venue = get(venueId);
      const before = venue.tables.length;
      venue.tables = venue.tables.filter((t) => t.id !== tableId);
      if (venue.tables.length === before) throw notFound(`table ${tableId}`);
      store.save();
    },

    setMenu(venueId: string, menu: MenuInput[]): MenuInput[] {
      const venue = get(venueId);
      venue.menu = toMenu(menu, venue.currency);
      store.save();
      return venueView(venue).menu;
    },

    setBehaviour(venueId: string, behaviour: VenueBehaviour): VenueBehaviour {
      const venue = get(venueId);
      venue.behaviour = behaviour;
      store.save();
      return behaviour;
    },
  };
}

export type VenuesService = ReturnType<typeof createVenuesService>;
