import Type, { type Static } from 'typebox';
import { DateTime, Int32, Nullable, Str, Timestamp, Uuid } from '../server/schemas.ts';
import { pageQuery, PageTotal } from '../lib/pagination.ts';
import { EVENT_CATALOGUE, TEST_EVENT_TYPE } from './webhooks.fns.ts';

// The webhooks API's shapes (DESIGN 8.5): validation, types and OpenAPI from one source. Event type
// names are checked by the service (webhooks.fns.ts), so an unknown one is a 400 that lists them all.

/** Subscriptions name at most this many types on input; what is stored is a subset of the catalogue. */
const MAX_SUBSCRIBED = 50;

// What a schema can state, it states (issue 30): the catalogue as an enum, at least one type, each
// once; the URL's scheme. Who may subscribe to what (a channel: its booking events) and where a URL
// may point (no private address) stay the service's (webhooks.fns.ts, lib/outbound-url.ts).
const EventTypes = Type.Array(Type.Enum([...EVENT_CATALOGUE], { 'x-problem': 'is not an event type of the catalogue (DESIGN 8.5; docs/webhooks.md lists them)' }), {
  minItems: 1,
  maxItems: MAX_SUBSCRIBED,
  uniqueItems: true,
  description: 'event types to receive, each once, from the catalogue',
});
/** https, or (in the sandbox only, which the service decides) plain http to this machine. */
const URL_PATTERN = '^(https://[^\\u0000\\s/?#]+|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:[0-9]{1,5})?)([/?#][^\\u0000\\s]*)?$';
const UrlIn = Str(2000, { pattern: URL_PATTERN, 'x-problem': 'must be an https URL', description: 'https URL that receives the POSTs; not a loopback, private or metadata address. In the sandbox only, also http://localhost, http://127.0.0.1 or http://[::1] (a receiver on your own machine, no certificate needed)' });
const Description = Str(500);

export const CreateEndpointBody = Type.Object({ url: UrlIn, events: EventTypes, description: Type.Optional(Description) });
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

export const UpdateEndpointBody = Type.Object({
  url: Type.Optional(UrlIn),
  events: Type.Optional(EventTypes),
  description: Type.Optional(Nullable(Description)),
  status: Type.Optional(Type.Enum(['enabled', 'disabled'], { description: 'enable a disabled endpoint again, or pause one' })),
});
export type UpdateEndpointBody = Static<typeof UpdateEndpointBody>;

/** An event type of the catalogue (what a subscription may name). */
export const EventType = Type.Enum([...EVENT_CATALOGUE]);
/** An event type a delivery may carry: the catalogue's and the test event. */
export const DeliveredType = Type.Enum([...EVENT_CATALOGUE, TEST_EVENT_TYPE]);

export const Endpoint = Type.Object(
  {
    id: Uuid(),
    url: Str(2000, { description: 'the https URL that receives the POSTs' }),
    description: Nullable(Description),
    events: Type.Array(EventType, { maxItems: EVENT_CATALOGUE.length, description: 'the event types it receives' }),
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

/** `whsec_` and 32 random bytes in base64 (delivery.service.ts newSigningSecret). */
const Secret = (description: string) => Type.String({ maxLength: 50, pattern: '^whsec_[A-Za-z0-9+/]{43}=$', description });

export const EndpointWithSecret = Type.Object({
  ...Endpoint.properties,
  secret: Secret('whsec_…: the signing secret, shown only in this answer'),
});
export type EndpointWithSecret = Static<typeof EndpointWithSecret>;

const Total = (description: string) => PageTotal({ description });

export const EndpointList = Type.Object({ total: Total('endpoints across all pages'), data: Type.Array(Endpoint, { maxItems: 50 }) });

export const EndpointParams = Type.Object({ id: Str(64, { description: 'the endpoint id' }) });
export const ListQuery = Type.Object(pageQuery({ defaultLimit: 10, maxLimit: 50 }));

export const RotatedSecret = Type.Object({
  secret: Secret('the new whsec_ secret, shown once'),
  previousSecretExpiresAt: Timestamp,
});

/** Standard Webhooks' message id: `msg_` and the delivery's UUID without dashes (webhooks.fns.ts webhookIdOf). */
export const WebhookId = (description: string) => Type.String({ maxLength: 36, pattern: '^msg_[0-9a-f]{32}$', description });

const ResponseCode = Nullable(Int32(100, 999, { description: "the endpoint's HTTP status; null when it gave none (refused, timed out, reset)" }));
const AttemptError = Nullable(Str(500, { description: 'why it failed, when it did (the start of the answer, or the connection problem)' }));
const DurationMs = Int32(0, 2_147_483_647, { description: 'how long the attempt took' });

export const DeliveryAttempt = Type.Object({
  webhookId: WebhookId('the webhook-id header: the same for every attempt of one event'),
  type: DeliveredType,
  attempt: Int32(1, 2_147_483_647, { description: '1 for the first try (recover continues the count)' }),
  status: Type.Enum(['succeeded', 'failed']),
  responseCode: ResponseCode,
  error: AttemptError,
  durationMs: DurationMs,
  at: Timestamp,
});
export const DeliveryList = Type.Object({ total: Total('attempts across all pages'), data: Type.Array(DeliveryAttempt, { maxItems: 50 }) });

export const RecoverBody = Type.Object({
  since: DateTime({ description: 'window start (inclusive), ISO 8601 with offset; not in the future' }),
  until: Type.Optional(DateTime({ description: 'window end (inclusive), not before since; default now' })),
});
export type RecoverBody = Static<typeof RecoverBody>;

/**
 * The most deliveries (and missed events) one recover call sends (endpoints.service.ts), so its one
 * transaction stays bounded; a partner with more calls it again for the rest.
 */
export const RECOVER_LIMIT = 5000;

export const Recovered = Type.Object({
  resent: Int32(0, RECOVER_LIMIT, { description: 'deliveries that had failed or were waiting for a retry, sent again now' }),
  missed: Int32(0, RECOVER_LIMIT, { description: 'events of the window the endpoint had not been sent, sent now' }),
});

export const TestResult = Type.Object({
  webhookId: WebhookId('the webhook-id of the test delivery'),
  status: Type.Enum(['succeeded', 'failed']),
  responseCode: ResponseCode,
  error: AttemptError,
  durationMs: DurationMs,
});
