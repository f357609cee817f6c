import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import type { ChannelsService } from './channels.service.ts';
import { ChannelList, ChannelParams, LinkedVenues, ListChannelsQuery } from './channels.schemas.ts';
import { LocaleHeaders, VenueIdsBody } from './content.schemas.ts';

const common = { tags: ['content'], security: [{ apiKey: [] }], headers: LocaleHeaders };
const LINK_ERRORS = [...AUTH_ERRORS, 404, 413, 415];

export const channelsRoutes: FastifyPluginAsyncTypebox<{ channels: ChannelsService }> = async (app, { channels }) => {
  app.get(
    '/v1/rms/booking-channels',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'listBookingChannels',
        summary: 'List booking channels',
        querystring: ListChannelsQuery,
        response: { 200: ChannelList, ...errorResponses('rms', AUTH_ERRORS) },
      },
    },
    async (request) => channels.list(request.query),
  );

  app.put(
    '/v1/rms/booking-channels/:bookingChannelId/link-venues',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'linkChannelVenues',
        summary: 'Make venues bookable through a booking channel',
        description: 'Every id must be one of your venues, else 403 and nothing changes. Answers the distinct ids of the request.',
        params: ChannelParams,
        body: VenueIdsBody,
        response: { 200: LinkedVenues, ...errorResponses('rms', LINK_ERRORS) },
      },
    },
    async (request) => channels.linkVenues(principalOf(request).partnerId, request.params.bookingChannelId, request.body.venues),
  );

  app.put(
    '/v1/rms/booking-channels/:bookingChannelId/unlink-venues',
    {
      config: { auth: 'rms' },
      schema: {
        ...common,
        operationId: 'unlinkChannelVenues',
        summary: 'Stop venues being bookable through a booking channel',
        description: 'Every id must be one of your venues, else 403 and nothing changes. Answers the distinct ids of the request.',
        params: ChannelParams,
        body: VenueIdsBody,
        response: { 200: LinkedVenues, ...errorResponses('rms', LINK_ERRORS) },
      },
    },
    async (request) => channels.unlinkVenues(principalOf(request).partnerId, request.params.bookingChannelId, request.body.venues),
  );
};
