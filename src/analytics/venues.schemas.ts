import Type, { type Static } from 'typebox';
import { CountryCode, Nullable, Str, TimeZone, Uuid } from '../server/schemas.ts';

/** The list is not paged; it is bounded all the same (the first venues by name), so its size is known. */
export const MAX_SCOPE_VENUES = 100_000;

export const AnalyticsVenue = Type.Object(
  {
    id: Uuid(),
    name: Str(255),
    country: Nullable(CountryCode({ description: 'ISO 3166-1 alpha-2' })),
    timezone: Nullable(TimeZone({ description: 'IANA time zone' })),
  },
  { $id: 'AnalyticsVenue' },
);

export const AnalyticsVenueList = Type.Object({
  venues: Type.Array(AnalyticsVenue, { maxItems: MAX_SCOPE_VENUES, description: `the venues in scope that are available now, by name (not paged; at most ${MAX_SCOPE_VENUES.toLocaleString('en')})` }),
});
export type AnalyticsVenueList = Static<typeof AnalyticsVenueList>;
