// Venues as the RMS's back office configures them: created with defaults, changed field by field.

import { randomUUID } from 'node:crypto';
import type { VenueInput } from './control.schemas.ts';
import { RmsError, badRequest, conflict } from './errors.ts';
import type { RmsStore } from './store.ts';
import type { VenueConfig } from './types.ts';
import { applyVenueInput, defaultVenue } from './venues.fns.ts';

export function createVenuesService(store: RmsStore) {
  function get(id: string): VenueConfig {
    const venue = store.venue(id);
    if (!venue) throw new RmsError(404, 'venue_not_found', `venue ${id} not found`);
    return venue;
  }

  function apply(base: VenueConfig, input: VenueInput): VenueConfig {
    const result = applyVenueInput(base, input);
    if ('problems' in result) throw badRequest('invalid venue configuration', Object.fromEntries(Object.entries(result.problems).map(([k, v]) => [k, [v]])));
    store.putVenue(result.venue);
    return result.venue;
  }

  return {
    list: (): VenueConfig[] => store.venues(),
    get,
    /** Creates a venue with defaults for every field not given; 409 when the id exists. */
    create(input: VenueInput): VenueConfig {
      const id = input.id ?? `rms-venue-${randomUUID().slice(0, 8)}`;
      if (store.venue(id)) throw conflict('venue_exists', `venue ${id} exists`);
      return apply(defaultVenue(id), input);
    },
    /** Creates the venue or changes the fields given (each given field replaces the old value). */
    put(id: string, input: VenueInput): VenueConfig {
      if (input.id !== undefined && input.id !== id) throw badRequest('body id differs from the path', { id: ['differs from the path'] });
      return apply(store.venue(id) ?? defaultVenue(id), input);
    },
  };
}

export type VenuesService = ReturnType<typeof createVenuesService>;
