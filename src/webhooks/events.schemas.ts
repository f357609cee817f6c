import Type, { type TSchema } from 'typebox';
import { PosCode } from '../pos/pos-limits.ts';
import { MAX_FAILURE_REASON } from '../pos-mirror/reservation-orders.service.ts';
import { CurrencyCode, DateTime, INT32_MAX, Int32, Int64, Nullable, Str, Timestamp, Uuid } from '../server/schemas.ts';
import { CHANNEL_EVENT_TYPES, EVENT_CATALOGUE, TEST_EVENT_TYPE, type EventType } from './webhooks.fns.ts';
import { WebhookId } from './webhooks.schemas.ts';

// What a webhook receiver reads (DESIGN 8.5): one schema per event type, each the body
// `{type, timestamp, data}` that delivery.service.ts POSTs, where `data` is exactly what the feature
// that emits the event writes to the outbox (db/outbox.ts emit()) plus the `entityId` and per-entity
// `sequence` that webhooks.fns.ts eventBody() adds. Limits of the shared modules (pos/, pos-mirror/)
// are imported; the emitting features (pat, rms, onboarding) are not imported by this one, so the few
// lists they own are written here and test/webhooks/events.schemas.test.ts checks them against their
// sources and every event a real flow delivers against its schema. The platform puts webhookDocument() into the
// OpenAPI document's `webhooks` section.

// ---- Limits of values that come from other features (checked against their sources by the test) ----

/** pat/payments.fns.ts FAILURE_CODES. */
export const PAYMENT_FAILURE_CODES = ['pos_confirmation_timeout', 'pos_check_not_found', 'pos_overpaid', 'pos_config_missing'] as const;
/** rms/rms-client.fns.ts BOOKING_STATUSES. */
export const BOOKING_STATUSES = ['pending_confirmation', 'requires_payment', 'confirmed', 'rejected', 'canceled', 'no-show', 'seated', 'completed'] as const;
/** rms/rms-client.fns.ts MAX_PARTY_SIZE, MAX_BOOKING_TABLES, MAX_NOTES. */
export const BOOKING_LIMITS = { partySize: 9999, tables: 100, notes: 5000 } as const;
/** rms/seated-reservations.schemas.ts: a seated event's party size, tables and items. */
export const SEATING_LIMITS = { partySize: 1000, tables: 50, items: 200 } as const;

// ---- Building blocks ----

const Sequence = Int64(1, Number.MAX_SAFE_INTEGER, { description: "the event's place among this entity's events (1, 2, …): order by it what arrives out of order" });
/** An id of the RMS's or the POS's own (at most 200 characters, as they are read). */
const ForeignId = (description: string) => Str(200, { minLength: 1, description });
/** A POS type code (pos/pos-types.ts CODE). */
const PosTypeCode = PosCode({ description: 'the POS type code (GET /v1/pat/pos-types)' });
const Money = (description: string) => Type.Number({ minimum: 0, description: `${description}, a decimal in the venue's currency` });

/** `data` with the entity id and sequence every delivered event carries. */
function data(properties: Record<string, TSchema>, entity: TSchema, description: string) {
  return Type.Object({ ...properties, entityId: entity, sequence: Sequence }, { description });
}

function envelope(type: string, dataSchema: TSchema) {
  return Type.Object(
    {
      type: Type.Literal(type),
      timestamp: DateTime({ description: 'when the event happened (ISO 8601, UTC); the same on every retry' }),
      data: dataSchema,
    },
    { description: `The body of a ${type} delivery.` },
  );
}

// ---- Payments (pat/payments.repository.ts announceOutcome, pat/payments.outcomes.ts noteLateAnswer) ----

const paymentData = (status: 'confirmed' | 'failed') =>
  data(
    {
      paymentId: Uuid(),
      orderId: Uuid({ description: "Tableside's order id" }),
      status: Type.Literal(status),
      failureCode: status === 'failed'
        ? Type.Enum([...PAYMENT_FAILURE_CODES], { description: 'why it failed' })
        : Type.Null({ description: 'null: it did not fail' }),
      type: Type.Enum(['full', 'partial']),
      amount: Money('charged, tip included'),
      currency: Nullable(CurrencyCode({ description: "the payment request's currency, echoed; null when it gave none" })),
      paymentMethod: Nullable(Str(200)),
      tip: Nullable(Money('the part of amount that is tip')),
      externalReference: Str(128, { minLength: 1, description: "the partner's idempotency key of the payment" }),
      recordedAt: Timestamp,
      confirmedAt: status === 'confirmed' ? Nullable(Timestamp) : Type.Null(),
      venueId: Uuid(),
    },
    Uuid({ description: 'the payment id' }),
    'The payment as GET …/payments/{externalReference} answers it (without orderStatus), with its venue.',
  );

const lateConfirmation = data(
  {
    paymentId: Uuid(),
    externalReference: Str(128, { minLength: 1 }),
    orderId: Uuid(),
    venueId: Uuid(),
    posStatus: Type.Literal('confirmed', { description: 'what the POS answered after the payment had failed' }),
    failureCode: Type.Literal('pos_confirmation_timeout', { description: 'the failure recorded before the POS answered' }),
  },
  Uuid({ description: 'the payment id' }),
  'A POS confirmed a payment after its confirmation timeout: it stays failed; reconcile it with the venue.',
);

// ---- Orders and POS connections (pos-mirror/orders.repository.ts, connections.repository.ts, onboarding) ----

const orderClosed = data(
  {
    orderId: Uuid(),
    venueId: Uuid(),
    posOrderId: ForeignId("the POS's order id"),
    closedAt: Nullable(Timestamp),
    closedBy: Nullable(Type.Enum(['pos', 'pat'], { description: 'pos: closed on the POS; pat: settled by pay-at-table payments' })),
  },
  Uuid({ description: 'the order id' }),
  'An order closed.',
);

const venueOnboarded = data(
  { venueId: Uuid(), posType: PosTypeCode, posVenueId: ForeignId("the POS location id the restaurant entered") },
  Uuid({ description: 'the venue id' }),
  'A restaurant completed its onboarding page: the venue is connected to its POS location.',
);

const connectionData = (status: 'active' | 'suspended') =>
  data(
    {
      venueId: Uuid(),
      posType: PosTypeCode,
      status: Type.Literal(status),
      reason: status === 'suspended'
        ? Type.Enum(['credentials_refused', 'operator'], { description: 'credentials_refused: the POS refused the credentials; operator: suspended by the operator' })
        : Type.Null(),
    },
    Uuid({ description: 'the venue id' }),
    status === 'suspended' ? "The venue's POS connection is suspended." : "The venue's POS connection is active again.",
  );

// ---- Bookings (rms/bookings.fns.ts bookingView) ----

const bookingData = data(
  {
    id: Uuid({ description: "Tableside's booking id" }),
    bookingId: Uuid({ description: 'the same' }),
    rmsBookingId: Nullable(ForeignId("the reservation system's booking id")),
    venueId: Uuid({ description: "Tableside's venue id" }),
    rmsVenueId: Str(255, { minLength: 1, description: "the venue's externalId (the reservation system's venue id)" }),
    channel: Nullable(Type.Object({ id: Uuid(), name: Str(255, { minLength: 1 }) }, { description: 'the booking channel it was made through' })),
    status: Nullable(Type.Enum([...BOOKING_STATUSES], { description: 'null while the reservation system has not answered' })),
    partySize: Int32(1, BOOKING_LIMITS.partySize),
    date: Timestamp,
    areaId: Nullable(ForeignId('the area')),
    tables: Nullable(Type.Array(ForeignId('a table of the reservation system'), { maxItems: BOOKING_LIMITS.tables })),
    contact: Type.Object({
      firstname: Str(100),
      lastname: Str(100),
      email: Str(254),
      telephone: Str(40),
      locale: Type.Optional(Str(20)),
    }, { description: 'as the channel gave it' }),
    notes: Nullable(Str(BOOKING_LIMITS.notes)),
    deposit: Nullable(Type.Object({ amount: Money('the deposit'), currency: CurrencyCode(), paid: Type.Boolean() })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  Uuid({ description: "Tableside's booking id" }),
  'The booking as Tableside holds it after the change.',
);

/** What a booking channel's endpoint reads (channels/channel-events.ts): GET /v1/bc/bookings/{id}, plus previousStatus and changedBy. */
const BookingStatus = (description: string) => Type.Enum([...BOOKING_STATUSES], { description });
const channelBookingData = data(
  {
    id: Uuid({ description: "Tableside's booking id" }),
    venueId: Uuid({ description: "Tableside's venue id" }),
    channelId: Nullable(Uuid({ description: 'your channel id' })),
    status: Nullable(BookingStatus('null while the reservation system has not answered')),
    partySize: Int32(1, BOOKING_LIMITS.partySize),
    start: Timestamp,
    contact: Type.Object({ firstName: Str(100), lastName: Str(100), email: Str(254), phone: Str(40), locale: Type.Optional(Str(20)) }, { description: 'as you gave it' }),
    notes: Nullable(Str(BOOKING_LIMITS.notes)),
    deposit: Nullable(Type.Object({ amount: Money('the deposit'), currency: CurrencyCode(), paid: Type.Boolean() })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    previousStatus: Nullable(BookingStatus('the status before this change; null on booking.created')),
    changedBy: Type.Enum(['channel', 'venue', 'system'], { description: 'channel: your own call; venue: the restaurant, at its reservation system; system: Tableside itself (a create it resolved, a booking it cancelled)' }),
  },
  Uuid({ description: "Tableside's booking id" }),
  'The booking exactly as GET /v1/bc/bookings/{id} answered it right after the change, plus previousStatus and changedBy.',
);

// ---- Seating (pos-mirror/reservation-orders.service.ts) ----

const seatingFields = {
  bookingId: ForeignId("the reservation system's booking id"),
  orderId: Uuid({ description: "Tableside's order id (the bill's and payments')" }),
  venueId: Uuid(),
};
const unknownSkus = (minItems: number) =>
  Type.Array(ForeignId('a SKU of the seated event'), { minItems, maxItems: SEATING_LIMITS.items, description: 'SKUs of the event the POS did not know: the order was opened without them' });
const posOrderData = (skus: TSchema, description: string) =>
  data(
    {
      ...seatingFields,
      posOrderId: ForeignId("the POS's order id"),
      tables: Type.Array(ForeignId('a POS table id'), { minItems: 1, maxItems: SEATING_LIMITS.tables }),
      partySize: Int32(1, SEATING_LIMITS.partySize),
      unknownSkus: skus,
    },
    Uuid({ description: 'the order id' }),
    description,
  );

const posOrderFailed = data(
  { ...seatingFields, reason: Str(MAX_FAILURE_REASON, { description: 'what went wrong (the POS refused the order, or could not be reached for an hour)' }) },
  Uuid({ description: 'the order id' }),
  'The POS order of a seated booking could not be opened; send the seated event again to retry.',
);

// ---- Feeds and the webhooks feature's own events ----

const feedProcessed = data(
  {
    nonce: Str(200, { minLength: 1 }),
    date: Nullable(Timestamp),
    records: Int32(0, INT32_MAX),
    venues: Int32(0, INT32_MAX),
    completedAt: Timestamp,
  },
  Str(200, { minLength: 1, description: 'the nonce' }),
  'Every shard of an availability feed arrived: its records are now the snapshot channels are answered from.',
);

const endpointDisabled = data(
  {
    endpointId: Uuid(),
    url: Str(2000),
    reason: Type.Enum(['answered_410', 'failing_5_days'], { description: 'answered_410: it answered 410 Gone; failing_5_days: every attempt failed for 5 days' }),
    disabledAt: Timestamp,
  },
  Uuid({ description: 'the endpoint id' }),
  'One of your endpoints was disabled; enable it again with PUT …/endpoints/{id} {"status":"enabled"} and recover what it missed.',
);

const testData = Type.Object(
  { endpointId: Uuid(), entityId: Uuid({ description: 'the endpoint id' }), sequence: Type.Null({ description: 'a test event has no sequence' }) },
  { description: 'Sent by POST /v1/webhooks/endpoints/{id}/test only.' },
);

// ---- The catalogue ----

export type DeliveredEventType = EventType | typeof TEST_EVENT_TYPE;

export interface WebhookEventDoc {
  summary: string;
  description: string;
  schema: TSchema;
}

const SCOPE_PAYMENT = 'Sent to the partner whose payment it is.';
const SCOPE_VENUE = 'Sent to every partner that sees the venue.';
const SCOPE_BOOKING = "Sent to the venue's reservation-system partner.";
const SCOPE_SEATING = 'Sent to the reservation-system partner that sent the seated event.';

const event = (type: DeliveredEventType, summary: string, description: string, dataSchema: TSchema): WebhookEventDoc => ({
  summary,
  description,
  schema: envelope(type, dataSchema),
});

export const WEBHOOK_EVENTS: Record<DeliveredEventType, WebhookEventDoc> = {
  'payment.confirmed': event('payment.confirmed', 'A payment was confirmed', `The POS confirmed the payment (or it was recorded confirmed at once). ${SCOPE_PAYMENT}`, paymentData('confirmed')),
  'payment.failed': event('payment.failed', 'A payment failed', `The POS refused the payment or did not confirm it in time (failureCode says which). ${SCOPE_PAYMENT}`, paymentData('failed')),
  'payment.late_confirmation': event('payment.late_confirmation', 'A failed payment was confirmed late by the POS', `The payment stays failed; the venue and the partner reconcile it. ${SCOPE_PAYMENT}`, lateConfirmation),
  'order.closed': event('order.closed', 'An order closed', `On the POS, or settled by pay-at-table payments. ${SCOPE_VENUE}`, orderClosed),
  'venue.onboarded': event('venue.onboarded', 'A venue connected its POS', `The restaurant completed its onboarding page. ${SCOPE_VENUE}`, venueOnboarded),
  'pos_connection.suspended': event('pos_connection.suspended', "A venue's POS connection was suspended", `Pay-at-table answers 404 for the venue until it resumes. ${SCOPE_VENUE}`, connectionData('suspended')),
  'pos_connection.resumed': event('pos_connection.resumed', "A venue's POS connection resumed", `The connection is active again. ${SCOPE_VENUE}`, connectionData('active')),
  'booking.created': event('booking.created', 'A booking was made through Tableside', `The reservation system accepted a booking a channel made. ${SCOPE_BOOKING}`, bookingData),
  'booking.updated': event('booking.updated', 'A booking changed', `Its party size, time, status, tables, notes or deposit changed. ${SCOPE_BOOKING}`, bookingData),
  'booking.canceled': event('booking.canceled', 'A booking was cancelled', `Its status became canceled. ${SCOPE_BOOKING}`, bookingData),
  'booking.seated': event('booking.seated', 'A booking was seated', `Its status became seated (the POS order follows with the seated event). ${SCOPE_BOOKING}`, bookingData),
  'booking.confirmed': event('booking.confirmed', 'A booking was confirmed', `Its status became confirmed (the restaurant accepted it). ${SCOPE_BOOKING}`, bookingData),
  'booking.rejected': event('booking.rejected', 'A booking was rejected', `Its status became rejected (the restaurant declined it). ${SCOPE_BOOKING}`, bookingData),
  'booking.no_show': event('booking.no_show', 'A booking was marked a no-show', `Its status became no-show. ${SCOPE_BOOKING}`, bookingData),
  'booking.completed': event('booking.completed', 'A booking was completed', `Its status became completed (the guests left). ${SCOPE_BOOKING}`, bookingData),
  'pos_order.opened': event('pos_order.opened', "A seated booking's POS order was opened", `Once per booking; unknownSkus lists the SKUs left out. ${SCOPE_SEATING}`, posOrderData(unknownSkus(0), 'The POS order of a seated booking was opened.')),
  'pos_order.unknown_skus': event('pos_order.unknown_skus', 'A POS order was opened without some SKUs', `Sent beside pos_order.opened when the POS did not know some pre-ordered SKUs. ${SCOPE_SEATING}`, posOrderData(unknownSkus(1), 'The POS order of a seated booking was opened without the SKUs it did not know.')),
  'pos_order.failed': event('pos_order.failed', "A seated booking's POS order could not be opened", `The POS refused it, or could not be reached for an hour. ${SCOPE_SEATING}`, posOrderFailed),
  'availability_feed.processed': event('availability_feed.processed', 'An availability feed was processed', 'Every shard of the feed arrived and replaced the snapshot. Sent to the reservation-system partner that sent it.', feedProcessed),
  'webhook.endpoint_disabled': event('webhook.endpoint_disabled', 'A webhook endpoint was disabled', 'It answered 410, or failed for 5 days. Sent to the partner whose endpoint it is (to its other endpoints).', endpointDisabled),
  'webhook.test': event('webhook.test', 'A test event', 'Sent by POST /v1/webhooks/endpoints/{id}/test to that endpoint only; never part of a subscription.', testData),
};

export type ChannelEventType = (typeof CHANNEL_EVENT_TYPES)[number];

/**
 * What a `tableside` booking channel's endpoint reads (DESIGN 8.7a): the same types as the partners'
 * booking events, with the channel's view of the booking as `data`.
 */
export const CHANNEL_WEBHOOK_EVENTS = Object.fromEntries(CHANNEL_EVENT_TYPES.map((type) => {
  const partners = WEBHOOK_EVENTS[type];
  return [type, event(type, `${partners.summary} (booking channels)`, `${partners.description.replace(SCOPE_BOOKING, '')}Sent to the booking channel the booking was made through.`, channelBookingData)];
})) as Record<ChannelEventType, WebhookEventDoc>;

/** The key of a channel's event in the document's `webhooks` section (a type's partners' entry is the type itself). */
export const channelWebhookKey = (type: ChannelEventType) => `channel:${type}`;

// ---- The OpenAPI 3.1 `webhooks` section ----

/** HMAC-SHA256 in base64: 43 characters and one "=". */
const SIGNATURE = 'v1,[A-Za-z0-9+/]{43}=';

const HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'the message id: the same on every retry and replay of one event to one endpoint (use it to drop duplicates)',
    schema: JSON.parse(JSON.stringify(WebhookId('msg_ and 32 hex digits'))),
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'when this attempt was signed, Unix seconds; refuse one far from your clock (Standard Webhooks: 5 minutes)',
    schema: { type: 'string', maxLength: 11, pattern: '^[0-9]{1,11}$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed with the secret (without its whsec_ prefix, base64-decoded)>; ' +
      'two, space-separated, for 24 h after a secret rotation: accept the message if either verifies',
    schema: { type: 'string', maxLength: 95, pattern: `^${SIGNATURE}( ${SIGNATURE})?$` },
  },
];

const RESPONSES = {
  '2XX': { description: 'Received: the delivery succeeded (the body of the answer is ignored).' },
  '410': { description: 'Gone: the endpoint is disabled at once and a webhook.endpoint_disabled event is recorded; nothing more is sent to it.' },
  // Retry-After is the receiver's header, described rather than declared: a declared response header
  // set would have the ruleset ask for CORS headers on an answer no browser reads.
  '429': {
    description:
      'Too many requests: the next attempt waits for the Retry-After header of the answer (seconds or an HTTP date, at most 24 h), as after a 502 or 504.',
  },
  default: {
    description:
      'Any other answer, or none within 15 s, failed: retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (with jitter); an endpoint ' +
      'failing for 5 days is disabled. Deliveries that failed can be sent again with POST /v1/webhooks/endpoints/{id}/recover.',
  },
};

const operationId = (key: string) =>
  `webhook${key.split(/[._:]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`;

/**
 * The OpenAPI 3.1 `webhooks` object: one POST per event type, its body schema inlined; the booking
 * events a channel receives again under `channel:<type>`, with the channel's view.
 */
export function webhookDocument(): Record<string, { post: Record<string, unknown> }> {
  const out: Record<string, { post: Record<string, unknown> }> = {};
  const entries: Array<[string, WebhookEventDoc]> = [
    ...Object.entries(WEBHOOK_EVENTS),
    ...CHANNEL_EVENT_TYPES.map((type): [string, WebhookEventDoc] => [channelWebhookKey(type), CHANNEL_WEBHOOK_EVENTS[type]]),
  ];
  for (const [key, doc] of entries) {
    out[key] = {
      post: {
        operationId: operationId(key),
        summary: doc.summary,
        description:
          `${doc.description} Signed per Standard Webhooks (verify the webhook-signature header before trusting the body); events of one ` +
          'entity may arrive out of order: data.sequence orders them.',
        tags: ['webhooks'],
        parameters: HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: JSON.parse(JSON.stringify(doc.schema)) } } },
        responses: RESPONSES,
      },
    };
  }
  return out;
}

/** Every type a delivery may carry (the catalogue and the test event), for tests. */
export const DELIVERED_TYPES: readonly DeliveredEventType[] = [...EVENT_CATALOGUE, TEST_EVENT_TYPE];
