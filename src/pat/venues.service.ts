import { randomBytes } from 'node:crypto';
import { grantVenue } from '../auth/auth.repository.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { validationFailed } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import { hashSecret } from '../lib/secrets.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import * as repo from './venues.repository.ts';
import type { CreatePatVenueBody, CreatedPatVenue, ListPatVenuesQuery, PatVenueSummary } from './venues.schemas.ts';

// Venue discovery and standalone venue creation for pay-at-table partners (spec 2.8, 2.14, 4.7).
// A created venue is in the creator's scope at once and has no POS connection until the restaurant
// completes the onboarding link (DESIGN 6.5).

export interface PatVenuesDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  posTypes: PosTypeRegistry;
  publicBaseUrl: string;
}

export function onboardingUrl(publicBaseUrl: string, requestId: string, secret: string): string {
  return `${publicBaseUrl}/onboarding/${requestId}?t=${secret}`;
}

export function createPatVenuesService({ db, clock, posTypes, publicBaseUrl }: PatVenuesDeps) {
  return {
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
      const requestId = uuidv7();
      const secret = randomBytes(24).toString('base64url');
      await db.kysely.transaction().execute(async (tx) => {
        await repo.insertVenue(tx, {
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
        await grantVenue(tx, partnerId, venueId, now);
        await repo.insertOnboardingRequest(tx, { id: requestId, venueId, posType: body.posType, secretHash: hashSecret(secret) }, now);
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
        onboarding: { requestId, url: onboardingUrl(publicBaseUrl, requestId, secret), status: 'rms_activation' },
      };
    },
  };
}

export type PatVenuesService = ReturnType<typeof createPatVenuesService>;
