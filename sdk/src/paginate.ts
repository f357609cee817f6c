import type { FetchOptions } from 'openapi-fetch';
import { unwrap } from './errors.js';
import type { TablesideClient, TablesidePaths } from './types.js';

// paginate(): every item of an offset/limit list, page after page. The lists answer
// `{total, data}` (content API, channel venues, webhook endpoints and deliveries), `{total, venues}`
// (GET /v1/pat/venues) or `{total, orders}` (analytics closed orders).

type JsonOk<Op> = Op extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
type GetBody<P extends keyof TablesidePaths> = TablesidePaths[P] extends { get: infer Op } ? JsonOk<Op> : never;
type Items<B> = B extends { total: number; data: Array<infer I> }
  ? I
  : B extends { total: number; venues: Array<infer I> }
    ? I
    : B extends { total: number; orders: Array<infer I> }
      ? I
      : never;

/** The paths `paginate` walks: GETs answering a `{total, …[]}` page. */
export type PaginatedPath = { [P in keyof TablesidePaths]: [Items<GetBody<P>>] extends [never] ? never : P }[keyof TablesidePaths];

/** The item type of a paginated path (`PageItem<'/v1/rms/venues'>` is a content venue). */
export type PageItem<P extends PaginatedPath> = Items<GetBody<P>>;

type GetInit<P extends PaginatedPath> = TablesidePaths[P] extends { get: infer Op } ? FetchOptions<Op> : never;
/** The call's options, required when the path has required parameters (a path id, a date range). */
type InitArg<P extends PaginatedPath> = {} extends GetInit<P> ? [init?: GetInit<P>] : [init: GetInit<P>];

/** Page size when the call gives no `limit`: the largest every list accepts. */
export const DEFAULT_PAGE_SIZE = 50;

/**
 * Yields every item of the list, fetching the next page when the last is used up; stops at `total`.
 * `query.offset` starts elsewhere, `query.limit` sets the page size. A failed page throws TablesideError.
 */
export async function* paginate<P extends PaginatedPath>(client: TablesideClient, path: P, ...[init]: InitArg<P>): AsyncGenerator<PageItem<P>, void, undefined> {
  const options = (init ?? {}) as { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;
  const query = options.params?.query ?? {};
  let offset = typeof query.offset === 'number' ? query.offset : 0;
  const limit = typeof query.limit === 'number' && query.limit > 0 ? query.limit : DEFAULT_PAGE_SIZE;
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  for (;;) {
    const page = unwrap(await get(path, { ...options, params: { ...options.params, query: { ...query, offset, limit } } })) as {
      total: number;
      data?: PageItem<P>[];
      venues?: PageItem<P>[];
      orders?: PageItem<P>[];
    };
    const items = page.data ?? page.venues ?? page.orders ?? [];
    for (const item of items) yield item;
    offset += items.length;
    if (items.length === 0 || offset >= page.total) return;
  }
}
