import { describe, expect, it } from 'vitest';
import { healthOf, MAX_HEALTH_MESSAGE } from '../../src/rms/booking-services.fns.ts';
import type { RmsErrorKind } from '../../src/rms/rms-client.ts';

// What a booking-services call says of the RMS's health (DESIGN 8.1, lastHealthCheck), without an RMS.

const failure = (kind: RmsErrorKind, status?: number) => ({ kind, status, message: `the call failed (${kind} ${status ?? ''})` });

describe('[BKG-02] healthOf', () => {
  it.each([
    ['unreachable', 'getBooking', failure('unreachable')],
    ['a timeout of a create', 'createBooking', failure('timeout')],
    ['a 503', 'searchBookings', failure('status', 503)],
    ['the key refused (401)', 'healthcheck', failure('status', 401)],
    ['the key refused (403)', 'availability', failure('status', 403)],
  ] as const)('%s: the RMS is unwell, with the failure as the message', (_what, call, f) => {
    expect(healthOf(call, f)).toEqual({ ok: false, message: f.message });
  });

  it.each([
    ['a success', 'availability', null],
    ['a 402 refusal', 'createBooking', failure('refused', 402)],
    ['a 404', 'getBooking', failure('not_found', 404)],
    ['a 409', 'createBooking', failure('conflict', 409)],
  ] as const)('%s: the RMS answered, so it is up', (_what, call, f) => {
    expect(healthOf(call, f)?.ok).toBe(true);
  });

  it.each([
    ['a timeout of availability (its 1 s is our own budget)', 'availability', failure('timeout')],
    ['an answer that breaks the contract', 'getBooking', failure('bad_answer', 200)],
    ['a 429', 'createBooking', failure('status', 429)],
    ['no call at all', 'getBooking', failure('not_connected')],
  ] as const)('%s: says nothing', (_what, call, f) => {
    expect(healthOf(call, f)).toBeNull();
  });

  it('names the call as the contract does, and keeps a message within the schema', () => {
    expect(healthOf('cancelBooking', null)).toEqual({ ok: true, message: 'PUT /booking/{id}/cancel answered' });
    expect(healthOf('getBooking', { kind: 'unreachable', message: 'x'.repeat(900) })!.message).toHaveLength(MAX_HEALTH_MESSAGE);
  });
});
