import { onTestFinished } from 'vitest';
import { startSimulator, type Simulator, type VenueBehaviour, type WalkInInput, type PosOrder } from '../../pos-simulator/src/index.ts';
import type { TestApp, TestAppOptions, TestPartner } from './app.ts';
import { startTestApp } from './app.ts';
import { testCertFile, testTls, type HttpResponse } from './http.ts';

// A pay-at-table world for tests: the reference POS simulator (over real HTTPS, trusted through the
// POS type's caFile), the service configured with POS types pointing at it, a pay-at-table partner,
// and a builder that creates a venue and onboards it onto a simulator location through the real
// flow (POST /v1/pat/venues, then the onboarding form).

export const POS = {
  /** billRetrieval, forwarding, immediate confirmation */
  immediate: 'sim',
  /** billRetrieval, forwarding, deferred confirmation */
  deferred: 'sim-deferred',
  /** stored bill (billRetrieval false), forwarding, immediate */
  stored: 'sim-stored',
  /** billRetrieval, no forwarding (payments recorded internally only) */
  noForwarding: 'sim-noforward',
} as const;
export type PosCode = (typeof POS)[keyof typeof POS];

export const MENU = [
  { sku: 'ESP', name: 'Espresso', price: 2.5 },
  { sku: 'BURGER', name: 'Classic burger', price: 14.5 },
  { sku: 'WINE', name: 'House red', price: 6.9 },
  { sku: 'CAKE', name: 'Cheesecake', price: 7.25 },
];

export interface ConnectedVenue {
  venueId: string;
  posVenueId: string;
  posType: PosCode;
  currency: string;
  /** Service table UUIDs by POS table id. */
  tableIds: Record<string, string>;
  onboardingUrl: string;
}

export interface PatWorld {
  app: TestApp;
  sim: Simulator;
  partner: TestPartner;
  /** Creates a simulator location and a venue onboarded onto it. */
  connectVenue(opts?: { posType?: PosCode; currency?: string; timezone?: string; behaviour?: VenueBehaviour; tables?: Array<{ id: string; name: string }>; partner?: TestPartner }): Promise<ConnectedVenue>;
  /** Creates a simulator location (the menu is MENU, in its currency). */
  newLocation(opts?: { posType?: PosCode; currency?: string; timezone?: string; behaviour?: VenueBehaviour; tables?: Array<{ id: string; name: string }> }): Promise<{ posVenueId: string; tables: Array<{ id: string; name: string }> }>;
  /** Opens an order on the POS as staff would; returns the POS order. */
  openOrder(posVenueId: string, input: WalkInInput): Promise<PosOrder>;
  /** GET the bill of a POS table of the venue. */
  bill(venue: ConnectedVenue, posTableId: string, token?: string): Promise<HttpResponse>;
  pay(venue: ConnectedVenue, orderId: string, body: Record<string, unknown>, token?: string): Promise<HttpResponse>;
  paymentStatus(venue: ConnectedVenue, orderId: string, externalReference: string, token?: string): Promise<HttpResponse>;
  /** Stops the app and the simulator (done automatically at the end of the test unless autoClose is false). */
  close(): Promise<void>;
}

let counter = 0;

/**
 * With `autoClose: false` (for beforeAll), the caller closes the world itself. `posBaseUrl` puts
 * something between the service and the simulator (a proxy that can fail): it gets the simulator's
 * URL and returns the one the POS types use.
 */
export async function startPatWorld(
  opts: TestAppOptions & { autoClose?: boolean; posBaseUrl?: (simBaseUrl: string) => string | Promise<string> } = {},
): Promise<PatWorld> {
  const tls = testTls();
  const sim = await startSimulator({ tls: { key: tls.key, cert: tls.cert } });
  const posBaseUrl = opts.posBaseUrl ? await opts.posBaseUrl(sim.baseUrl) : sim.baseUrl;
  const entry = (code: string, name: string, extra: Record<string, unknown>) => ({
    code, name, baseUrl: posBaseUrl, apiKey: sim.apiKey, caFile: testCertFile(),
    billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate', ...extra,
  });
  const posTypes = [
    entry(POS.immediate, 'Simulator (immediate)', {}),
    entry(POS.deferred, 'Simulator (deferred)', { paymentConfirmation: 'deferred' }),
    entry(POS.stored, 'Simulator (stored bill)', { billRetrieval: false }),
    entry(POS.noForwarding, 'Simulator (no forwarding)', { paymentForwarding: false }),
  ];
  const app = await startTestApp({
    ...opts,
    posTypes,
    env: { AUTH_FAILURE_LIMIT_PER_MIN: '1000000', PAYMENT_INLINE_WAIT_MS: '1500', POS_TIMEOUT_MS: '5000', ...(opts.env ?? {}) },
  });
  let closed: Promise<void> | null = null;
  const close = () => (closed ??= (async () => {
    await app.close();
    await sim.close();
  })());
  if (opts.autoClose !== false) onTestFinished(close);
  const partner = await app.newPartner(['pat', 'analytics']);

  const world: PatWorld = {
    app,
    sim,
    partner,
    close,
    async newLocation(o = {}) {
      const currency = o.currency ?? 'EUR';
      const posVenueId = `loc-${process.pid}-${++counter}`;
      const tables = o.tables ?? [
        { id: '1', name: 'Table 1' },
        { id: '2', name: 'Table 2' },
        { id: '3', name: 'Table 3' },
        { id: '4', name: 'Terrace' },
      ];
      await sim.control.createVenue({
        id: posVenueId,
        name: `Location ${counter}`,
        timezone: o.timezone ?? 'Europe/Madrid',
        currency,
        itemsSupported: true,
        behaviour: (o.behaviour ?? (o.posType === POS.deferred ? { payment: 'deferred', delayMs: 300, outcome: 'confirmed' } : { payment: 'immediate' })) as never,
        tables,
        menu: currency === 'EUR' ? MENU : MENU.map((m) => ({ ...m, price: currency === 'JPY' ? Math.round(m.price * 100) : m.price })),
      });
      return { posVenueId, tables };
    },
    async connectVenue(o = {}) {
      const posType = o.posType ?? POS.immediate;
      const currency = o.currency ?? 'EUR';
      const { posVenueId, tables } = await world.newLocation({ ...o, posType });
      const partner = o.partner ?? world.partner;
      const created = await app.http.post('/v1/pat/venues', {
        token: partner.token,
        body: {
          name: `Venue ${counter}`, address: '1 Calle Mayor', city: 'Madrid', postalCode: '28013', country: 'ES',
          timezone: o.timezone ?? 'Europe/Madrid', currency, posType,
        },
      });
      if (created.status !== 200) throw new Error(`venue creation failed: ${created.status} ${created.text}`);
      const url = new URL(created.body.onboarding.url);
      const form = await app.http.post(`${url.pathname}${url.search}`, {
        body: new URLSearchParams({ posVenueId }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      if (form.status !== 200) throw new Error(`onboarding failed: ${form.status} ${form.text}`);
      const listed = await app.http.get(`/v1/pat/venue/${created.body.id}/tables`, { token: partner.token });
      const byName = new Map<string, string>(listed.body.tables.map((t: { id: string; name: string }) => [t.name, t.id]));
      return {
        venueId: created.body.id,
        posVenueId,
        posType,
        currency,
        tableIds: Object.fromEntries(tables.map((t) => [t.id, byName.get(t.name)!])),
        onboardingUrl: created.body.onboarding.url,
      };
    },
    openOrder: (posVenueId, input) => sim.control.openOrder(posVenueId, input),
    bill: (venue, posTableId, token = world.partner.token) =>
      app.http.get(`/v1/pat/venue/${venue.venueId}/table/${venue.tableIds[posTableId]}/bill`, { token }),
    pay: (venue, orderId, body, token = world.partner.token) =>
      app.http.post(`/v1/pat/venue/${venue.venueId}/order/${orderId}/payment`, { token, body }),
    paymentStatus: (venue, orderId, ref, token = world.partner.token) =>
      app.http.get(`/v1/pat/venue/${venue.venueId}/order/${orderId}/payment/${encodeURIComponent(ref)}`, { token }),
  };
  return world;
}
