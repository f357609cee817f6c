import { forbidden, notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { ConnectedVenue, ConnectionsService, VenueWithConnection } from '../pos-mirror/connections.service.ts';

// Every per-venue pay-at-table endpoint starts here: the venue must be in the token's scope (403
// otherwise, for unknown ids too, so the topology is not leaked) and have an active POS connection
// (404 "no POS connection found" otherwise, spec 2.8).

/** A venue in the partner's scope, connected to its POS. */
export type VenueContext = ConnectedVenue;

export interface VenueContextDeps {
  connections: Pick<ConnectionsService, 'inScope' | 'resolveScoped'>;
}

export const NO_POS_CONNECTION = 'No POS connection found for this venue: pay-at-table is not active until the restaurant completes onboarding.';

/** The 404 of a suspended connection: "no POS connection found" (spec 2.8), saying why. */
export function suspendedMessage(reason: string | null): string {
  const why = reason === 'credentials_refused' ? 'the POS refused our credentials for this venue' : 'it was suspended by the operator';
  return `No POS connection found for this venue: its connection is suspended (${why}); pay-at-table is unavailable until it is resumed.`;
}

type Scoped = Awaited<ReturnType<ConnectionsService['inScope']>>;

function connectedOf(found: Scoped): VenueContext {
  if (!found) throw forbidden('The venue is not in this token’s scope.');
  if (!found.connected) throw notFound(NO_POS_CONNECTION);
  return found.connected;
}

function activeOf(ctx: VenueContext): VenueContext {
  if (ctx.connection.status !== 'active') throw notFound(suspendedMessage(ctx.connection.suspended_reason));
  return ctx;
}

export function createVenueContexts({ connections }: VenueContextDeps) {
  return {
    async active(partnerId: string, venueId: string): Promise<VenueContext> {
      return activeOf(await this.connected(partnerId, venueId));
    },

    /** `connected`, from the venue and connection a caller read in its own statement (null: not in scope). */
    connectedFrom(found: VenueWithConnection | null): VenueContext {
      return connectedOf(connections.resolveScoped(found));
    },

    /** `active`, from the venue and connection a caller read in its own statement (null: not in scope). */
    activeFrom(found: VenueWithConnection | null): VenueContext {
      return activeOf(connectedOf(connections.resolveScoped(found)));
    },

    /**
     * Like `active`, but a suspended connection is accepted too: payments already made on the
     * venue stay readable (and replayable) while it is temporarily unavailable.
     */
    async connected(partnerId: string, venueId: string): Promise<VenueContext> {
      return connectedOf(isUuid(venueId) ? await connections.inScope(partnerId, venueId) : null);
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
