import type { Logger } from 'pino';
import { createAnalyticsOrdersService } from '../analytics/orders.service.ts';
import { createAnalyticsVenuesService } from '../analytics/venues.service.ts';
import { createAuthService } from '../auth/auth.service.ts';
import { createCredentialCache } from '../auth/credential-cache.ts';
import type { Config } from '../config.ts';
import { createAreasService } from '../content/areas.service.ts';
import { createBrandsService } from '../content/brands.service.ts';
import { createChannelAccessService } from '../channels/access.service.ts';
import { createChannelApiService } from '../channels/channel-api.service.ts';
import { createV3Service } from '../channels/google-booking-server.service.ts';
import { createFeedsService } from '../channels/google-feeds.service.ts';
import { createChannelsService } from '../content/channels.service.ts';
import { createCompaniesService } from '../content/companies.service.ts';
import { createVenuesService } from '../content/venues.service.ts';
import type { Db } from '../db/db.ts';
import type { JobDefinition } from '../db/jobs.ts';
import { createSealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { createOnboardingService } from '../onboarding/onboarding.service.ts';
import { createBillService } from '../pat/bill.service.ts';
import { createPaymentsService } from '../pat/payments.service.ts';
import { createVenueContexts } from '../pat/venue-context.ts';
import { createPatVenuesService } from '../pat/venues.service.ts';
import type { PosClients } from '../pos/pos-client.ts';
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
  const { config, db, clock, log, posTypes, posClients, rmsClients } = deps;
  // Serves nothing from memory until the process that serves requests starts it (service.ts, unless
  // AUTH_CACHE_LEASE_MS is 0); until then every lookup reads the database.
  const credentialCache = createCredentialCache({ db, log, leaseMs: config.authCacheLeaseMs });
  const auth = createAuthService({ db, clock, accessTokenTtlS: config.accessTokenTtlS, credentials: credentialCache });

  // Content API (/v1/rms)
  const channels = createChannelsService({ db, clock });
  const content = { db, clock, publicBaseUrl: config.publicBaseUrl };
  const companies = createCompaniesService(content);
  const brands = createBrandsService(content);
  const venues = createVenuesService(content);
  const areas = createAreasService({ db, clock });

  // The POS mirror: connections, tables, orders and their sync
  const connections = createConnectionsService({ db, clock, log, posTypes, posClients });
  const orders = createOrdersService({ db, clock, log });
  const orderSync = createOrderSyncService({ db, clock, log, connections, orders, syncIntervalS: config.orderSyncIntervalS });
  const tables = createTablesService({ db, clock, log, ttlS: config.posTablesTtlS });

  // Pay-at-table (/v1/pat) and onboarding
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

  // Seated reservations (DESIGN 8.3c): the RMS seats a booking, the POS mirror opens its order
  const seating = createSeatingService({ db, clock, log, connections, tables, posTimeoutMs: config.posTimeoutMs });
  const rmsSeating = createRmsSeatingService({ db, clock, posTypes, connections, seating, onboarding });

  // Analytics (/v1/pos)
  const analyticsVenues = createAnalyticsVenuesService({ db });
  const analyticsOrders = createAnalyticsOrdersService({ db });

  // Reservations, RMS side (DESIGN 8.1-8.3b)
  const bookingServices = createBookingServicesService({
    db, clock, log, clients: rmsClients, allowPrivateTargets: config.allowPrivateTargets, secretsKey: config.secretsKey,
  });
  const bookings = createBookingsService({ db, clock, log, bookingServices, rmsTimeoutMs: config.rmsTimeoutMs });
  const notices = createNoticesService({ db, clock, log, bookings });
  const feed = createFeedService({ db, clock, log });
  const availability = createAvailabilityService({ db, bookingServices, feed });
  // Outbound webhooks (/v1/webhooks): endpoints, and delivery of every outbox event
  const sealer = createSealer({ db, clock, secretsKey: config.secretsKey, setting: SIGNING_SECRETS_KEY_SETTING });
  const allowPrivateTargets = config.allowPrivateTargets;
  const webhookDelivery = createWebhookDelivery({ db, clock, log, sealer, sender: createSender({ allowPrivate: allowPrivateTargets }), allowPrivateTargets });
  const webhookEndpoints = createEndpointsService({ db, clock, sealer, delivery: webhookDelivery, allowPrivateTargets });

  // Booking channels (DESIGN 8.4): their credentials, the /v1/bc channel API, Google v3, feeds
  const channelAccess = createChannelAccessService({ db, clock });
  const channelApi = createChannelApiService({ db, clock, bookings, availability });
  const v3 = createV3Service({ db, clock, api: channelApi, availability });
  const channelFeeds = createFeedsService({ db, clock, feed });

  /** Every durable job kind and its handler; registered on the process's JobRunner. */
  const jobs: Record<string, JobDefinition<any>> = {
    ...payments.jobs(),
    ...webhookDelivery.jobs(),
    [ORDER_SYNC_JOB]: orderSync.job(),
    [SEATING_JOB]: seating.job(),
    ...bookings.jobs(),
    ...notices.jobs(),
  };

  return {
    services: {
      auth, credentialCache, channels, companies, brands, venues, areas,
      connections, orders, orderSync, tables,
      contexts, patVenues, bill, payments, onboarding,
      analyticsVenues, analyticsOrders,
      webhookEndpoints,
      seating, rmsSeating,
      rmsClients, bookingServices, bookings, notices, feed, availability,
      channelAccess, channelApi, v3, channelFeeds,
    },
    jobs,
  };
}

export type Services = ReturnType<typeof buildServices>['services'];
