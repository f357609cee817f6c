import type { Db } from '../db/db.ts';
import * as repo from './venues.repository.ts';
import { MAX_SCOPE_VENUES, type AnalyticsVenueList } from './venues.schemas.ts';

// GET /v1/pos/partner/venues (spec 2.8, 4.8): the venues in the token's scope that are available
// for analytics now. A venue whose POS connection is suspended is temporarily unavailable and
// omitted (DESIGN 9, DES-127); so is one never connected. An empty list is a valid answer.

export function createAnalyticsVenuesService({ db }: { db: Pick<Db, 'kysely'> }) {
  return {
    async listVenues(partnerId: string): Promise<AnalyticsVenueList> {
      return { venues: await repo.listAnalyticsVenues(db.kysely, partnerId, MAX_SCOPE_VENUES) };
    },
  };
}

export type AnalyticsVenuesService = ReturnType<typeof createAnalyticsVenuesService>;
