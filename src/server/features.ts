import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { analyticsOrdersRoutes } from '../analytics/orders.routes.ts';
import { createAnalyticsOrdersService } from '../analytics/orders.service.ts';
import { analyticsVenuesRoutes } from '../analytics/venues.routes.ts';
import { createAnalyticsVenuesService } from '../analytics/venues.service.ts';
import type { AuthService } from '../auth/auth.service.ts';
import type { Config } from '../config.ts';
import { areasRoutes } from '../content/areas.routes.ts';
import { createAreasService } from '../content/areas.service.ts';
import { brandsRoutes } from '../content/brands.routes.ts';
import { createBrandsService } from '../content/brands.service.ts';
import { channelsRoutes } from '../content/channels.routes.ts';
import { createChannelsService } from '../content/channels.service.ts';
import { companiesRoutes } from '../content/companies.routes.ts';
import { createCompaniesService } from '../content/companies.service.ts';
import { venuesRoutes } from '../content/venues.routes.ts';
import { createVenuesService } from '../content/venues.service.ts';
import type { Db } from '../db/db.ts';
import type { JobDefinition } from '../db/jobs.ts';
import type { Clock } from '../lib/clock.ts';
import { onboardingRoutes } from '../onboarding/onboarding.routes.ts';
import { createOnboardingService } from '../onboarding/onboarding.service.ts';
import { billRoutes } from '../pat/bill.routes.ts';
import { createBillService } from '../pat/bill.service.ts';
import { paymentsRoutes } from '../pat/payments.routes.ts';
import { createPaymentsService } from '../pat/payments.service.ts';
import { createVenueContexts } from '../pat/venue-context.ts';
import { patVenuesRoutes } from '../pat/venues.routes.ts';
import { createPatVenuesService } from '../pat/venues.service.ts';
import { PosClients } from '../pos/pos-client.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import { createConnectionsService } from '../pos-mirror/connections.service.ts';
import { createOrdersService } from '../pos-mirror/orders.service.ts';
import { createOrderSyncService, ORDER_SYNC_JOB } from '../pos-mirror/sync.service.ts';
import { createTablesService } from '../pos-mirror/tables.service.ts';

// Wires each API family: builds its services from narrow dependencies and registers its routes.

export interface FeatureDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  auth: AuthService;
  posTypes: PosTypeRegistry;
}

export async function registerFeatures(app: FastifyInstance, deps: FeatureDeps) {
  const { config, db, clock, log, auth, posTypes } = deps;
  const posClients = new PosClients({ timeoutMs: config.posTimeoutMs });
  app.addHook('onClose', async () => posClients.close());

  // Content API (/v1/rms)
  const channels = createChannelsService({ db, clock });
  const content = { db, clock, publicBaseUrl: config.publicBaseUrl };
  const companies = createCompaniesService(content);
  const brands = createBrandsService(content);
  const venues = createVenuesService(content);
  const areas = createAreasService({ db, clock });
  await app.register(channelsRoutes, { channels });
  await app.register(companiesRoutes, { companies });
  await app.register(brandsRoutes, { brands });
  await app.register(venuesRoutes, { venues });
  await app.register(areasRoutes, { areas });

  // The POS mirror: connections, tables, orders and their sync
  const connections = createConnectionsService({ db, clock, log, posTypes, posClients });
  const orders = createOrdersService({ db, clock, log });
  const orderSync = createOrderSyncService({ db, clock, log, connections, orders, syncIntervalS: config.orderSyncIntervalS });
  const tables = createTablesService({ db, clock, log, ttlS: config.posTablesTtlS });

  // Pay-at-table (/v1/pat) and onboarding
  const contexts = createVenueContexts({ connections });
  const patVenues = createPatVenuesService({ db, clock, auth, contexts, tables, posTypes, publicBaseUrl: config.publicBaseUrl });
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
  const onboarding = createOnboardingService({ db, clock, log, posTypes, connections });
  await app.register(patVenuesRoutes, { venues: patVenues, contexts, posTypes });
  await app.register(billRoutes, { bill });
  await app.register(paymentsRoutes, { payments });
  await app.register(onboardingRoutes, { onboarding });

  // Analytics (/v1/pos)
  const analyticsVenues = createAnalyticsVenuesService({ db });
  const analyticsOrders = createAnalyticsOrdersService({ db });
  await app.register(analyticsVenuesRoutes, { venues: analyticsVenues });
  await app.register(analyticsOrdersRoutes, { orders: analyticsOrders });

  const jobs: Record<string, JobDefinition<any>> = {
    ...payments.jobs(),
    [ORDER_SYNC_JOB]: orderSync.job(),
  };
  return { services: { channels, companies, brands, venues, areas, patVenues, connections, orders, orderSync, tables, bill, payments, onboarding, contexts, posClients, analyticsVenues, analyticsOrders }, jobs };
}

export type FeatureServices = Awaited<ReturnType<typeof registerFeatures>>['services'];
