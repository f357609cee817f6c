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
        description:
          "The booking channels (the operator's, the same for every content partner), paged with offset and limit (0..50, " +
          'default 10); filters[criteria] matches part of the name, case-insensitively. Auth: a content API key ' +
          '(`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or revoked, 403 when the partner has no ' +
          'content access.',
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
        description:
          'Makes the venues bookable through the channel. Every id must be one of your venues, else 403 naming each ' +
          'refused position and nothing changes. Answers the distinct ids of the request, in request order. An unknown ' +
          'channel is a 404. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or ' +
          'revoked, 403 when the partner has no content access.',
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
        description:
          'Stops the venues being bookable through the channel. Every id must be one of your venues, else 403 naming each ' +
          'refused position and nothing changes. Answers the distinct ids of the request, in request order. An unknown ' +
          'channel is a 404. Auth: a content API key (`Authorization: Bearer tsk_…`); 401 when it is missing, invalid or ' +
          'revoked, 403 when the partner has no content access.',
        params: ChannelParams,
        body: VenueIdsBody,
        response: { 200: LinkedVenues, ...errorResponses('rms', LINK_ERRORS) },
      },
    },
    async (request) => channels.unlinkVenues(principalOf(request).partnerId, request.params.bookingChannelId, request.body.venues),
  );
};
