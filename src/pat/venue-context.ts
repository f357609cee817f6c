import type { Db } from '../db/db.ts';
import { forbidden, notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { PosAdapter, PosClients } from '../pos/pos-client.ts';
import type { PosType, PosTypeRegistry } from '../pos/pos-types.ts';
import * as repo from './connections.repository.ts';

// Every per-venue pay-at-table endpoint starts here: the venue must be in the token's scope (403
// otherwise, for unknown ids too, so the topology is not leaked) and have an active POS connection
// (404 "no POS connection found" otherwise, spec 2.8).

export interface VenueContext {
  venue: repo.PatVenueRow & { currency: string };
  connection: repo.ConnectionRow;
  posType: PosType;
  pos: PosAdapter;
}

export interface VenueContextDeps {
  db: Pick<Db, 'kysely'>;
  posTypes: PosTypeRegistry;
  posClients: PosClients;
}

export const NO_POS_CONNECTION = 'No POS connection found for this venue: pay-at-table is not active until the restaurant completes onboarding.';

/** The 404 of a suspended connection: DESIGN 9's "no POS connection found", saying why. */
export function suspendedMessage(reason: string | null): string {
  const why = reason === 'credentials_refused' ? 'the POS refused our credentials for this venue' : 'it was suspended by the operator';
  return `No POS connection found for this venue: its connection is suspended (${why}); pay-at-table is unavailable until it is resumed.`;
}

export function createVenueContexts({ db, posTypes, posClients }: VenueContextDeps) {
  /** The venue and its connection, if the venue is in the partner's scope; 403 otherwise. */
  async function scoped(partnerId: string, venueId: string) {
    const found = isUuid(venueId) ? await repo.findScopedVenue(db.kysely, partnerId, venueId) : null;
    if (!found) throw forbidden('The venue is not in this token’s scope.');
    return found;
  }

  return {
    async active(partnerId: string, venueId: string): Promise<VenueContext> {
      const ctx = await this.connected(partnerId, venueId);
      if (ctx.connection.status !== 'active') throw notFound(suspendedMessage(ctx.connection.suspended_reason));
      return ctx;
    },

    /**
     * Like `active`, but a suspended connection is accepted too: payments already made on the
     * venue stay readable (and replayable) while it is temporarily unavailable.
     */
    async connected(partnerId: string, venueId: string): Promise<VenueContext> {
      const { venue, connection } = await scoped(partnerId, venueId);
      const posType = connection ? posTypes.get(connection.pos_type) : undefined;
      if (!connection || !posType) throw notFound(NO_POS_CONNECTION);
      return { venue: { ...venue, currency: venue.currency ?? 'EUR' }, connection, posType, pos: posClients.for(posType) };
    },

    /** spec 2.12: the venue's POS code and the pay-at-table capabilities of its POS type. */
    async features(partnerId: string, venueId: string) {
      const { venue, posType } = await this.active(partnerId, venueId);
      return {
        venueId: venue.id,
        posCode: posType.code,
        payAtTable: {
          billRetrieval: posType.billRetrieval,
          paymentForwarding: posType.paymentForwarding,
          paymentConfirmation: posType.paymentConfirmation,
        },
      };
    },
  };
}

export type VenueContexts = ReturnType<typeof createVenueContexts>;
