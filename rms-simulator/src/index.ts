// Programmatic entry of the reference RMS: start one, get its URL, key, CA and a typed control
// client. It is a fake of an outside system and imports nothing from the service's src/.

import { HeldRequests } from '../../pos-simulator/src/held.ts';
import { OversizedAnswers } from '../../pos-simulator/src/oversized.ts';
import { RequestLog } from '../../pos-simulator/src/request-log.ts';
import { listenLocal } from '../../pos-simulator/src/server.ts';
import { selfSignedLocalhost, type TlsPair } from '../../pos-simulator/src/tls.ts';
import { createBookingsService } from './bookings.service.ts';
import { isBrokenMode, type BrokenMode } from './broken.ts';
import { RmsControlClient } from './control-client.ts';
import { createFailures } from './failures.ts';
import { createOutbound, type OutboundOptions } from './outbound.ts';
import { DEMO_VENUE_IDS, seedDemo, type DemoControl } from './seed.ts';
import { buildServer } from './server.ts';
import { RmsStore, emptyState, loadStateFile, randomApiKey } from './store.ts';
import type { TargetInput } from './control.schemas.ts';
import type { TablesideTarget, VenueConfig } from './types.ts';
import { createVenuesService, type VenuesService } from './venues.service.ts';

export interface RmsSimulatorOptions {
  /** Port to listen on; 0 or omitted = any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Bearer key Tableside must send. Default: the state file's key, else random. */
  apiKey?: string;
  /** JSON file the state is loaded from at start and rewritten on every change. */
  stateFile?: string;
  /** PEM key and certificate; default a fresh self-signed certificate for localhost/127.0.0.1. */
  tls?: TlsPair;
  /** Create the demo venues (rms-venue-1..3) when they do not exist yet. */
  seed?: boolean;
  /** Start in a deliberately broken mode (for the conformance kit's own tests). */
  broken?: BrokenMode;
  /** Where to send update notices, feeds and seated events (DESIGN 8.3); also settable later. */
  tableside?: { tablesideUrl: string; apiKey: string; ca?: string };
  /** Retry delays and timeout of those deliveries. */
  outbound?: OutboundOptions;
  /** Fastify request logging, to stderr. Default off. */
  logger?: boolean;
  /** Also offer HTTP/2 (ALPN h2; HTTP/1.1 still answers clients that do not ask for it). Default off. */
  http2?: boolean;
}

export interface RmsSimulator {
  /** e.g. https://127.0.0.1:40123 (no trailing slash). */
  baseUrl: string;
  apiKey: string;
  /** PEM certificate clients must trust (self-signed unless tls was given). */
  ca: string;
  control: RmsControlClient;
  /**
   * What `PUT /_control/tableside` does (`control.setTableside`), in-process: the sandbox points its
   * RMS at the service at every start, and the request cost that start its TLS handshakes and the
   * first schema compilation of this app (about 0.2 s of CPU in a restart's profile).
   */
  setTableside(target: TargetInput): void;
  /** What `GET /_control/venues` answers (`control.listVenues`), in-process, for the same reason. */
  venues(): VenueConfig[];
  close(): Promise<void>;
}

export async function startRmsSimulator(opts: RmsSimulatorOptions = {}): Promise<RmsSimulator> {
  if (opts.broken !== undefined && !isBrokenMode(opts.broken)) throw new Error(`unknown broken mode ${String(opts.broken)}`);
  const loaded = opts.stateFile ? loadStateFile(opts.stateFile) : null;
  const state = loaded ?? emptyState(opts.apiKey ?? randomApiKey());
  if (opts.apiKey !== undefined) state.apiKey = opts.apiKey;
  if (opts.broken !== undefined) state.broken = opts.broken;
  if (opts.tableside) {
    const target: TablesideTarget = { tablesideUrl: opts.tableside.tablesideUrl, apiKey: opts.tableside.apiKey, ca: opts.tableside.ca ?? null };
    state.target = target;
  }

  const store = new RmsStore(state, opts.stateFile);
  const venues = createVenuesService(store);
  // The state as loaded (or new) and the demo venues it lacks, in one write, before anything runs on
  // it. A state file that already holds them (a sandbox restart) needs no seeding.
  await store.savingOnce(async () => {
    store.save();
    if (opts.seed && !DEMO_VENUE_IDS.every((id) => store.venue(id))) await seedDemo(inProcessControl(venues));
  });
  const log = new RequestLog();
  const outbound = createOutbound(store, opts.outbound);
  const bookings = createBookingsService(store, outbound.events);
  const failures = createFailures(store);
  const held = new HeldRequests();

  const tls = opts.tls ?? (await selfSignedLocalhost());
  const app = buildServer(tls, {
    store, log, venues, bookings, failures, outbound, parked: held.parked, sleep: held.sleep, oversized: new OversizedAnswers(),
  }, opts.logger ?? false, opts.http2 ?? false);
  const baseUrl = await listenLocal(app, opts.host, opts.port).catch(async (err: unknown) => {
    // A port already taken (a remembered sandbox port): nothing of this attempt may keep running.
    await outbound.close();
    await app.close();
    throw err;
  });
  const control = new RmsControlClient(baseUrl, store.apiKey, tls.cert);

  let closed: Promise<void> | undefined;
  const sim: RmsSimulator = {
    baseUrl,
    apiKey: store.apiKey,
    ca: tls.cert,
    control,
    venues: () => store.venues(),
    setTableside: (target) => store.setTarget({ tablesideUrl: target.tablesideUrl, apiKey: target.apiKey, ca: target.ca ?? null }),
    close: () => {
      closed ??= (async () => {
        held.release();
        await outbound.close();
        await control.close();
        await app.close();
      })();
      return closed;
    },
  };
  return sim;
}

/**
 * The control API's seeding calls made in-process, before the simulator listens: over HTTP they cost
 * a fresh sandbox start a TLS handshake both sides and the venue route's first schema compilation
 * (issue 28). The service checks what the route adds but the body's schema (an existing id is a
 * 409, a configuration that does not hold together a 400); each input is copied as a parsed body
 * would be. The inputs are seed.ts's own; their shape against the route's schema is tested
 * (test/rms-simulator/seed.test.ts).
 */
function inProcessControl(venues: VenuesService): DemoControl {
  return {
    listVenues: async () => venues.list(),
    createVenue: async (input) => venues.create(structuredClone(input)),
  };
}

export { RmsControlClient, type BookingView, type TargetView } from './control-client.ts';
export { ControlError } from '../../pos-simulator/src/control-client.ts';
export { seedDemo, DEMO_VENUE_IDS } from './seed.ts';
export { BROKEN_MODES, type BrokenMode } from './broken.ts';
export type { TlsPair } from '../../pos-simulator/src/tls.ts';
export type { RmsLoggedRequest } from './contract.routes.ts';
export type { OutboundEntry, OutboundAttempt, FeedPushResult, OutboundOptions } from './outbound.ts';
export type { FeedRecord } from './feed.fns.ts';
export type {
  VenueInput, FailuresInput, SeatInput, TargetInput, FeedPushInput, ClockInput,
} from './control.schemas.ts';
export type { CreateBookingBody, UpdateBookingBody, CancelBookingBody } from './contract.schemas.ts';
export {
  BOOKING_STATUSES, ERROR_CODES, OPERATIONS,
  type BookingStatus, type RmsErrorCode, type Operation, type Slot, type VenueConfig, type TableConfig, type Combination,
  type Period, type TurnTime, type Pacing, type PaymentDefinition, type CompanySettings, type Contact, type FailureKnobs,
} from './types.ts';
export { DECLINED_TOKEN_PREFIX } from './bookings.fns.ts';
