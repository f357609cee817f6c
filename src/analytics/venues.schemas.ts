import Type, { type Static } from 'typebox';
import { Nullable } from '../server/schemas.ts';

export const AnalyticsVenue = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    timezone: Nullable(Type.String({ description: 'IANA time zone' })),
  },
  { $id: 'AnalyticsVenue' },
);

export const AnalyticsVenueList = Type.Object({ venues: Type.Array(AnalyticsVenue) });
export type AnalyticsVenueList = Static<typeof AnalyticsVenueList>;
