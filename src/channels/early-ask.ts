import type { BookableVenue } from './channel-api.repository.ts';

// Asking the RMS while the venue's link is read (issue 28). A channel's availability lookup needs
// the venue read with its link (one statement) before it knows which RMS venue to ask; on two cores
// that statement, in a row before the RMS call, was most of what Tableside added to it. A process
// keeps, per channel and venue it has answered, the RMS venue and time zone that read named, and
// the next lookup asks the RMS with them at the same time as it reads the venue again.
//
// What is kept is a guess, never an answer: the read of this request still decides. The RMS's
// answer is used only if the venue is linked to the channel now and names the same RMS partner,
// venue and time zone; otherwise it is dropped, the request is refused (unlinked) or the RMS is
// asked again as the read says. So nothing kept here can make an answer staler or let an unlinked
// venue through, and it needs no invalidation: a wrong guess costs one discarded RMS read (at most
// once per process, channel and venue, since a read that disagrees replaces or forgets it). Only a
// venue this process has answered for this channel is asked early: a channel never linked to a
// venue never makes its RMS be asked.

/** What a lookup needs of a venue before reading it: its RMS and the zone its dates are in. */
export interface VenueRoute {
  id: string;
  ownerPartnerId: string;
  externalId: string;
  timezone: string | null;
}

const MAX_ROUTES = 10_000;

export function createVenueRoutes(max = MAX_ROUTES) {
  const routes = new Map<string, VenueRoute>();
  const keyOf = (channelId: string, venueId: string) => `${channelId}\u0000${venueId}`;
  return {
    /** The route this process last read for the channel and venue, if any. */
    get(channelId: string, venueId: string): VenueRoute | undefined {
      return routes.get(keyOf(channelId, venueId));
    },

    /** Keeps what a read of the venue says; forgets it when the venue is not (or no longer) the channel's RMS venue. */
    note(channelId: string, venueId: string, venue: BookableVenue | null): void {
      const key = keyOf(channelId, venueId);
      if (!venue?.linked || !venue.ownerPartnerId || !venue.externalId) {
        routes.delete(key);
        return;
      }
      const known = routes.get(key);
      if (known && sameRoute(known, venue)) return;
      if (!known && routes.size >= max) routes.delete(routes.keys().next().value!);
      routes.set(key, { id: venue.id, ownerPartnerId: venue.ownerPartnerId, externalId: venue.externalId, timezone: venue.timezone });
    },
  };
}

export type VenueRoutes = ReturnType<typeof createVenueRoutes>;

/** Whether the venue as read now is asked exactly as the route asked it. */
export function sameRoute(route: VenueRoute, venue: BookableVenue): boolean {
  return venue.linked && venue.id === route.id && venue.ownerPartnerId === route.ownerPartnerId &&
    venue.externalId === route.externalId && venue.timezone === route.timezone;
}

/**
 * `promise`, with its failure kept for whoever awaits it: an early answer that turns out not to be
 * used must not become an unhandled rejection.
 */
export function held<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
