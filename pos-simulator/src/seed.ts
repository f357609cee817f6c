// Demo data for `pos-sim`, `startSimulator({ seed: true })` and the service's sandbox: two venues
// with tables, a menu, open orders (one split into two checks, one on merged tables) and closed
// orders (one paid, one voided). Made with the control API's calls: over HTTP by a client
// (`seedDemo(sim.control)`), or in-process by `startSimulator({ seed: true })` (index.ts).

import type { ControlClient } from './control-client.ts';
import type { MenuInput } from './venues.service.ts';

export const DEMO_VENUE_IDS = ['sim-venue-1', 'sim-venue-2'] as const;

const MENU: MenuInput[] = [
  { sku: 'ESP', name: 'Espresso', price: 2.5 },
  { sku: 'CAP', name: 'Cappuccino', price: 3.8 },
  { sku: 'WAT', name: 'Sparkling water 0.5l', price: 4.2 },
  { sku: 'WIN-RED', name: 'House red, glass', price: 6.9 },
  { sku: 'BURGER', name: 'Classic burger', price: 14.5 },
  { sku: 'RISOTTO', name: 'Mushroom risotto', price: 16.75 },
  { sku: 'SALAD', name: 'Caesar salad', price: 11.9 },
  { sku: 'TIRAMISU', name: 'Tiramisu', price: 7.25 },
];

function tables(prefix: number) {
  return [1, 2, 3, 4, 5, 6].map((n) => ({ id: String(prefix + n), name: n <= 4 ? `Table ${n}` : `Terrace ${n - 4}` }));
}

/** The control API's calls the seeding makes. */
export type DemoControl = Pick<ControlClient, 'listVenues' | 'createVenue' | 'openOrder' | 'closeOrder' | 'voidOrder'>;

/** Creates the demo venues that do not exist yet (safe to call on a restored state file). */
export async function seedDemo(control: DemoControl): Promise<void> {
  const existing = new Set((await control.listVenues()).map((v) => v.id));
  const venues = [
    { id: DEMO_VENUE_IDS[0], name: 'Simulated Bistro', timezone: 'Europe/Paris', currency: 'EUR', behaviour: { payment: 'immediate' as const }, tableBase: 100 },
    {
      id: DEMO_VENUE_IDS[1], name: 'Simulated Brasserie', timezone: 'Europe/London', currency: 'GBP',
      behaviour: { payment: 'deferred' as const, delayMs: 2000, outcome: 'confirmed' as const }, tableBase: 200,
    },
  ];
  for (const v of venues) {
    if (existing.has(v.id)) continue;
    const t = tables(v.tableBase);
    await control.createVenue({
      id: v.id, name: v.name, timezone: v.timezone, currency: v.currency, itemsSupported: true,
      behaviour: v.behaviour, tables: t, menu: MENU,
    });
    // Open: a table of four that split the bill into two checks.
    await control.openOrder(v.id, {
      tables: [t[0].id], partySize: 4, guestName: 'Martin',
      checks: [
        { items: [{ sku: 'BURGER', quantity: 2 }, { sku: 'WIN-RED', quantity: 2 }] },
        { items: [{ sku: 'RISOTTO', quantity: 1 }, { sku: 'SALAD', quantity: 1, discount: 2 }, { sku: 'WAT', quantity: 1 }], tax: 0, tip: 0 },
      ],
    });
    // Open: a party of eight on two merged tables.
    await control.openOrder(v.id, {
      tables: [t[2].id, t[3].id], partySize: 8, guestName: 'Okafor',
      checks: [{ items: [{ sku: 'CAP', quantity: 3 }, { sku: 'TIRAMISU', quantity: 4, notes: 'one without cocoa' }] }],
    });
    // Closed: paid by card at the till.
    const paid = await control.openOrder(v.id, {
      tables: [t[4].id], partySize: 2, guestName: 'Nguyen',
      checks: [{ items: [{ sku: 'ESP', quantity: 2 }, { name: 'Chef special', price: 19.5, quantity: 1 }], tip: 2 }],
    });
    await control.closeOrder(v.id, paid.id, { paymentMethod: 'card' });
    // Closed: voided by staff (every check void).
    const voided = await control.openOrder(v.id, { tables: [t[5].id], partySize: 1, checks: [{ items: [{ sku: 'WAT', quantity: 1 }] }] });
    await control.voidOrder(v.id, voided.id);
  }
}
