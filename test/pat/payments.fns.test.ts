import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FAILURE_CODES, isTerminal, normalizeFailureCode, payloadMismatch, transition,
  type PaymentEvent, type PaymentPayload, type PaymentState,
} from '../../src/pat/payments.fns.ts';

const event: fc.Arbitrary<PaymentEvent> = fc.oneof(
  fc.constant({ type: 'pos_confirmed' as const }),
  fc.constant({ type: 'pos_pending' as const }),
  fc.constant({ type: 'deadline_passed' as const }),
  fc.constantFrom(...FAILURE_CODES, 'something_else').map((failureCode) => ({ type: 'pos_rejected' as const, failureCode })),
);
const pending: PaymentState = { status: 'pending', failureCode: null };

describe('payment state machine (spec 3.1)', () => {
  it.each([
    [{ type: 'pos_confirmed' }, { status: 'confirmed', failureCode: null }],
    [{ type: 'pos_rejected', failureCode: 'pos_overpaid' }, { status: 'failed', failureCode: 'pos_overpaid' }],
    [{ type: 'pos_rejected', failureCode: 'pos_check_not_found' }, { status: 'failed', failureCode: 'pos_check_not_found' }],
    [{ type: 'pos_rejected', failureCode: 'pos_config_missing' }, { status: 'failed', failureCode: 'pos_config_missing' }],
    [{ type: 'deadline_passed' }, { status: 'failed', failureCode: 'pos_confirmation_timeout' }],
    [{ type: 'pos_pending' }, { status: 'pending', failureCode: null }],
  ] as Array<[PaymentEvent, PaymentState]>)('[PAY-27] [PAY-28] [PAY-29] pending + %o → %o', (e, expected) => {
    expect(transition(pending, e)).toEqual(expected);
  });

  it('[PAY-31] confirmed and failed are terminal: no event changes them', () => {
    fc.assert(
      fc.property(fc.constantFrom<PaymentState>({ status: 'confirmed', failureCode: null }, { status: 'failed', failureCode: 'pos_confirmation_timeout' }), fc.array(event), (start, events) => {
        expect(events.reduce(transition, start)).toEqual(start);
      }),
    );
  });

  it('[PAY-30] every path ends terminal once the deadline passes, and moves at most once', () => {
    fc.assert(
      fc.property(fc.array(event), (events) => {
        const states = [pending];
        for (const e of [...events, { type: 'deadline_passed' } as PaymentEvent]) states.push(transition(states.at(-1)!, e));
        expect(isTerminal(states.at(-1)!.status)).toBe(true);
        const changes = states.slice(1).filter((s, i) => s.status !== states[i].status).length;
        expect(changes).toBe(1);
      }),
    );
  });

  it('[PAY-64] failure codes are always one of the four stable slugs', () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1 }), fc.string(), (events, junk) => {
        const end = [...events, { type: 'pos_rejected', failureCode: junk } as PaymentEvent].reduce(transition, pending);
        if (end.status === 'failed') expect(FAILURE_CODES).toContain(end.failureCode);
        else expect(end.failureCode).toBeNull();
      }),
    );
    expect(normalizeFailureCode('weird')).toBe('pos_config_missing');
  });

  it('[PAY-43] [PAY-49] replaying a submission never changes state: the same event twice is the event once', () => {
    fc.assert(
      fc.property(fc.array(event), event, (events, e) => {
        const s = events.reduce(transition, pending);
        expect(transition(transition(s, e), e)).toEqual(transition(s, e));
      }),
    );
  });
});

describe('idempotency comparison (spec 4.7, 7.3)', () => {
  const base: PaymentPayload = { orderId: 'o1', type: 'partial', amountMinor: 1000, tipMinor: 100, currency: 'EUR', paymentMethod: 'card' };

  it('[PAY-52] names exactly the fields that differ, by their wire names', () => {
    expect(payloadMismatch(base, { ...base })).toEqual([]);
    expect(payloadMismatch(base, { ...base, amountMinor: 1001 })).toEqual(['amount']);
    expect(payloadMismatch(base, { ...base, tipMinor: null, currency: null })).toEqual(['tip', 'currency']);
    expect(payloadMismatch(base, { ...base, orderId: 'o2', type: 'full' })).toEqual(['orderId', 'type']);
  });

  it('[PAY-43] a payload equals itself; any change is reported', () => {
    const payload = fc.record({
      orderId: fc.uuid(),
      type: fc.constantFrom<'full' | 'partial'>('full', 'partial'),
      amountMinor: fc.integer({ min: 1, max: 10_000_000 }),
      tipMinor: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
      currency: fc.option(fc.constantFrom('EUR', 'USD'), { nil: null }),
      paymentMethod: fc.option(fc.string(), { nil: null }),
    });
    fc.assert(
      fc.property(payload, payload, (a, b) => {
        expect(payloadMismatch(a, a)).toEqual([]);
        const differs = JSON.stringify(a) !== JSON.stringify(b);
        expect(payloadMismatch(a, b).length > 0).toBe(differs);
      }),
    );
  });
});
