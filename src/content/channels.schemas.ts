import Type, { type Static } from 'typebox';
import { PageTotal } from '../lib/pagination.ts';
import { Str, Uuid } from '../server/schemas.ts';
import { ContentPage, IdText, Text } from './content.schemas.ts';

/** Limits of a channel's name and logo URL, enforced when the operator creates one. */
export const CHANNEL_NAME_MAX = 255;
export const CHANNEL_LOGO_MAX = 2048;

export const BookingChannel = Type.Object(
  {
    id: Uuid(),
    name: Str(CHANNEL_NAME_MAX),
    logo: Str(CHANNEL_LOGO_MAX, { description: 'URL of the channel logo; "" when the channel has none' }),
  },
  { $id: 'BookingChannel' },
);
export type BookingChannel = Static<typeof BookingChannel>;

export const ListChannelsQuery = Type.Object({
  ...ContentPage(),
  'filters[criteria]': Type.Optional(Text({ minLength: 0, description: 'part of the channel name, case-insensitive' })),
});
export type ListChannelsQuery = Static<typeof ListChannelsQuery>;

export const ChannelList = Type.Object({ total: PageTotal({ description: 'channels across all pages' }), data: Type.Array(BookingChannel, { maxItems: 50 }) });

export const ChannelParams = Type.Object({ bookingChannelId: IdText('booking channel id') });

/** What link-venues / unlink-venues answer (spec 4.2): the distinct venue ids of the request. */
export const LinkedVenues = Type.Object({
  venues: Type.Array(Uuid(), { maxItems: 10_000, description: 'the venue ids of the request, each once, in request order' }),
});
