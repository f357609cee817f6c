// Programmatic entry of the reference POS simulator: start one, get its URL, key, CA and a typed
// control client. It is a fake of an outside system and imports nothing from the service's src/.

import type { FastifyRequest } from 'fastify';
import { isBrokenMode, type BrokenMode } from './broken.ts';
import { ControlClient } from './control-client.ts';
import { conflict } from './errors.ts';
import { createOrdersService, type OrdersService } from './orders.service.ts';
import { OversizedAnswers } from './oversized.ts';
import { HeldRequests } from './held.ts';
import { createPaymentsService } from './payments.service.ts';
import { SeatingFaultKnobs } from './seating-faults.ts';
import { RequestLog } from './request-log.ts';
import { buildServer, listenLocal } from './server.ts';
import { SimStore, emptyState, loadStateFile, randomApiKey } from './store.ts';
import { selfSignedLocalhost, type TlsPair } from './tls.ts';
import { createVenuesService, type VenueView, type VenuesService } from './venues.service.ts';
import { DEMO_VENUE_IDS, seedDemo, type DemoControl } from './seed.ts';
import type { VenueInput } from './control.schemas.ts';

export interface SimulatorOptions {
  /** Port to listen on; 0 or omitted = any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Bearer key for the contract and control API. Default: the state file's key, else random. */
  apiKey?: string;
  /** JSON file the state is loaded from at start and written to on every change (DES-089). */
  stateFile?: string;
  /** PEM key and certificate; default a fresh self-signed certificate for localhost/127.0.0.1. */
  tls?: TlsPair;
  /** Create the demo venues (sim-venue-1, sim-venue-2) when they do not exist yet. */
  seed?: boolean;
  /** Start in a deliberately broken mode (for the conformance kit's own tests). */
  broken?: BrokenMode;
  /** Fastify request logging, to stderr. Default off. */
  logger?: boolean;
}

export interface Simulator {
  /** e.g. https://127.0.0.1:40123 (no trailing slash). */
  baseUrl: string;
  apiKey: string;
  /** PEM certificate clients must trust (self-signed unless tls was given). */
  ca: string;
  control: ControlClient;
  /**
   * What `PUT /_control/venues/{venueId}` does (`control.putVenue`), in-process: the sandbox puts its
   * seatable venue at a first start, and the request cost that start a TLS handshake both sides and
   * this app's first schema compilation (issue 28). The input is the caller's own (not checked
   * against the route's schema; the service checks the rest, e.g. a time zone or currency it
   * does not know is a 400).
   */
  putVenue(venueId: string, input: Omit<VenueInput, 'id'>): VenueView;
  close(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  if (opts.broken !== undefined && !isBrokenMode(opts.broken)) throw new Error(`unknown broken mode ${String(opts.broken)}`);
  const loaded = opts.stateFile ? loadStateFile(opts.stateFile) : null;
  const state = loaded ?? emptyState(opts.apiKey ?? randomApiKey());
  if (opts.apiKey !== undefined) state.apiKey = opts.apiKey;
  if (opts.broken !== undefined) state.broken = opts.broken;

  const store = new SimStore(state, opts.stateFile);
  const log = new RequestLog();
  const venues = createVenuesService(store);
  const orders = createOrdersService(store, venues);
  const payments = createPaymentsService(store, venues);
  const parked = new Set<FastifyRequest>();
  // The state as loaded (or new), its payments due by now settled and the demo venues it lacks, in
  // one write. A state file that already holds them (a sandbox restart) needs no seeding.
  await store.savingOnce(async () => {
    store.save();
    payments.resume();
    if (opts.seed && !DEMO_VENUE_IDS.every((id) => store.venue(id))) await seedDemo(inProcessControl(store, venues, orders));
  });

  const tls = opts.tls ?? (await selfSignedLocalhost());
  const held = new HeldRequests();
  const seatingFaults = new SeatingFaultKnobs(held);
  const app = buildServer(tls, { store, log, venues, orders, payments, parked, oversized: new OversizedAnswers(), seatingFaults }, opts.logger ?? false);
  const baseUrl = await listenLocal(app, opts.host, opts.port).catch(async (err: unknown) => {
    // A port already taken (a remembered sandbox port): nothing of this attempt may keep running.
    payments.stop();
    await app.close();
    throw err;
  });
  const control = new ControlClient(baseUrl, store.apiKey, tls.cert);

  let closed: Promise<void> | undefined;
  const sim: Simulator = {
    baseUrl,
    apiKey: store.apiKey,
    ca: tls.cert,
    control,
    putVenue: (venueId, input) => {
      // As the control routes do before each request.
      payments.settleDue();
      return venues.upsert({ ...structuredClone(input), id: venueId });
    },
    close: () => {
      closed ??= (async () => {
        payments.stop();
        for (const request of parked) request.raw.socket?.destroy();
        seatingFaults.clear();
        held.release();
        await control.close();
        await app.close();
      })();
      return closed;
    },
  };
  return sim;
}

/**
 * The control API's seeding calls made in-process, before the simulator listens: over HTTP they
 * cost a fresh sandbox start 14 requests (TLS handshakes both sides, each route's first schema
 * compilation, each body encoded and parsed; issue 28). What the routes add is checked here too: a
 * venue id that exists is refused (409), and each input is copied as a parsed body would be, so two
 * venues never share the demo's menu array. The inputs are seed.ts's own; their shape against the
 * routes' schemas is tested (test/pos-simulator/seed.test.ts).
 */
function inProcessControl(store: SimStore, venues: VenuesService, orders: OrdersService): DemoControl {
  const copy = <T>(value: T): T => structuredClone(value);
  return {
    listVenues: async () => venues.list(),
    createVenue: async (input) => {
      if (input.id !== undefined && store.venue(input.id)) throw conflict(`venue ${input.id} exists`);
      return venues.upsert(copy(input));
    },
    openOrder: async (venueId, input) => orders.openWalkIn(venueId, copy(input)),
    closeOrder: async (venueId, orderId, input = {}) => orders.close(venueId, orderId, copy(input)),
    voidOrder: async (venueId, orderId, input = {}) => orders.void(venueId, orderId, copy(input)),
  };
}

export { ControlClient, ControlError } from './control-client.ts';
export { seedDemo, DEMO_VENUE_IDS } from './seed.ts';
export { BROKEN_MODES, type BrokenMode } from './broken.ts';
export type { TlsPair } from './tls.ts';
export { CREATE_ANSWERS, type CreateAnswer, type SeatingFaults } from './seating-faults.ts';
export type { LoggedRequest } from './request-log.ts';
export type { VenueView, MenuInput } from './venues.service.ts';
export type {
  VenueInput, WalkInInput, StaffCheckInput, StaffItemInput, AddItemsInput, ClockInput,
} from './control.schemas.ts';
export type { CreateOrderBody, PaymentForwardBody } from './contract.schemas.ts';
export type {
  FailureCode, PaymentBehaviour, VenueBehaviour, PosTable, PosOrder, PosCheck, PosItem, PosPaymentView,
  PaymentAnswer, PaymentStatus,
} from './types.ts';
