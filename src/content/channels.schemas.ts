import Type, { type Static } from 'typebox';
import { ContentPage, Text } from './content.schemas.ts';

export const BookingChannel = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    logo: Type.String({ description: 'URL of the channel logo' }),
  },
  { $id: 'BookingChannel' },
);
export type BookingChannel = Static<typeof BookingChannel>;

export const ListChannelsQuery = Type.Object({
  ...ContentPage(),
  'filters[criteria]': Type.Optional(Text({ minLength: 0, description: 'part of the channel name, case-insensitive' })),
});
export type ListChannelsQuery = Static<typeof ListChannelsQuery>;

export const ChannelList = Type.Object({ total: Type.Integer(), data: Type.Array(BookingChannel) });

export const ChannelParams = Type.Object({ bookingChannelId: Type.String({ description: 'booking channel id' }) });

/** What link-venues / unlink-venues answer (spec 4.2): the distinct venue ids of the request. */
export const LinkedVenues = Type.Object({
  venues: Type.Array(Type.String(), { description: 'the venue ids of the request, each once, in request order' }),
});
