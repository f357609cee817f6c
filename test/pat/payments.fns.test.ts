import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FAILURE_CODES, isTerminal, moveOf, normalizeFailureCode, payloadMismatch, recordedStatus, submissionEvent, transition, TRANSITIONS,
  wireStatus, type PaymentEvent, type PaymentPayload, type PaymentState, type PaymentStatus,
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

// The whole table, as the service runs it: the three submission events, the in-flight claim of an
// immediate forward and its failure, besides the POS answers and the deadline.
const anyEvent: fc.Arbitrary<PaymentEvent> = fc.oneof(
  event,
  fc.constantFrom<PaymentEvent>({ type: 'record' }, { type: 'defer' }, { type: 'forward' }),
  fc.constantFrom('timeout', 'unreachable', 'pos_overpaid', 'interrupted').map((reason) => ({ type: 'forward_failed' as const, reason })),
);
const STORED: PaymentStatus[] = ['in_flight', 'forward_failed', 'pending', 'confirmed', 'failed'];
const anyState: fc.Arbitrary<PaymentState> = fc.constantFrom<PaymentState>(
  { status: 'new', failureCode: null },
  ...STORED.filter((s) => s !== 'failed').map((status) => ({ status, failureCode: null })),
  ...FAILURE_CODES.map((failureCode) => ({ status: 'failed' as const, failureCode })),
);
const run = (start: PaymentState, events: PaymentEvent[]) => {
  const states = [start];
  for (const e of events) states.push(transition(states.at(-1)!, e));
  return states;
};

describe('the transition table the service runs (every stored status)', () => {
  it('[PAY-27] [PAY-28] [PAY-29] every change of state is a row of the table: from one of its statuses, to its status', () => {
    fc.assert(
      fc.property(anyState, anyEvent, (state, e) => {
        const next = transition(state, e);
        const rule = TRANSITIONS[e.type];
        if (rule.from.includes(state.status)) expect(next.status).toBe(rule.to);
        else expect(next).toBe(state);
        // The store applies the same row: the guard is the stored statuses of `from`, the target `to`.
        const move = moveOf(e);
        expect(move.to).toBe(rule.to);
        expect(move.from).toEqual(rule.from.filter((s) => s !== 'new'));
        expect(move.forwarded).toBe(rule.forwarded);
      }),
    );
  });

  it('[PAY-31] confirmed and failed are terminal for every event, the submission and forward events included', () => {
    fc.assert(
      fc.property(anyState, fc.array(anyEvent), (start, events) => {
        const states = run(start, events);
        const firstTerminal = states.findIndex((s) => isTerminal(s.status));
        if (firstTerminal >= 0) for (const s of states.slice(firstTerminal)) expect(s).toEqual(states[firstTerminal]);
      }),
    );
  });

  it('[PAY-43] [PAY-49] the same event twice is the event once, from every state', () => {
    fc.assert(
      fc.property(anyState, fc.array(anyEvent), anyEvent, (start, events, e) => {
        const s = events.reduce(transition, start);
        expect(transition(transition(s, e), e)).toEqual(transition(s, e));
      }),
    );
  });

  it('[PAY-64] a failure code is set exactly on failed payments, and is one of the four stable slugs', () => {
    fc.assert(
      fc.property(anyState, fc.array(anyEvent), (start, events) => {
        for (const s of run(start, events)) {
          if (s.status === 'failed') expect(FAILURE_CODES).toContain(s.failureCode);
          else expect(s.failureCode).toBeNull();
        }
      }),
    );
    expect(moveOf({ type: 'pos_rejected', failureCode: 'made_up' }).failureCode).toBe('pos_config_missing');
    expect(moveOf({ type: 'deadline_passed' }).failureCode).toBe('pos_confirmation_timeout');
  });

  it('[PAY-60] [PAY-62] a failed forward records nothing a partner sees, and only a new submission of the reference leaves it', () => {
    fc.assert(
      fc.property(fc.array(anyEvent), (events) => {
        const states = run({ status: 'forward_failed', failureCode: null }, events);
        const left = states.findIndex((s) => s.status !== 'forward_failed');
        if (left > 0) expect(['record', 'defer', 'forward']).toContain(events[left - 1].type);
      }),
    );
    expect(moveOf({ type: 'forward_failed', reason: 'x'.repeat(300) }).failureCode).toHaveLength(100);
  });

  it('[PAY-30] a payment is in flight only between an immediate claim and the POS answer; the deadline applies from pending', () => {
    fc.assert(
      fc.property(anyState, anyEvent, (state, e) => {
        const next = transition(state, e);
        if (next.status === 'in_flight' && state.status !== 'in_flight') expect(e.type).toBe('forward');
        if (state.status === 'in_flight' && next.status !== 'in_flight') expect(['pos_confirmed', 'pos_pending', 'forward_failed']).toContain(e.type);
      }),
    );
    expect(transition({ status: 'in_flight', failureCode: null }, { type: 'deadline_passed' }).status).toBe('in_flight');
    expect(transition({ status: 'pending', failureCode: null }, { type: 'deadline_passed' })).toEqual({ status: 'failed', failureCode: 'pos_confirmation_timeout' });
  });

  it('[PAY-20] [PAY-21] [PAY-25] a submission is recorded by the venue POS type: confirmed without forwarding, pending when deferred, in flight when immediate', () => {
    expect(recordedStatus(submissionEvent({ paymentForwarding: false, paymentConfirmation: 'immediate' }))).toBe('confirmed');
    expect(recordedStatus(submissionEvent({ paymentForwarding: false, paymentConfirmation: 'deferred' }))).toBe('confirmed');
    expect(recordedStatus(submissionEvent({ paymentForwarding: true, paymentConfirmation: 'deferred' }))).toBe('pending');
    expect(recordedStatus(submissionEvent({ paymentForwarding: true, paymentConfirmation: 'immediate' }))).toBe('in_flight');
    expect(() => recordedStatus({ type: 'pos_confirmed' })).toThrow(/does not record/);
    expect(STORED.map(wireStatus)).toEqual(['pending', 'pending', 'pending', 'confirmed', 'failed']);
  });

  it('[PAY-27] the store changes a payment status only through moveStatus (a Move of the table) or the insert of a recorded status', () => {
    const src = (file: string) => readFileSync(join(import.meta.dirname, '../../src/pat', file), 'utf8');
    const repository = src('payments.repository.ts');
    // One UPDATE writes the status column, in moveStatus, guarded by the move's `from`.
    const statusWrites = repository.match(/UPDATE payments SET[^`]*\bstatus = /g) ?? [];
    expect(statusWrites).toHaveLength(1);
    expect(repository).toMatch(/export async function moveStatus\(\s*ex: Executor,\s*id: string,\s*move: Move,/);
    expect(repository).toContain('status = ANY(${move.from}::text[])');
    // The service and the outcomes build every move and every recorded status from the table.
    for (const file of ['payments.service.ts', 'payments.outcomes.ts', 'payments.jobs.ts']) {
      const text = src(file);
      for (const call of text.match(/repo\.moveStatus\([^;]*;/g) ?? []) expect(call).toMatch(/moveOf\(/);
      for (const insert of text.match(/repo\.insertPayment\([^;]*;/g) ?? []) expect(insert).toMatch(/status: recordedStatus\(/);
    }
    expect(src('payments.outcomes.ts')).toMatch(/repo\.moveStatus\(tx, paymentId, moveOf\(event\)/);
    expect(src('payments.service.ts')).toContain('status: recordedStatus(event)');
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
