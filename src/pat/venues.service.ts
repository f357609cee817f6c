import type { AuthService } from '../auth/auth.service.ts';
import type { Db, Executor } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { validationFailed } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { OnboardingService } from '../onboarding/onboarding.service.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import type { TablesService } from '../pos-mirror/tables.service.ts';
import type { VenueContexts } from './venue-context.ts';
import * as repo from './venues.repository.ts';
import type { CreatePatVenueBody, CreatedPatVenue, ListPatVenuesQuery, PatVenueSummary } from './venues.schemas.ts';

// Venue discovery and standalone venue creation for pay-at-table partners (spec 2.8, 2.14, 4.7).
// A created venue is in the creator's scope at once and has no POS connection until the restaurant
// completes the onboarding link (DESIGN 6.5).

export interface PatVenuesDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  auth: Pick<AuthService, 'scopeNewVenue'>;
  contexts: Pick<VenueContexts, 'active'>;
  tables: Pick<TablesService, 'list'>;
  posTypes: PosTypeRegistry;
  onboarding: Pick<OnboardingService, 'open'>;
}

export type NewVenue = repo.NewPatVenue;

export function createPatVenuesService({ db, clock, auth, contexts, tables, posTypes, onboarding }: PatVenuesDeps) {
  /** Records a venue and puts it in the partner's scope, in the caller's transaction. */
  async function addVenue(tx: Executor, partnerId: string, venue: NewVenue, now: Date): Promise<void> {
    await repo.insertVenue(tx, venue, now);
    await auth.scopeNewVenue(tx, partnerId, venue.id, now);
  }

  return {
    addVenue,

    async list(partnerId: string, query: ListPatVenuesQuery): Promise<{ total: number; venues: PatVenueSummary[] }> {
      const filters = {
        name: query['filters[name]'] || undefined,
        city: query['filters[city]'] || undefined,
        countryCode: query['filters[countryCode]'] || undefined,
      };
      const page = { offset: query.offset ?? 0, limit: query.limit ?? 10 };
      const [total, rows] = await Promise.all([
        repo.countScopedVenues(db.kysely, partnerId, filters),
        repo.listScopedVenues(db.kysely, partnerId, filters, page),
      ]);
      return {
        total,
        venues: rows.map((r) => ({ id: r.id, name: r.name, country: r.country, city: r.city, timezone: r.timezone, posCode: r.pos_code })),
      };
    },

    async create(partnerId: string, body: CreatePatVenueBody): Promise<CreatedPatVenue> {
      if (!posTypes.get(body.posType)) {
        const codes = posTypes.list().map((t) => t.code);
        throw validationFailed(
          { posType: [`must be one of the POS types listed by GET /v1/pat/pos-types${codes.length ? ` (${codes.join(', ')})` : ''}`] },
          'posType is not supported for partner venue creation.',
        );
      }
      const now = clock.now();
      const venueId = uuidv7();
      const link = await db.kysely.transaction().execute(async (tx) => {
        await addVenue(tx, partnerId, {
          id: venueId,
          name: body.name,
          address: body.address,
          city: body.city,
          postalCode: body.postalCode,
          countryCode: body.country,
          timezone: body.timezone,
          currency: body.currency,
          posType: body.posType,
          phoneNumber: body.phoneNumber ?? null,
          email: body.email ?? null,
        }, now);
        return onboarding.open(tx, venueId, body.posType, now);
      });
      return {
        id: venueId,
        name: body.name,
        address: body.address,
        city: body.city,
        postalCode: body.postalCode,
        country: body.country,
        timezone: body.timezone,
        currency: body.currency,
        posType: body.posType,
        onboarding: link,
      };
    },

    /** spec 2.9: the venue's tables (ids stable, names as the POS has them now). */
    async tables(partnerId: string, venueId: string) {
      const ctx = await contexts.active(partnerId, venueId);
      const rows = await tables.list(ctx);
      return { venueId: ctx.venue.id, tables: rows.map((t) => ({ id: t.id, name: t.name })) };
    },
  };
}

export type PatVenuesService = ReturnType<typeof createPatVenuesService>;
