import { describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_MS, EVENT_CATALOGUE, eventBody, failingTooLong, retryAfterMs, RETRY_DELAYS_MS, subscriptionProblems, verdictOf, withJitter,
} from '../../src/webhooks/webhooks.fns.ts';

// The pure rules of webhooks, without a database. (Sealing is lib/sealed.ts's, tested with it.)

const NOW = new Date('2030-05-01T10:00:00.000Z');

describe('retry schedule', () => {
  it.each([
    [1, 5_000], [2, 300_000], [3, 1_800_000], [4, 7_200_000], [5, 18_000_000], [6, 36_000_000], [7, 36_000_000],
  ])('[DES-114] after failed attempt %i the next waits %i ms, within 10 percent jitter', (attempt, ms) => {
    const at = (r: number) => (verdictOf({ status: 500 }, attempt, NOW, () => r) as { at: Date }).at.getTime() - NOW.getTime();
    expect(at(0.5)).toBe(ms);
    expect(at(0)).toBe(Math.round(ms * 0.9));
    expect(at(0.999999)).toBeLessThanOrEqual(ms * 1.1);
    expect(at(0.999999)).toBeGreaterThan(ms * 1.099);
  });

  it('after the 8th attempt the delivery has failed for good', () => {
    expect(RETRY_DELAYS_MS).toHaveLength(7);
    expect(verdictOf({ status: 500 }, 8, NOW)).toEqual({ kind: 'exhausted' });
  });

  it('2xx succeeds, 410 is gone, no answer and 3xx are failures to retry', () => {
    expect(verdictOf({ status: 200 }, 1, NOW)).toEqual({ kind: 'succeeded' });
    expect(verdictOf({ status: 299 }, 1, NOW)).toEqual({ kind: 'succeeded' });
    expect(verdictOf({ status: 410 }, 1, NOW)).toEqual({ kind: 'gone' });
    expect(verdictOf({ status: null }, 1, NOW).kind).toBe('retry');
    expect(verdictOf({ status: 301 }, 1, NOW).kind).toBe('retry');
  });

  it('429, 502 and 504 honour Retry-After (seconds or a date, at most a day); other statuses do not', () => {
    const wait = (status: number, header: string) => (verdictOf({ status, retryAfter: header }, 1, NOW, () => 0.5) as { at: Date }).at.getTime() - NOW.getTime();
    expect(wait(429, '120')).toBe(120_000);
    expect(wait(502, new Date(NOW.getTime() + 600_000).toUTCString())).toBe(600_000);
    expect(wait(504, '999999999')).toBe(24 * 3600_000);
    expect(wait(503, '120')).toBe(5_000);
    expect(wait(429, 'soon')).toBe(5_000);
    expect(retryAfterMs(null, NOW)).toBeNull();
    expect(retryAfterMs(new Date(NOW.getTime() - 1000).toUTCString(), NOW)).toBe(0);
  });

  it('jitter stays within 10 %', () => {
    for (const r of [0, 0.25, 0.5, 0.75, 0.9999]) {
      const v = withJitter(1000, () => r);
      expect(v).toBeGreaterThanOrEqual(900);
      expect(v).toBeLessThanOrEqual(1100);
    }
  });

  it('an endpoint failing since 5 days or more is failing too long', () => {
    expect(failingTooLong(null, NOW)).toBe(false);
    expect(failingTooLong(new Date(NOW.getTime() - DISABLE_AFTER_MS + 1), NOW)).toBe(false);
    expect(failingTooLong(new Date(NOW.getTime() - DISABLE_AFTER_MS), NOW)).toBe(true);
  });
});

describe('subscriptions and bodies', () => {
  it('the DESIGN 8.5 catalogue is accepted; unknown, repeated or no types are problems', () => {
    expect(subscriptionProblems([...EVENT_CATALOGUE])).toEqual([]);
    expect(subscriptionProblems([])).toEqual(['must name at least one event type']);
    expect(subscriptionProblems(['order.closed', 'order.opened', 'order.opened'])).toEqual([
      expect.stringContaining('unknown event types: order.opened'),
      'names an event type more than once',
    ]);
  });

  it('[WHK-03] the body is {type, timestamp, data} with the entity id and sequence in data', () => {
    const body = JSON.parse(eventBody({ type: 'order.closed', createdAt: NOW, entityId: 'o1', sequence: 3, data: { orderId: 'o1' } }));
    expect(body).toEqual({ type: 'order.closed', timestamp: '2030-05-01T10:00:00.000Z', data: { orderId: 'o1', entityId: 'o1', sequence: 3 } });
  });
});
