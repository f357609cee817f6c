import type { Logger } from 'pino';
import { createAnalyticsOrdersService } from '../analytics/orders.service.ts';
import { createAnalyticsVenuesService } from '../analytics/venues.service.ts';
import { createAuthService, type AuthService } from '../auth/auth.service.ts';
import { createCredentialCache, type CredentialCache } from '../auth/credential-cache.ts';
import type { Config } from '../config.ts';
import { createAreasService } from '../content/areas.service.ts';
import { createBrandsService } from '../content/brands.service.ts';
import { createChannelAccessService } from '../channels/access.service.ts';
import { createChannelApiService } from '../channels/channel-api.service.ts';
import { channelWebhookListener } from '../channels/channel-events.ts';
import { createV3Service } from '../channels/google-booking-server.service.ts';
import { createFeedsService } from '../channels/google-feeds.service.ts';
import { createGoogleRtuService, GOOGLE_SEALING_KEY_SETTING } from '../channels/google-rtu.service.ts';
import { createChannelsService } from '../content/channels.service.ts';
import { createCompaniesService } from '../content/companies.service.ts';
import { createVenuesService } from '../content/venues.service.ts';
import type { Db } from '../db/db.ts';
import type { JobDefinition } from '../db/jobs.ts';
import { createSealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { createOnboardingService, type OnboardingService } from '../onboarding/onboarding.service.ts';
import { createBillService } from '../pat/bill.service.ts';
import { createPaymentsService } from '../pat/payments.service.ts';
import { createVenueContexts } from '../pat/venue-context.ts';
import { createPatVenuesService } from '../pat/venues.service.ts';
import type { PosClients } from '../pos/pos-clients.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import { createConnectionsService } from '../pos-mirror/connections.service.ts';
import { createWebhookDelivery } from '../webhooks/delivery.service.ts';
import { createEndpointsService, SIGNING_SECRETS_KEY_SETTING } from '../webhooks/endpoints.service.ts';
import { createSender } from '../webhooks/sender.ts';
import { createOrdersService } from '../pos-mirror/orders.service.ts';
import { createOrderSyncService, ORDER_SYNC_JOB } from '../pos-mirror/sync.service.ts';
import { createSeatingService, SEATING_JOB } from '../pos-mirror/reservation-orders.service.ts';
import { createTablesService } from '../pos-mirror/tables.service.ts';
import { createRmsSeatingService } from '../rms/seated-reservations.service.ts';
import { createAvailabilityService } from '../rms/availability.service.ts';
import { createBookingServicesService } from '../rms/booking-services.service.ts';
import { createBookingsService } from '../rms/bookings.service.ts';
import { createFeedService } from '../rms/availability-feed.service.ts';
import { createNoticesService } from '../rms/notices.service.ts';
import type { RmsClients } from '../rms/rms-client.ts';

// Builds every service from narrow dependencies, and collects the durable job kinds they run.
// No HTTP here: app.ts mounts the routes over these services, and the CLI runs the operator's
// commands over the same ones (operator.ts). A new feature adds its services here, its routes in
// routes.ts and its job kinds to `jobs`.

export interface ServiceDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  posTypes: PosTypeRegistry;
  posClients: PosClients;
  rmsClients: RmsClients;
}

export function buildServices(deps: ServiceDeps) {
  const access = buildAuth(deps);
  const content = buildContent(deps);
  const mirror = buildPosMirror(deps);
  const payAtTable = buildPayAtTable(deps, { auth: access.auth, ...mirror });
  const seated = buildSeatedReservations(deps, { ...mirror, onboarding: payAtTable.onboarding });
  const analytics = buildAnalytics(deps);
  const reservations = buildReservations(deps, access.credentialCache);
  const { webhookDelivery, webhookEndpoints } = buildWebhooks(deps);
  const bookingChannels = buildBookingChannels(deps, reservations, access.credentialCache);

  /** Every durable job kind and its handler; registered on the process's JobRunner. */
  const jobs: Record<string, JobDefinition<any>> = {
    ...payAtTable.payments.jobs(),
    ...webhookDelivery.jobs(),
    [ORDER_SYNC_JOB]: mirror.orderSync.job(),
    [SEATING_JOB]: seated.seating.job(),
    ...reservations.bookings.jobs(),
    ...reservations.notices.jobs(),
    ...bookingChannels.googleRtu.jobs(),
  };

  return {
    services: {
      ...access, ...content, ...mirror, ...payAtTable, ...analytics, webhookEndpoints, ...seated,
      rmsClients: deps.rmsClients, ...reservations, ...bookingChannels,
    },
    jobs,
  };
}

function buildAuth({ config, db, clock, log }: ServiceDeps) {
  // Serves nothing from memory until the process that serves requests starts it (service.ts, unless
  // AUTH_CACHE_LEASE_MS is 0); until then every lookup reads the database.
  const credentialCache = createCredentialCache({ db, log, leaseMs: config.authCacheLeaseMs });
  const auth = createAuthService({ db, clock, accessTokenTtlS: config.accessTokenTtlS, credentials: credentialCache });
  return { auth, credentialCache };
}

/** The content API (/v1/rms). */
function buildContent({ config, db, clock }: ServiceDeps) {
  const content = { db, clock, publicBaseUrl: config.publicBaseUrl };
  return {
    channels: createChannelsService({ db, clock }),
    companies: createCompaniesService(content),
    brands: createBrandsService(content),
    venues: createVenuesService(content),
    areas: createAreasService({ db, clock }),
  };
}

/** The POS mirror: connections, tables, orders and their sync. */
function buildPosMirror({ config, db, clock, log, posTypes, posClients }: ServiceDeps) {
  const connections = createConnectionsService({ db, clock, log, posTypes, posClients });
  const orders = createOrdersService({ db, clock, log });
  const orderSync = createOrderSyncService({ db, clock, log, connections, orders, syncIntervalS: config.orderSyncIntervalS });
  const tables = createTablesService({ db, clock, log, ttlS: config.posTablesTtlS });
  return { connections, orders, orderSync, tables };
}

type PosMirror = ReturnType<typeof buildPosMirror>;

/** Pay-at-table (/v1/pat) and onboarding. */
function buildPayAtTable({ config, db, clock, log, posTypes }: ServiceDeps, { auth, connections, orders, tables }: PosMirror & { auth: AuthService }) {
  const contexts = createVenueContexts({ connections });
  const onboarding = createOnboardingService({ db, clock, log, posTypes, connections, publicBaseUrl: config.publicBaseUrl });
  const patVenues = createPatVenuesService({ db, clock, auth, contexts, tables, posTypes, onboarding });
  const bill = createBillService({ db, contexts, tables, orders });
  const payments = createPaymentsService({
    db,
    clock,
    log,
    contexts,
    orders,
    connections,
    confirmationTimeoutS: config.paymentConfirmationTimeoutS,
    inlineWaitMs: config.paymentInlineWaitMs,
    posTimeoutMs: config.posTimeoutMs,
  });
  return { contexts, patVenues, bill, payments, onboarding };
}

/** Seated reservations (DESIGN 8.3c): the RMS seats a booking, the POS mirror opens its order. */
function buildSeatedReservations(
  { config, db, clock, log, posTypes }: ServiceDeps,
  { connections, tables, onboarding }: PosMirror & { onboarding: OnboardingService },
) {
  const seating = createSeatingService({ db, clock, log, connections, tables, posTimeoutMs: config.posTimeoutMs });
  const rmsSeating = createRmsSeatingService({ db, clock, posTypes, connections, seating, onboarding });
  return { seating, rmsSeating };
}

/** Analytics (/v1/pos). */
function buildAnalytics({ db }: ServiceDeps) {
  return { analyticsVenues: createAnalyticsVenuesService({ db }), analyticsOrders: createAnalyticsOrdersService({ db }) };
}

/** Reservations, RMS side (DESIGN 8.1-8.3b). */
function buildReservations({ config, db, clock, log, rmsClients }: ServiceDeps, credentials: CredentialCache) {
  // The partner's endpoint is kept under the credential cache's lease and epoch (a rotation waits for every process).
  const bookingServices = createBookingServicesService({
    db, clock, log, clients: rmsClients, allowPrivateTargets: config.allowPrivateTargets, secretsKey: config.secretsKey, credentials,
  });
  const bookings = createBookingsService({ db, clock, log, bookingServices, rmsTimeoutMs: config.rmsTimeoutMs, secretsKey: config.secretsKey });
  const notices = createNoticesService({ db, clock, log, bookings });
  const feed = createFeedService({ db, clock, log });
  const availability = createAvailabilityService({ db, bookingServices, feed });
  return { bookingServices, bookings, notices, feed, availability };
}

/** Outbound webhooks (/v1/webhooks): endpoints, and delivery of every outbox event. */
function buildWebhooks({ config, db, clock, log }: ServiceDeps) {
  const sealer = createSealer({ db, clock, secretsKey: config.secretsKey, setting: SIGNING_SECRETS_KEY_SETTING });
  const allowPrivateTargets = config.allowPrivateTargets;
  const webhookDelivery = createWebhookDelivery({ db, clock, log, sealer, sender: createSender({ allowPrivate: allowPrivateTargets }), allowPrivateTargets, sandbox: config.sandbox });
  const webhookEndpoints = createEndpointsService({ db, clock, sealer, delivery: webhookDelivery, allowPrivateTargets, sandbox: config.sandbox });
  return { webhookDelivery, webhookEndpoints };
}

/** Booking channels (DESIGN 8.4): their credentials, the /v1/bc channel API, Google v3, feeds. */
function buildBookingChannels(
  { config, db, clock, log }: ServiceDeps,
  { bookings, availability, feed }: ReturnType<typeof buildReservations>,
  credentials: CredentialCache,
) {
  // Channels' credentials are kept like partners' (a revoke waits for every process).
  const channelAccess = createChannelAccessService({ db, clock, credentials });
  // So are the venues a channel reads (an unlink or a venue's edit waits for every process).
  const channelApi = createChannelApiService({ db, clock, bookings, availability, credentials });
  // A booking made through a channel: each recorded change reaches that channel's endpoints (8.7a).
  bookings.onChange(channelWebhookListener());
  const v3 = createV3Service({ db, clock, api: channelApi, availability });
  const channelFeeds = createFeedsService({ db, clock, feed });
  // Google's real-time updates (DESIGN 8.7b) hear every recorded booking change and completed feed.
  const sealer = createSealer({ db, clock, secretsKey: config.secretsKey, setting: GOOGLE_SEALING_KEY_SETTING });
  const googleRtu = createGoogleRtuService({ db, clock, log, sealer, bookings, availability, feed });
  bookings.onChange((tx, change) => googleRtu.onBookingChange(tx, change));
  feed.onComplete((tx, done) => googleRtu.onFeedComplete(tx, done));
  return { channelAccess, channelApi, v3, channelFeeds, googleRtu };
}

export type Services = ReturnType<typeof buildServices>['services'];
