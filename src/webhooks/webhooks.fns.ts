// Pure rules of outbound webhooks (DESIGN 8.5): the catalogue, the retry schedule with its jitter,
// Retry-After, the 5-day rule, what an attempt's answer means, and the body a receiver reads.

/** Every event type an endpoint may subscribe to (DESIGN 8.5), plus the service's own notice. */
export const EVENT_CATALOGUE = [
  'payment.confirmed',
  'payment.failed',
  'payment.late_confirmation',
  'order.closed',
  'venue.onboarded',
  'pos_connection.suspended',
  'pos_connection.resumed',
  'booking.created',
  'booking.updated',
  'booking.canceled',
  'booking.seated',
  'booking.confirmed',
  'booking.rejected',
  'booking.no_show',
  'booking.completed',
  'pos_order.opened',
  'pos_order.unknown_skus',
  'pos_order.failed',
  'availability_feed.processed',
  'webhook.endpoint_disabled',
] as const;
export type EventType = (typeof EVENT_CATALOGUE)[number];

/**
 * What a booking channel's endpoint may subscribe to (DESIGN 8.7a): the events of the bookings made
 * through it, nothing of venues, payments or orders.
 */
export const CHANNEL_EVENT_TYPES = EVENT_CATALOGUE.filter(
  (type): type is Extract<EventType, `booking.${string}`> => type.startsWith('booking.'),
);

/** Who an endpoint belongs to: a partner (DESIGN 8.5) or a `tableside` booking channel (8.7a). */
export type EndpointOwner = { kind: 'partner'; id: string } | { kind: 'channel'; id: string };

/** The type of the event `POST /endpoints/{id}/test` sends; never part of a subscription. */
export const TEST_EVENT_TYPE = 'webhook.test' as const;

/**
 * The subscription's problems: types outside the catalogue (for a channel, outside its booking
 * events), repeated types, an empty list.
 */
export function subscriptionProblems(events: readonly string[], owner: EndpointOwner['kind'] = 'partner'): string[] {
  const problems: string[] = [];
  if (events.length === 0) problems.push('must name at least one event type');
  const allowed: readonly string[] = owner === 'channel' ? CHANNEL_EVENT_TYPES : EVENT_CATALOGUE;
  const unknown = events.filter((e) => !allowed.includes(e));
  if (unknown.length && owner === 'channel') {
    problems.push(`event types a booking channel cannot subscribe to: ${[...new Set(unknown)].join(', ')} (a channel receives ${CHANNEL_EVENT_TYPES.join(', ')})`);
  } else if (unknown.length) {
    problems.push(`unknown event types: ${[...new Set(unknown)].join(', ')} (known: ${EVENT_CATALOGUE.join(', ')})`);
  }
  if (new Set(events).size !== events.length) problems.push('names an event type more than once');
  return problems;
}

/** Waits before the 2nd, 3rd, … 8th attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
/** Plus or minus this fraction of each wait, so deliveries failed together do not retry together. */
export const JITTER = 0.1;
/** An endpoint whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
/** How long the previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;
/** The longest Retry-After honoured; a longer one waits this long. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
/** The statuses whose Retry-After is honoured. */
const RETRY_AFTER_STATUSES = new Set([429, 502, 504]);

/** Reads a Retry-After header (seconds or an HTTP date) as a wait in ms; null when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now: Date): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

/** What one attempt came to. `status` null: no HTTP answer (refused, reset, timed out, redirect refused). */
export interface AttemptAnswer {
  status: number | null;
  retryAfter?: string | null;
}

export type AttemptVerdict =
  | { kind: 'succeeded' }
  /** The endpoint is gone (410): disable it, stop this delivery. */
  | { kind: 'gone' }
  | { kind: 'retry'; at: Date }
  /** The schedule is over: the delivery failed for good. */
  | { kind: 'exhausted' };

/**
 * What to do after attempt number `attempt` (1 = the first try). `random` gives [0, 1) for the
 * jitter (injected so tests can pin it).
 */
export function verdictOf(answer: AttemptAnswer, attempt: number, now: Date, random: () => number = Math.random): AttemptVerdict {
  if (answer.status !== null && answer.status >= 200 && answer.status < 300) return { kind: 'succeeded' };
  if (answer.status === 410) return { kind: 'gone' };
  if (attempt > RETRY_DELAYS_MS.length) return { kind: 'exhausted' };
  const honoured = answer.status !== null && RETRY_AFTER_STATUSES.has(answer.status) ? retryAfterMs(answer.retryAfter, now) : null;
  const wait = honoured ?? withJitter(RETRY_DELAYS_MS[attempt - 1]!, random);
  return { kind: 'retry', at: new Date(now.getTime() + wait) };
}

export function withJitter(ms: number, random: () => number): number {
  return Math.round(ms * (1 + JITTER * (2 * random() - 1)));
}

/** Whether a failure now, with failures since `failingSince`, passes the 5-day rule. */
export function failingTooLong(failingSince: Date | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS;
}

/**
 * The JSON body a receiver reads: `{type, timestamp, data}`, where data is the event's own data with
 * the entity id and the entity's sequence added (a receiver orders one entity's events by it).
 */
export function eventBody(event: { type: string; createdAt: Date; entityId: string; sequence: number | null; data: Record<string, unknown> }): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    data: { ...event.data, entityId: event.entityId, sequence: event.sequence },
  });
}

/** Standard Webhooks' message id: stable across retries and replays of one event to one endpoint. */
export const webhookIdOf = (deliveryId: string): string => `msg_${deliveryId.replace(/-/g, '')}`;
