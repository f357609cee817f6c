import type { FastifyInstance } from 'fastify';
import { analyticsOrdersRoutes } from '../analytics/orders.routes.ts';
import { analyticsVenuesRoutes } from '../analytics/venues.routes.ts';
import type { FailureLimiter } from '../auth/failure-limiter.ts';
import { oauthRoutes } from '../auth/oauth.routes.ts';
import { bcRoutes } from '../channels/channel-api.routes.ts';
import { v3Routes } from '../channels/google-booking-server.routes.ts';
import { feedsRoutes } from '../channels/google-feeds.routes.ts';
import { areasRoutes } from '../content/areas.routes.ts';
import { brandsRoutes } from '../content/brands.routes.ts';
import { channelsRoutes } from '../content/channels.routes.ts';
import { companiesRoutes } from '../content/companies.routes.ts';
import { venuesRoutes } from '../content/venues.routes.ts';
import { onboardingRoutes } from '../onboarding/onboarding.routes.ts';
import { billRoutes } from '../pat/bill.routes.ts';
import { paymentsRoutes } from '../pat/payments.routes.ts';
import { patVenuesRoutes } from '../pat/venues.routes.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import { webhooksRoutes } from '../webhooks/endpoints.routes.ts';
import { rmsSeatingRoutes } from '../rms/seated-reservations.routes.ts';
import { bookingServicesRoutes } from '../rms/booking-services.routes.ts';
import { feedRoutes } from '../rms/availability-feed.routes.ts';
import { noticesRoutes } from '../rms/notices.routes.ts';
import type { Services } from './services.ts';

// Mounts every feature's routes on the platform, each with the services it calls.

export async function mountRoutes(fastify: FastifyInstance, s: Services, deps: { posTypes: PosTypeRegistry; limiter: FailureLimiter }): Promise<void> {
  await fastify.register(oauthRoutes, { auth: s.auth, limiter: deps.limiter });

  // Content API (/v1/rms)
  await fastify.register(channelsRoutes, { channels: s.channels });
  await fastify.register(companiesRoutes, { companies: s.companies });
  await fastify.register(brandsRoutes, { brands: s.brands });
  await fastify.register(venuesRoutes, { venues: s.venues });
  await fastify.register(areasRoutes, { areas: s.areas });

  // Pay-at-table (/v1/pat) and onboarding
  await fastify.register(patVenuesRoutes, { venues: s.patVenues, contexts: s.contexts, posTypes: deps.posTypes });
  await fastify.register(billRoutes, { bill: s.bill });
  await fastify.register(paymentsRoutes, { payments: s.payments });
  await fastify.register(onboardingRoutes, { onboarding: s.onboarding });

  // Analytics (/v1/pos)
  await fastify.register(analyticsVenuesRoutes, { venues: s.analyticsVenues });
  await fastify.register(analyticsOrdersRoutes, { orders: s.analyticsOrders });

  // Outbound webhooks (/v1/webhooks), any partner
  await fastify.register(webhooksRoutes, { endpoints: s.webhookEndpoints });
  // Seated reservations (/v1/rms, DESIGN 8.3c)
  await fastify.register(rmsSeatingRoutes, { seating: s.rmsSeating });
  // Reservations, RMS side (/v1/rms: booking services, notices, availability feed)
  await fastify.register(bookingServicesRoutes, { bookingServices: s.bookingServices });
  await fastify.register(noticesRoutes, { notices: s.notices });
  await fastify.register(feedRoutes, { feed: s.feed });

  // Booking channels (DESIGN 8.4): each plugin authenticates its channels itself
  await fastify.register(bcRoutes, { api: s.channelApi, access: s.channelAccess, limiter: deps.limiter });
  await fastify.register(v3Routes, { v3: s.v3, access: s.channelAccess, limiter: deps.limiter });
  await fastify.register(feedsRoutes, { feeds: s.channelFeeds, access: s.channelAccess, limiter: deps.limiter });
}
