import type { AuthService } from '../auth/auth.service.ts';
import type { VenuesService } from '../content/venues.service.ts';
import { AppError } from '../lib/errors.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import type { ConnectionsService } from '../pos-mirror/connections.service.ts';
import type { Simulator } from './simulator.ts';

// The sandbox's seatable venue (DESIGN 8.6, 8.3c): a content venue of the sandbox partner, named by
// its externalId as an RMS names it, connected to its own simulator location and in the partner's
// pay-at-table scope, so a newcomer can seat a booking (POST /v1/rms/pos/reservations), read its bill
// with partySize and prepayment, pay it and read it back in analytics. Seeded once; a later start
// finds it and completes a start that stopped half-way.

export const SANDBOX_SEATING = {
  externalId: 'sandbox-trattoria',
  name: 'Sandbox Trattoria',
  city: 'Rome',
  countryCode: 'IT',
  timezone: 'Europe/Rome',
  currency: 'EUR',
  posType: 'simulator',
  posVenueId: 'sim-venue-3',
  tables: [1, 2, 3, 4].map((n) => ({ id: String(300 + n), name: `Tavolo ${n}` })),
  menu: [
    { sku: 'ESP', name: 'Espresso', price: 2.5 },
    { sku: 'MARGHERITA', name: 'Pizza margherita', price: 11 },
    { sku: 'CARBONARA', name: 'Spaghetti carbonara', price: 13.5 },
    { sku: 'TIRAMISU', name: 'Tiramisu', price: 7.25 },
  ],
} as const;

export interface SeatingSandbox {
  /** The venue's externalId: `venueId` in /v1/rms/venues/{externalId}/pos-tables and in seated events. */
  externalId: string;
  /** Tableside's venue id: {venueId} of /v1/pat and /v1/pos. */
  venueId: string;
  posTables: string[];
  skus: string[];
}

export interface SeatingSandboxDeps {
  venues: Pick<VenuesService, 'create' | 'getByExternalId'>;
  auth: Pick<AuthService, 'scopeNewVenue'>;
  connections: Pick<ConnectionsService, 'connect' | 'forVenue'>;
  posTypes: PosTypeRegistry;
  /** The in-process POS simulator (Simulator.putVenue), or its control client. */
  posControl: { putVenue(venueId: string, input: Parameters<Simulator['putVenue']>[1]): unknown };
}

export async function seedSeatingVenue(deps: SeatingSandboxDeps, partnerId: string): Promise<SeatingSandbox> {
  const s = SANDBOX_SEATING;
  let venueId: string;
  try {
    venueId = (await deps.venues.getByExternalId(partnerId, s.externalId)).id;
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 404) throw err;
    venueId = (await deps.venues.create(partnerId, { externalId: s.externalId, name: s.name, city: s.city, countryCode: s.countryCode, timezone: s.timezone, currency: s.currency })).id;
  }
  if (!(await deps.connections.forVenue(venueId))) {
    await deps.posControl.putVenue(s.posVenueId, {
      name: 'Simulated Trattoria', timezone: s.timezone, currency: s.currency, itemsSupported: true,
      behaviour: { payment: 'immediate' }, tables: [...s.tables], menu: [...s.menu],
    });
    await deps.connections.connect({ venueId, posType: deps.posTypes.get(s.posType)!, posVenueId: s.posVenueId }, (tx, now) =>
      deps.auth.scopeNewVenue(tx, partnerId, venueId, now),
    );
  }
  return { externalId: s.externalId, venueId, posTables: s.tables.map((t) => t.id), skus: s.menu.map((m) => m.sku) };
}
