import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../server/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../server/schemas.ts';
import { Bill, VenueTableParams } from './bill.schemas.ts';
import type { BillService } from './bill.service.ts';

export const billRoutes: FastifyPluginAsyncTypebox<{ bill: BillService }> = async (app, { bill }) => {
  app.get(
    '/v1/pat/venue/:venueId/table/:tableId/bill',
    {
      config: { auth: 'pat' },
      schema: {
        tags: ['pay-at-table'],
        security: [{ accessToken: [] }],
        operationId: 'getTableBill',
        summary: 'The open bill of a table',
        description:
          'The open bill of a table: its order, checks, items and totals. Charge totalDue (plus any tip), not total; ' +
          're-fetch the bill between partial payments. Read live from the POS where the venue supports bill retrieval, ' +
          'else from the stored order. A table with no open order, or an unknown table id, is a 404. A venue outside the ' +
          "token's scope, or an unknown venue id, is a 403 (never a 404); a venue in scope with no active POS connection " +
          'is a 404 ("no POS connection found"). A POS that cannot be reached is a 502. Auth: an access token ' +
          '(`Authorization: Bearer tat_…`, from POST /oauth/token) of a partner with pay-at-table access: a missing ' +
          'header is a 403; an invalid, expired or revoked token is a 401 in OAuth style (WWW-Authenticate: Bearer ' +
          'error="invalid_token"); a partner without pay-at-table access is a 403.',
        params: VenueTableParams,
        response: { 200: Bill, ...errorResponses('pat', [...AUTH_ERRORS, 404, 502]) },
      },
    },
    async (request) => bill.get(principalOf(request).partnerId, request.params.venueId, request.params.tableId),
  );
};
