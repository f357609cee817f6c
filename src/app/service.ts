import { createServer, type AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { JobRunner } from '../db/jobs.ts';
import { openStore, type Store } from '../db/store.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { holdWasmTierUp } from '../lib/v8-flags.ts';
import { loadOrCreateSelfSigned, loadTlsFiles, type TlsMaterial } from '../lib/tls.ts';
import { startAdminServer, type AdminServer } from '../operator/admin-server.ts';
import { loadPosTypes, type PosTypeRegistry } from '../pos/pos-types.ts';
import { ensureSandboxChannels, previousSandboxChannels, writeSandboxChannels } from '../sandbox/channels.ts';
import { connectSandboxGoogle, startSandboxGoogle, writeSandboxGoogle, type MapsBookingSimulator } from '../sandbox/google.ts';
import { connectSandboxRms, startSandboxRms, writeSandboxRms, type RmsSimulator } from '../sandbox/rms.ts';
import { sandboxFile, setupSandbox, type SandboxFile } from '../sandbox/sandbox.ts';
import { sandboxPosTypes, startSandboxSimulator, type Simulator } from '../sandbox/simulator.ts';
import { createLogger } from '../server/logger.ts';
import { buildApp, type App } from './app.ts';

// A running Tableside process: the store, the HTTPS API, the job runner, the admin endpoint (when
// it owns an embedded store) and, in sandbox mode, the sandbox. `close()` shuts down in the order
// that lets in-flight work finish: stop taking requests, finish them, stop jobs, close the store.

export interface RunningService {
  url: string;
  port: number;
  app: App;
  store: Store;
  runner: JobRunner;
  tls: TlsMaterial & { certFile: string | null };
  sandbox: SandboxFile | null;
  log: Logger;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
  /** An already open, migrated store (tests); otherwise the one the config selects is opened. */
  store?: Store;
  /** A certificate to serve instead of TLS_CERT/TLS_KEY or the generated one (tests). */
  tls?: TlsMaterial;
  /** Tests drive jobs themselves with runner.runDue(). */
  startJobs?: boolean;
}

/**
 * A free port on the host, held until `release` (PORT=0 asks for any free port). The probe keeps the
 * port bound while the service is built, seconds in sandbox mode: released earlier, an outgoing
 * connection or another process could take it before the service listens (EADDRINUSE in CI).
 */
async function reservePort(host: string): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    // Never what keeps the process alive: a start that fails must still let it exit.
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      let released: Promise<void> | null = null;
      resolve({ port, release: () => (released ??= new Promise<void>((done) => probe.close(() => done()))) });
    });
  });
}

type ShutdownStep = () => Promise<void>;

interface Shutdown {
  steps: { http?: ShutdownStep; admin?: ShutdownStep; jobs?: ShutdownStep; simulator?: ShutdownStep; rms?: ShutdownStep; google?: ShutdownStep; store?: ShutdownStep };
  closeAll(): Promise<void>;
}

/**
 * Shutdown order: stop taking requests and let in-flight ones finish, then the admin endpoint,
 * then jobs (a running job completes), then the simulators, then the store. A step is added as
 * the part it stops starts, so a start that fails half way stops what it started.
 */
function shutdownInOrder(log: Logger): Shutdown {
  const steps: Shutdown['steps'] = {};
  const closeAll = async () => {
    for (const step of [steps.http, steps.admin, steps.jobs, steps.simulator, steps.rms, steps.google, steps.store]) {
      if (step) await step().catch((err) => log.error({ err }, 'shutdown step failed'));
    }
  };
  return { steps, closeAll };
}

/**
 * With PORT=0 the port is chosen before anything is built, so links that name the service's own
 * address (onboarding URLs, the OpenAPI server) carry the real port.
 */
async function withPort(requested: Config): Promise<{ config: Config; releasePort: () => Promise<void> }> {
  if (requested.port !== 0) return { config: requested, releasePort: async () => {} };
  const reserved = await reservePort(requested.host);
  const publicBaseUrl = requested.publicBaseUrlGiven ? requested.publicBaseUrl : `https://localhost:${reserved.port}`;
  return { config: { ...requested, port: reserved.port, publicBaseUrl }, releasePort: reserved.release };
}

async function tlsOf(config: Config, given: TlsMaterial | undefined): Promise<TlsMaterial & { certFile: string | null }> {
  if (given) return { ...given, certFile: null };
  if (config.tlsCertFile && config.tlsKeyFile) return { ...loadTlsFiles(config.tlsCertFile, config.tlsKeyFile), certFile: config.tlsCertFile };
  return loadOrCreateSelfSigned(config.dataDir);
}

/** POS types from POS_TYPES; in sandbox mode also the in-process POS simulator's two, the reference RMS (DESIGN 8.6) and Google (8.7c). */
async function startSimulators(config: Config, steps: Shutdown['steps']) {
  const posTypes = loadPosTypes(config.posTypesFile);
  if (!config.sandbox) return { posTypes, simulator: null, rmsSimulator: null, googleSimulator: null };
  const simulator = await startSandboxSimulator(config.dataDir);
  steps.simulator = () => simulator.close();
  for (const t of sandboxPosTypes(simulator)) if (!posTypes.get(t.code)) posTypes.add(t);
  const rmsSimulator = await startSandboxRms(config.dataDir);
  steps.rms = () => rmsSimulator.close();
  const googleSimulator = await startSandboxGoogle(config.dataDir);
  steps.google = () => googleSimulator.close();
  return { posTypes, simulator, rmsSimulator, googleSimulator };
}

/** The service's own URL on the port it will listen on (withPort has made PORT=0 a real port). */
function serviceUrl(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `https://${host}:${config.port}`;
}

/** Starts taking requests. */
async function listen(app: App, config: Config, releasePort: () => Promise<void>): Promise<void> {
  // The server is HTTPS-only; Fastify's own listen line would say http://, so it is replaced.
  // Fastify compiles its routes' schemas in ready(), hundreds of ms: done first, so the reserved
  // port is free only for the instant between its release and the listen.
  await app.fastify.ready();
  await releasePort();
  await app.fastify.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `HTTPS listener bound to ${address.replace(/^http:/, 'https:')}` });
}

async function startAdmin(config: Config, store: Store, app: App, log: Logger): Promise<ShutdownStep> {
  const adminTls = await loadOrCreateSelfSigned(config.dataDir);
  const admin: AdminServer = await startAdminServer({ dataDir: config.dataDir, tls: adminTls, deps: { db: store.db, services: app.services }, log });
  return () => admin.close();
}

/**
 * Checked credentials are kept in memory under a lease (src/auth/credential-cache.ts); it is given
 * up when the process stops taking requests.
 */
async function startCredentialCache(app: App, steps: Shutdown['steps']): Promise<void> {
  await app.services.credentialCache.start();
  const http = steps.http;
  steps.http = async () => {
    await http?.();
    await app.services.credentialCache.stop();
  };
}

interface SandboxStart {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
  app: App;
  posTypes: PosTypeRegistry;
  url: string;
  simulator: Simulator | null;
  rmsSimulator: RmsSimulator | null;
  googleSimulator: MapsBookingSimulator | null;
}

/** The sandbox partner, its venue, tables and orders, and with the reference RMS its reservations and channels. */
async function seedSandbox(start: SandboxStart): Promise<SandboxFile> {
  const { config, store, clock, log, app, posTypes, url, simulator, rmsSimulator } = start;
  const previousChannels = previousSandboxChannels(sandboxFile(config.dataDir));
  const sandbox = await setupSandbox({
    db: store.db,
    clock,
    log,
    auth: app.services.auth,
    venues: app.services.patVenues,
    connections: app.services.connections,
    orderSync: app.services.orderSync,
    posTypes,
    dataDir: config.dataDir,
    baseUrl: url,
    posSimulator: simulator ? { baseUrl: simulator.baseUrl, apiKey: simulator.apiKey } : null,
    seating: simulator ? { venues: app.services.venues, posControl: simulator } : null,
  });
  return rmsSimulator ? seedSandboxReservations(start, rmsSimulator, sandbox, previousChannels) : sandbox;
}

async function seedSandboxReservations(
  { config, log, app, url, googleSimulator }: SandboxStart,
  rmsSimulator: RmsSimulator,
  seeded: SandboxFile,
  previousChannels: ReturnType<typeof previousSandboxChannels>,
): Promise<SandboxFile> {
  const s = app.services;
  const rms = await connectSandboxRms({
    rms: rmsSimulator, partnerId: seeded.partnerId, partnerApiKey: seeded.apiKey, baseUrl: url, dataDir: config.dataDir,
    venues: s.venues, bookingServices: s.bookingServices, rmsClients: s.rmsClients, log,
  });
  const sandbox = writeSandboxRms(sandboxFile(config.dataDir), seeded, rms);
  // DESIGN 8.6: a channel of each protocol, linked to the RMS venues.
  const channels = await ensureSandboxChannels({
    previous: previousChannels, partnerId: sandbox.partnerId, venueIds: rms.venues.map((v) => v.id),
    channels: s.channels, access: s.channelAccess, log,
  });
  const withChannels = writeSandboxChannels(sandboxFile(config.dataDir), sandbox, channels);
  const googleChannel = channels.find((c) => c.protocol === 'google-v3');
  if (!googleSimulator || !googleChannel) return withChannels;
  // DESIGN 8.7c: the google-v3 channel's real-time updates go to the in-process Google.
  const googleApi = await connectSandboxGoogle({ google: googleSimulator, dataDir: config.dataDir, channelId: googleChannel.id, googleRtu: s.googleRtu, log });
  return writeSandboxGoogle(sandboxFile(config.dataDir), withChannels, googleApi);
}

export async function startService(requested: Config, opts: StartOptions = {}): Promise<RunningService> {
  // The embedded store's WebAssembly is not optimized while the service starts (lib/v8-flags.ts):
  // what a start runs once would take V8's worker threads, and the main thread's core, for longer
  // than the start itself.
  const releaseTierUp = holdWasmTierUp();
  try {
    return await startHeld(requested, opts);
  } finally {
    releaseTierUp();
  }
}

async function startHeld(requested: Config, opts: StartOptions): Promise<RunningService> {
  const { config, releasePort } = await withPort(requested);
  const log = opts.log ?? createLogger(config.logLevel);
  const clock = opts.clock ?? systemClock;
  const { steps, closeAll } = shutdownInOrder(log);
  // The store opens (a new data directory's copy of the template, PGlite's start) while the
  // certificate is read or made and the sandbox's simulators start, which need no store: the
  // copy's file system work and the compilation of PGlite's WebAssembly run off the main thread.
  const opened = (opts.store ? Promise.resolve(opts.store) : openStore(config)).then((store) => {
    steps.store = () => store.close();
    return store;
  });
  // Awaited below, after the simulators; a failure meanwhile is not an unhandled rejection.
  opened.catch(() => {});

  try {
    const tls = await tlsOf(config, opts.tls);
    const { posTypes, simulator, rmsSimulator, googleSimulator } = await startSimulators(config, steps);
    const store = await opened;
    const newer = store.migrations?.appliedByNewerRelease;
    // A rolling upgrade in progress (or a rollback): expand/contract keeps this release correct on it.
    if (newer) log.warn({ migrations: newer }, 'the database holds migrations of a newer release; serving on its schema (src/db/README.md)');
    const app = await buildApp({ config, db: store.db, clock, tls, log, posTypes });
    const runner = new JobRunner({ db: store.db, clock, log, pollMs: config.jobPollMs });
    for (const [kind, definition] of Object.entries(app.jobs)) runner.register(kind, definition);

    const url = serviceUrl(config);
    // Seeded before the listen: once /healthz answers, sandbox.json is complete (issue 30: a script
    // that waits for health then reads the file). Seeding calls the simulators, never this service.
    const sandbox = config.sandbox ? await seedSandbox({ config, store, clock, log, app, posTypes, url, simulator, rmsSimulator, googleSimulator }) : null;
    await listen(app, config, releasePort);
    const port = config.port;
    steps.http = () => app.fastify.close();
    if (store.embedded) steps.admin = await startAdmin(config, store, app, log);
    if (opts.startJobs !== false) {
      await runner.start();
      steps.jobs = () => runner.stop();
    }
    if (config.authCacheLeaseMs > 0) await startCredentialCache(app, steps);
    log.info({ url, store: store.embedded ? 'embedded' : 'postgres', sandbox: config.sandbox }, 'tableside listening');

    let closing: Promise<void> | null = null;
    return { url, port, app, store, runner, tls, sandbox, log, close: () => (closing ??= closeAll()) };
  } catch (err) {
    await releasePort();
    // A store still opening is closed once open (its step is added then).
    await opened.catch(() => {});
    await closeAll();
    throw err;
  }
}
