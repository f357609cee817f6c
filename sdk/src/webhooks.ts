import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './schema.js';

// verifyWebhook: checks a delivery's Standard Webhooks signature (any of the signatures during a
// secret rotation) and timestamp (at most 5 minutes off), then answers the parsed, typed event.

export { WebhookVerificationError };

type WebhookBody<W> = W extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;

/**
 * A delivery's body, `{type, timestamp, data}`, as the served document's OpenAPI 3.1 `webhooks` section
 * declares it: one schema per event type, so `switch (event.type)` narrows `data`.
 */
export type TablesideEvent = { [K in keyof webhooks]: WebhookBody<webhooks[K]> }[keyof webhooks];

/** Every event type an endpoint may subscribe to (docs/webhooks.md), plus `webhook.test`. */
export type TablesideEventType = TablesideEvent['type'];

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
