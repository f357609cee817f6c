// @tableside/sdk: a typed client for the Tableside API (see README.md).
export { createTablesideClient, type TablesideClientOptions } from './client.js';
export type { Credentials } from './auth.js';
export { TablesideError, unwrap } from './errors.js';
export { paginate, DEFAULT_PAGE_SIZE, type PaginatedPath, type PageItem } from './paginate.js';
export { DEFAULT_RETRY, RETRY_STATUSES, type RetryOptions } from './retry.js';
export type { TablesideClient, TablesidePaths } from './types.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type TablesideEvent,
  type TablesideEventType,
  type WebhookHeaders,
} from './webhooks.js';
export type { paths, components, operations, webhooks } from './schema.js';
