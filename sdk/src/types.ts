import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';

// The paths as the SDK offers them: the generated `paths`, except that a booking create's
// Idempotency-Key header is optional (the client sends a random one when you give none).

type IdempotencyKeyOptional<Op> = Op extends { parameters: { header: infer H } }
  ? Omit<Op, 'parameters'> & {
      parameters: Omit<Op['parameters'], 'header'> & { header?: Omit<H, 'idempotency-key'> & { 'idempotency-key'?: string } };
    }
  : Op;

export type TablesidePaths = Omit<paths, '/v1/bc/bookings'> & {
  '/v1/bc/bookings': Omit<paths['/v1/bc/bookings'], 'post'> & { post: IdempotencyKeyOptional<paths['/v1/bc/bookings']['post']> };
};

/** The client `createTablesideClient` returns: openapi-fetch's, typed by path. */
export type TablesideClient = Client<TablesidePaths, 'application/json'>;
