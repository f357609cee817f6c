import { describe, expect, it } from 'vitest';
import { familyOf } from '../src/auth.ts';
import { TablesideError } from '../src/errors.ts';
import { backoffMs, DEFAULT_RETRY, isRetrySafe, retryAfterMs } from '../src/retry.ts';

// The SDK's pure rules: which requests may be retried, the backoff, Retry-After, which credential a
// path family takes, and how each error body becomes a TablesideError.

const headers = (h: Record<string, string> = {}) => new Headers(h);
const body = (value: unknown) => () => Promise.resolve(typeof value === 'string' ? value : JSON.stringify(value));

describe('isRetrySafe', () => {
  it.each([
    ['GET', '/v1/pat/venues', {}, '', true],
    ['HEAD', '/healthz', {}, '', true],
    ['POST', '/v1/pat/venue/v1/order/o1/payment', {}, { externalReference: 'x' }, true],
    ['POST', '/v1/bc/bookings', { 'idempotency-key': 'k' }, {}, true],
    ['POST', '/v1/bc/bookings', {}, {}, false],
    ['POST', '/v3/CreateBooking', {}, { idempotency_token: 't', slot: {} }, true],
    ['POST', '/v3/CreateBooking', {}, { slot: {} }, false],
    ['POST', '/v3/CreateBooking', {}, 'not json', false],
    ['POST', '/v3/UpdateBooking', {}, { idempotency_token: 't' }, false],
    ['POST', '/v1/rms/company', {}, {}, false],
    ['POST', '/v1/pat/venues', {}, {}, false],
    ['POST', '/v1/webhooks/endpoints', {}, {}, false],
    ['PUT', '/v1/bc/bookings/b1', {}, {}, false],
    ['PUT', '/v1/bc/bookings/b1/cancel', {}, {}, false],
    ['DELETE', '/v1/webhooks/endpoints/e1', {}, {}, false],
    ['POST', '/v1/pat/venue/v1/order/o1/payment/ref', {}, {}, false],
  ])('%s %s %j → %s', async (method, path, h, b, expected) => {
    expect(await isRetrySafe(method, path, headers(h), body(b))).toBe(expected);
  });
});

describe('backoff and Retry-After', () => {
  it('doubles from the base with jitter between half and all of it, capped', () => {
    const opts = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffMs(a, opts, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffMs(a, opts, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
  it('reads delta-seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-24T13:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs('Tue, 24 Nov 2026 13:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Tue, 24 Nov 2026 12:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
  });
});

describe('credentials per path family', () => {
  it.each([
    ['/v1/rms/venues/{venueId}', 'rms'],
    ['/v1/pat/venue/{venueId}/tables', 'token'],
    ['/v1/pos/venue/{venueId}/order', 'token'],
    ['/v1/webhooks/endpoints', 'webhooks'],
    ['/v1/bc/bookings', 'channel'],
    ['/v3/CreateBooking', 'channelBasic'],
    ['/v1/feeds/{channelId}/{kind}', 'channelBasic'],
    ['/oauth/token', 'none'],
    ['/healthz', 'none'],
  ])('%s → %s', (path, family) => expect(familyOf(path)).toBe(family));
});

describe('TablesideError.from', () => {
  const res = (status: number) => new Response(null, { status, headers: { 'x-request-id': 'req-1' } });
  it('reads the nested envelope', () => {
    const e = TablesideError.from(res(409), { error: { code: 409, message: 'Conflict: amount differs.', details: { fields: ['amount'] } } });
    expect(e).toMatchObject({ status: 409, code: 409, message: 'Conflict: amount differs.', details: { fields: ['amount'] }, requestId: 'req-1' });
  });
  it('reads the OAuth-style body', () => {
    expect(TablesideError.from(res(401), { error: 'invalid_token', error_description: 'The access token has expired.' })).toMatchObject({
      status: 401, code: 'invalid_token', message: 'The access token has expired.', details: null,
    });
  });
  it('keeps a body that is not JSON', () => {
    expect(TablesideError.from(res(502), '<html>Bad gateway</html>')).toMatchObject({ status: 502, code: 502, message: '<html>Bad gateway</html>' });
    expect(TablesideError.from(res(503), '')).toMatchObject({ status: 503, code: 503, message: 'HTTP 503' });
  });
});
