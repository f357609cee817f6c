import Type, { type Static } from 'typebox';
import { pageQuery } from '../lib/pagination.ts';
import { Nullable, Timestamp } from '../server/schemas.ts';
import { EVENT_CATALOGUE } from './webhooks.fns.ts';

// The webhooks API's shapes (DESIGN 8.5): validation, types and OpenAPI from one source. Event type
// names are checked by the service (webhooks.fns.ts), so an unknown one is a 400 that lists them all.

const EventTypes = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: 50,
  description: `event types to receive, from the catalogue: ${EVENT_CATALOGUE.join(', ')}`,
});
const Url = Type.String({ maxLength: 2000, description: 'https URL that receives the POSTs; not a loopback, private or metadata address' });
const Description = Type.String({ maxLength: 500 });

export const CreateEndpointBody = Type.Object({ url: Url, events: EventTypes, description: Type.Optional(Description) });
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

export const UpdateEndpointBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(EventTypes),
  description: Type.Optional(Nullable(Description)),
  status: Type.Optional(Type.Enum(['enabled', 'disabled'], { description: 'enable a disabled endpoint again, or pause one' })),
});
export type UpdateEndpointBody = Static<typeof UpdateEndpointBody>;

export const Endpoint = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    description: Nullable(Type.String()),
    events: Type.Array(Type.String()),
    status: Type.Enum(['enabled', 'disabled']),
    disabledReason: Nullable(
      Type.Enum(['answered_410', 'failing_5_days', 'by_partner'], { description: 'why a disabled endpoint receives nothing' }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'WebhookEndpoint' },
);
export type Endpoint = Static<typeof Endpoint>;

export const EndpointWithSecret = Type.Object({
  ...Endpoint.properties,
  secret: Type.String({ description: 'whsec_…: the signing secret, shown only in this answer' }),
});
export type EndpointWithSecret = Static<typeof EndpointWithSecret>;

export const EndpointList = Type.Object({ total: Type.Integer(), data: Type.Array(Endpoint) });

export const EndpointParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const ListQuery = Type.Object({
  ...pageQuery({ defaultLimit: 10, maxLimit: 50 }),
  // Past a billion is a 400 naming it, not a database range error.
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'records to skip (default 0)' })),
});

export const RotatedSecret = Type.Object({
  secret: Type.String({ description: 'the new whsec_ secret, shown once' }),
  previousSecretExpiresAt: Timestamp,
});

export const DeliveryAttempt = Type.Object({
  webhookId: Type.String({ description: 'the webhook-id header: the same for every attempt of one event' }),
  type: Type.String(),
  attempt: Type.Integer({ description: '1 for the first try' }),
  status: Type.Enum(['succeeded', 'failed']),
  responseCode: Nullable(Type.Integer({ description: "the endpoint's HTTP status; null when it gave none (refused, timed out, reset)" })),
  error: Nullable(Type.String({ description: 'why it failed, when it did' })),
  durationMs: Type.Integer(),
  at: Timestamp,
});
export const DeliveryList = Type.Object({ total: Type.Integer(), data: Type.Array(DeliveryAttempt) });

export const RecoverBody = Type.Object({
  since: Type.String({ format: 'date-time', description: 'window start (inclusive), ISO 8601 with offset' }),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'window end (inclusive); default now' })),
});
export type RecoverBody = Static<typeof RecoverBody>;

export const Recovered = Type.Object({
  resent: Type.Integer({ description: 'deliveries that had failed or were waiting for a retry, sent again now' }),
  missed: Type.Integer({ description: 'events of the window the endpoint had not been sent, sent now' }),
});

export const TestResult = Type.Object({
  webhookId: Type.String(),
  status: Type.Enum(['succeeded', 'failed']),
  responseCode: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  durationMs: Type.Integer(),
});
