import { createServer, type AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { JobRunner } from '../db/jobs.ts';
import { openStore, type Store } from '../db/store.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { loadOrCreateSelfSigned, loadTlsFiles, type TlsMaterial } from '../lib/tls.ts';
import { startAdminServer, type AdminServer } from '../operator/admin-server.ts';
import { loadPosTypes } from '../pos/pos-types.ts';
import { ensureSandboxChannels, previousSandboxChannels, writeSandboxChannels } from '../sandbox/channels.ts';
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

export async function startService(requested: Config, opts: StartOptions = {}): Promise<RunningService> {
  // With PORT=0 the port is chosen before anything is built, so links that name the service's own
  // address (onboarding URLs, the OpenAPI server) carry the real port.
  let config = requested;
  let releasePort = async () => {};
  if (config.port === 0) {
    const reserved = await reservePort(config.host);
    releasePort = reserved.release;
    config = { ...config, port: reserved.port, publicBaseUrl: config.publicBaseUrlGiven ? config.publicBaseUrl : `https://localhost:${reserved.port}` };
  }
  const log = opts.log ?? createLogger(config.logLevel);
  const clock = opts.clock ?? systemClock;
  const store = opts.store ?? (await openStore(config).catch(async (err) => {
    await releasePort();
    throw err;
  }));
  // Shutdown order: stop taking requests and let in-flight ones finish, then the admin endpoint,
  // then jobs (a running job completes), then the store.
  const steps: { http?: () => Promise<void>; admin?: () => Promise<void>; jobs?: () => Promise<void>; simulator?: () => Promise<void>; rms?: () => Promise<void> } = {};
  const closeAll = async () => {
    for (const step of [steps.http, steps.admin, steps.jobs, steps.simulator, steps.rms, () => store.close()]) {
      if (step) await step().catch((err) => log.error({ err }, 'shutdown step failed'));
    }
  };

  try {
    const tls = opts.tls
      ? { ...opts.tls, certFile: null }
      : config.tlsCertFile && config.tlsKeyFile
        ? { ...loadTlsFiles(config.tlsCertFile, config.tlsKeyFile), certFile: config.tlsCertFile }
        : await loadOrCreateSelfSigned(config.dataDir);

    // POS types from POS_TYPES; in sandbox mode also the two types over the in-process simulator.
    const posTypes = loadPosTypes(config.posTypesFile);
    let simulator: Simulator | null = null;
    if (config.sandbox) {
      simulator = await startSandboxSimulator(config.dataDir);
      steps.simulator = () => simulator!.close();
      for (const t of sandboxPosTypes(simulator)) if (!posTypes.get(t.code)) posTypes.add(t);
    }
    // Sandbox: the reference RMS too (DESIGN 8.6).
    let rmsSimulator: RmsSimulator | null = null;
    if (config.sandbox) {
      rmsSimulator = await startSandboxRms(config.dataDir);
      steps.rms = () => rmsSimulator!.close();
    }

    const app = await buildApp({ config, db: store.db, clock, tls, log, posTypes });
    const runner = new JobRunner({ db: store.db, clock, log, pollMs: config.jobPollMs });
    for (const [kind, definition] of Object.entries(app.jobs)) runner.register(kind, definition);

    // The server is HTTPS-only; Fastify's own listen line would say http://, so it is replaced.
    // Fastify compiles its routes' schemas in ready(), hundreds of ms: done first, so the reserved
    // port is free only for the instant between its release and the listen.
    await app.fastify.ready();
    await releasePort();
    await app.fastify.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `HTTPS listener bound to ${address.replace(/^http:/, 'https:')}` });
    steps.http = () => app.fastify.close();
    const port = (app.fastify.server.address() as AddressInfo).port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `https://${host}:${port}`;

    let admin: AdminServer | null = null;
    if (store.embedded) {
      const adminTls = await loadOrCreateSelfSigned(config.dataDir);
      admin = await startAdminServer({ dataDir: config.dataDir, tls: adminTls, deps: { db: store.db, services: app.services }, log });
      steps.admin = () => admin!.close();
    }

    let sandbox: SandboxFile | null = null;
    if (config.sandbox) {
      const previousChannels = previousSandboxChannels(sandboxFile(config.dataDir));
      sandbox = await setupSandbox({
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
        seating: simulator ? { venues: app.services.venues, posControl: simulator.control } : null,
      });
      if (rmsSimulator) {
        const s = app.services;
        const rms = await connectSandboxRms({
          rms: rmsSimulator, partnerId: sandbox.partnerId, partnerApiKey: sandbox.apiKey, baseUrl: url, dataDir: config.dataDir,
          venues: s.venues, bookingServices: s.bookingServices, rmsClients: s.rmsClients, log,
        });
        sandbox = writeSandboxRms(sandboxFile(config.dataDir), sandbox, rms);
        // DESIGN 8.6: a channel of each protocol, linked to the RMS venues.
        const channels = await ensureSandboxChannels({
          previous: previousChannels, partnerId: sandbox.partnerId, venueIds: rms.venues.map((v) => v.id),
          channels: s.channels, access: s.channelAccess, log,
        });
        sandbox = writeSandboxChannels(sandboxFile(config.dataDir), sandbox, channels);
      }
    }

    if (opts.startJobs !== false) {
      await runner.start();
      steps.jobs = () => runner.stop();
    }
    // Checked credentials are kept in memory under a lease (src/auth/credential-cache.ts); it is
    // given up when the process stops taking requests.
    if (config.authCacheLeaseMs > 0) {
      await app.services.credentialCache.start();
      const http = steps.http;
      steps.http = async () => {
        await http?.();
        await app.services.credentialCache.stop();
      };
    }
    log.info({ url, store: store.embedded ? 'embedded' : 'postgres', sandbox: config.sandbox }, 'tableside listening');

    let closing: Promise<void> | null = null;
    return {
      url,
      port,
      app,
      store,
      runner,
      tls: { ...tls, certFile: tls.certFile ?? null },
      sandbox,
      log,
      close: () => (closing ??= closeAll()),
    };
  } catch (err) {
    await releasePort();
    await closeAll();
    throw err;
  }
}
