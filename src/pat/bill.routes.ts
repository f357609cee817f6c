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
        description: 'Charge totalDue (plus any tip), not total. Re-fetch the bill between partial payments.',
        params: VenueTableParams,
        response: { 200: Bill, ...errorResponses('pat', [...AUTH_ERRORS, 404, 502]) },
      },
    },
    async (request) => bill.get(principalOf(request).partnerId, request.params.venueId, request.params.tableId),
  );
};
