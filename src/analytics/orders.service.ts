import type { Db } from '../db/db.ts';
import { forbidden, notFound, validationFailed, type FieldProblems } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import { resolveWindow, toClosedOrder, zoneFreeWindow } from './orders.fns.ts';
import * as repo from './orders.repository.ts';
import { DEFAULT_ORDERS_LIMIT, type ClosedOrderList } from './orders.schemas.ts';

// GET /v1/pos/venue/{venueId}/order (spec 4.8): a venue's closed orders, served from the store only
// (DES-085). Checks run in this order: the venue exists (404), it is in the token's scope (403,
// never revealing more about a venue the caller cannot see), then the query (400, every offending
// field at once).

export interface AnalyticsOrdersDeps {
  db: Pick<Db, 'kysely'>;
}

export interface ClosedOrdersRequest {
  from?: string;
  until?: string;
  limit?: number;
  offset?: number;
}

const noSuchVenue = (venueId: string) => notFound(`No venue ${venueId}.`);
const outOfScope = () => forbidden('The venue is not in this token’s scope.');

const toPage = ({ total, orders }: { total: number; orders: repo.ClosedOrderRow[] }): ClosedOrderList => ({ total, orders: orders.map(toClosedOrder) });

export function createAnalyticsOrdersService({ db }: AnalyticsOrdersDeps) {
  return {
    /**
     * `schemaProblems` are the query's problems found by schema validation (missing or unparseable
     * bounds, limit, offset); the window rules are added to them, so one 400 names every field.
     */
    async listClosedOrders(
      partnerId: string,
      venueId: string,
      query: ClosedOrdersRequest,
      schemaProblems: FieldProblems = {},
    ): Promise<ClosedOrderList> {
      const page = { limit: query.limit ?? DEFAULT_ORDERS_LIMIT, offset: query.offset ?? 0 };
      // A window whose bounds both carry an offset needs no venue time zone, so the venue check and
      // the page go in one statement (issue 14). The checks' order and answers are the same: a
      // window found wrong here is left to the path below, which reports it after the venue checks.
      const early = isUuid(venueId) && Object.keys(schemaProblems).length === 0 ? zoneFreeWindow(query.from, query.until) : null;
      if (early?.ok) {
        const scoped = await repo.pageClosedOrdersInScope(db, venueId, partnerId, early, page);
        if (!scoped) throw noSuchVenue(venueId);
        if (!scoped.inScope) throw outOfScope();
        return toPage(scoped);
      }

      const venue = isUuid(venueId) ? await repo.findVenue(db, venueId, partnerId) : null;
      if (!venue) throw noSuchVenue(venueId);
      if (!venue.in_scope) throw outOfScope();

      const problems: FieldProblems = { ...schemaProblems };
      for (const field of ['from', 'until'] as const) if (query[field] === undefined) problems[field] ??= ['is required'];
      let window: { from: Date; until: Date } | null = null;
      if (!problems.from && !problems.until) {
        const resolved = resolveWindow(query.from!, query.until!, venue.timezone);
        if (resolved.ok) window = resolved;
        else for (const [field, list] of Object.entries(resolved.problems)) problems[field] = [...(problems[field] ?? []), ...list];
      }
      if (!window || Object.keys(problems).length > 0) throw validationFailed(problems);

      return toPage(await repo.pageClosedOrders(db, venue.id, window, page));
    },
  };
}

export type AnalyticsOrdersService = ReturnType<typeof createAnalyticsOrdersService>;
