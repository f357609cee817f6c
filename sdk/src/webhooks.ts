import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './schema.js';

// verifyWebhook: checks a delivery's Standard Webhooks signature (any of the signatures during a
// secret rotation) and timestamp (at most 5 minutes off), then answers the parsed, typed event.

export { WebhookVerificationError };

/** Every event type an endpoint may subscribe to (docs/webhooks.md), plus `webhook.test`. */
export type TablesideEventType =
  | 'payment.confirmed'
  | 'payment.failed'
  | 'payment.late_confirmation'
  | 'order.closed'
  | 'venue.onboarded'
  | 'pos_connection.suspended'
  | 'pos_connection.resumed'
  | 'booking.created'
  | 'booking.updated'
  | 'booking.canceled'
  | 'booking.seated'
  | 'pos_order.opened'
  | 'pos_order.unknown_skus'
  | 'pos_order.failed'
  | 'availability_feed.processed'
  | 'webhook.endpoint_disabled'
  | 'webhook.test';

/** What every event's data carries: the entity it is about and its per-entity order. */
export interface EventEntity {
  entityId: string;
  sequence: number | null;
}

interface PaymentData extends EventEntity {
  paymentId: string;
  orderId: string;
  venueId: string;
  status: 'pending' | 'confirmed' | 'failed';
  failureCode: string | null;
  type: 'full' | 'partial';
  amount: number;
  currency: string | null;
  paymentMethod: string | null;
  tip: number | null;
  externalReference: string;
  recordedAt: string;
  confirmedAt: string | null;
}

/**
 * The event types written by hand from docs/webhooks.md, used until the served document declares
 * its `webhooks` section (issue 17): then `TablesideEvent` below is generated from it instead.
 * TODO(issue-17): delete once schema.d.ts has `webhooks`.
 */
export type HandWrittenEvent =
  | { type: 'payment.confirmed' | 'payment.failed'; timestamp: string; data: PaymentData }
  | { type: 'payment.late_confirmation'; timestamp: string; data: EventEntity & { paymentId: string; externalReference: string; orderId: string; venueId: string; posStatus: string; failureCode: string | null } }
  | { type: 'order.closed'; timestamp: string; data: EventEntity & { orderId: string; venueId: string; posOrderId: string | null; closedAt: string; closedBy: string } }
  | { type: 'venue.onboarded'; timestamp: string; data: EventEntity & { venueId: string; posType: string; posVenueId: string } }
  | { type: 'pos_connection.suspended' | 'pos_connection.resumed'; timestamp: string; data: EventEntity & { venueId: string; posType: string; status: 'suspended' | 'active'; reason: string | null } }
  | { type: 'webhook.endpoint_disabled'; timestamp: string; data: EventEntity & { endpointId: string; url: string; reason: string; disabledAt: string } }
  | { type: 'webhook.test'; timestamp: string; data: EventEntity & { endpointId: string } }
  | {
      type: 'booking.created' | 'booking.updated' | 'booking.canceled' | 'booking.seated' | 'pos_order.opened' | 'pos_order.unknown_skus' | 'pos_order.failed' | 'availability_feed.processed';
      timestamp: string;
      data: EventEntity & Record<string, unknown>;
    };

type WebhookBody<W> = W extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
/** The events the document's `webhooks` section declares (one request body schema per event type). */
export type DocumentedEvent = { [K in keyof webhooks]: WebhookBody<webhooks[K]> }[keyof webhooks];

/** A delivery's body, `{type, timestamp, data}`: from the document once it declares webhooks, else hand-written. */
export type TablesideEvent = webhooks extends Record<string, never> ? HandWrittenEvent : DocumentedEvent;

/** Headers as a Fetch `Headers`, or a plain object (Node's `req.headers`, with string or string[] values). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, key) => {
      out[key.toLowerCase()] = value;
    });
    return out;
  }
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Verifies a delivery and answers its event. `secret` is the endpoint's `whsec_…`; `body` is the raw
 * body exactly as received (verify before any JSON parsing re-serialises it). Throws
 * WebhookVerificationError on a missing header, a bad signature or a timestamp more than 5 minutes off.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Uint8Array): TablesideEvent {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const event = new Webhook(secret).verify(payload, plainHeaders(headers));
  if (!event || typeof event !== 'object' || typeof (event as { type?: unknown }).type !== 'string') {
    throw new WebhookVerificationError('The delivery is signed but is not an event');
  }
  return event as TablesideEvent;
}
