import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { emit } from '../db/outbox.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid, uuidv7 } from '../lib/ids.ts';
import { hashSecret } from '../lib/secrets.ts';
import { PosError } from '../pos/pos-client.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import { LocationConnectedError, type ConnectResult, type ConnectionsService } from '../pos-mirror/connections.service.ts';
import * as repo from './onboarding.repository.ts';
import type { PageState } from './onboarding.page.ts';

// Onboarding a standalone venue (spec 3.5, 4.7). The restaurant opens its link, enters its POS
// location id, and the POS mirror connects the venue (it proves the location with the POS's tables
// call, refuses a location already connected to another venue, imports the tables and starts the
// order sync) in the transaction that completes the request. Any failure leaves the request open
// for another try.

export const LOCATION_ALREADY_CONNECTED = 'This POS location is already connected to another venue (location already connected).';

export interface OnboardingDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  posTypes: PosTypeRegistry;
  connections: Pick<ConnectionsService, 'connect'>;
  publicBaseUrl: string;
}

/** An onboarding link as a partner receives it (spec 2.14 `onboarding`). */
export interface OnboardingLink {
  requestId: string;
  url: string;
  status: 'rms_activation';
}

export function onboardingUrl(publicBaseUrl: string, requestId: string, secret: string): string {
  return `${publicBaseUrl}/onboarding/${requestId}?t=${secret}`;
}

function posProblem(err: PosError): string {
  if (err.kind === 'status' && err.status === 404) return 'Your POS does not know that location id. Check it and try again.';
  if (err.kind === 'status' && (err.status === 401 || err.status === 403)) return 'Your POS refused our credentials for that location. Contact support.';
  if (err.kind === 'timeout' || err.kind === 'unreachable') return 'Your POS could not be reached just now. Try again in a few minutes.';
  return 'Your POS gave an answer we could not use. Try again, or contact support if it keeps happening.';
}

export function createOnboardingService({ db, clock, log, posTypes, connections, publicBaseUrl }: OnboardingDeps) {
  async function authorised(requestId: string, secret: string | undefined): Promise<repo.OnboardingRow | null> {
    if (!isUuid(requestId) || !secret) return null;
    const request = await repo.findRequest(db.kysely, requestId);
    if (!request) return null;
    const a = Buffer.from(hashSecret(secret), 'hex');
    const b = Buffer.from(request.secret_hash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b) ? request : null;
  }

  const posName = (code: string) => posTypes.get(code)?.name ?? code;

  return {
    /**
     * Opens an onboarding request for a venue, in the caller's transaction: the link the restaurant
     * opens to connect its POS location (a pay-at-table venue at creation, an RMS venue through
     * POST /v1/rms/venues/{externalId}/pos-connection). The secret is shown once, in the link.
     */
    async open(tx: Executor, venueId: string, posType: string, now: Date): Promise<OnboardingLink> {
      const requestId = uuidv7();
      const secret = randomBytes(24).toString('base64url');
      await repo.insertRequest(tx, { id: requestId, venueId, posType, secretHash: hashSecret(secret) }, now);
      return { requestId, url: onboardingUrl(publicBaseUrl, requestId, secret), status: 'rms_activation' };
    },

    async show(requestId: string, secret: string | undefined, action: string): Promise<{ status: number; page: PageState }> {
      const request = await authorised(requestId, secret);
      if (!request) return { status: 404, page: { kind: 'invalid' } };
      if (request.status === 'active') {
        return { status: 200, page: { kind: 'connected', venueName: request.venue_name, posName: posName(request.pos_type), tableCount: null } };
      }
      return { status: 200, page: { kind: 'form', venueName: request.venue_name, posName: posName(request.pos_type), action } };
    },

    async submit(requestId: string, secret: string | undefined, posVenueIdRaw: unknown, action: string): Promise<{ status: number; page: PageState }> {
      const request = await authorised(requestId, secret);
      if (!request) return { status: 404, page: { kind: 'invalid' } };
      const venueName = request.venue_name;
      const form = (status: number, error: string, posVenueId?: string) => ({
        status,
        page: { kind: 'form' as const, venueName, posName: posName(request.pos_type), action, error, posVenueId },
      });
      if (request.status === 'active') {
        return { status: 200, page: { kind: 'connected' as const, venueName, posName: posName(request.pos_type), tableCount: null } };
      }
      const posVenueId = typeof posVenueIdRaw === 'string' ? posVenueIdRaw.trim() : '';
      if (!posVenueId || posVenueId.length > 200) return form(400, 'Enter the POS location id (at most 200 characters).', posVenueId);
      // Control characters are never part of a location id (and U+0000 cannot be stored): refused
      // here with the form, before any query or POS call.
      if (/[\u0000-\u001f\u007f]/.test(posVenueId)) return form(400, 'The POS location id cannot contain control characters.', '');

      const posType = posTypes.get(request.pos_type);
      if (!posType) return form(503, 'This point of sale is not available right now. Contact support.', posVenueId);
      let outcome: ConnectResult;
      try {
        outcome = await connections.connect({ venueId: request.venue_id, posType, posVenueId }, async (tx, now) => {
          if (!(await repo.activate(tx, request.id, now))) return false;
          await emit(tx, { venueId: request.venue_id }, {
            type: 'venue.onboarded',
            entityId: request.venue_id,
            data: { venueId: request.venue_id, posType: posType.code, posVenueId },
          }, now);
        });
      } catch (err) {
        if (err instanceof LocationConnectedError) {
          await repo.recordError(db.kysely, request.id, 'location already connected', clock.now());
          return form(409, LOCATION_ALREADY_CONNECTED, posVenueId);
        }
        if (!(err instanceof PosError)) throw err;
        log.warn({ requestId, err: err.message }, 'onboarding: the POS tables call failed');
        await repo.recordError(db.kysely, request.id, err.message.slice(0, 500), clock.now());
        return form(502, posProblem(err), posVenueId);
      }
      // Another submission completed the request first.
      if (!outcome.connected) return { status: 200, page: { kind: 'connected' as const, venueName, posName: posType.name, tableCount: null } };
      log.info({ requestId, venueId: request.venue_id, posType: posType.code }, 'venue onboarded');
      return { status: 200, page: { kind: 'connected' as const, venueName, posName: posType.name, tableCount: outcome.tables } };
    },
  };
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;
