// The bill's arithmetic (spec 2.10) as pure functions on integer minor units: table-driven cases
// from the spec's rules, and fast-check properties against a BigInt model (exact by construction).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MINOR, parseAmount, toWire } from '../../src/lib/money.ts';
import type { PosOrder } from '../../src/pos/pos.schemas.ts';
import { checkTotals, isSettled, itemOf, orderTotals, paidOf, type PaymentForBill } from '../../src/pat/bill.fns.ts';
import { fromPosOrder, type StoredCheck, type StoredItem } from '../../src/pos-mirror/orders.fns.ts';

type CheckAmounts = Pick<StoredCheck, 'subtotalMinor' | 'taxMinor' | 'tipMinor' | 'discountMinor'>;

const check = (subtotal: number, tax = 0, tip = 0, discount = 0): CheckAmounts => ({
  subtotalMinor: subtotal,
  taxMinor: tax,
  tipMinor: tip,
  discountMinor: discount,
});
const payment = (status: string, amount: number, tip: number | null = null): PaymentForBill => ({ status, amountMinor: amount, tipMinor: tip });
const item = (fields: Partial<StoredItem> = {}): StoredItem => ({
  id: '1',
  name: 'Espresso',
  quantity: 1,
  priceMinor: 250,
  discountMinor: 0,
  raw: {},
  ...fields,
});

// Every payment status the store holds: only `confirmed` may count (in_flight and forward_failed
// are the service's own states around a synchronous forward, never recorded payments).
const STATUSES = ['pending', 'confirmed', 'failed', 'in_flight', 'forward_failed'] as const;

// Amounts up to 10^9 minor units, several checks and payments: sums stay far inside MAX_MINOR.
const minor = fc.integer({ min: 0, max: 1_000_000_000 });
const checkArb = fc.record({ subtotalMinor: minor, taxMinor: minor, tipMinor: minor, discountMinor: minor });
const paymentArb = fc
  .record({ status: fc.constantFrom(...STATUSES), amountMinor: minor, tipShare: fc.double({ min: 0, max: 1, noNaN: true }), tipNull: fc.boolean() })
  .map(({ status, amountMinor, tipShare, tipNull }): PaymentForBill => ({
    status,
    amountMinor,
    // tip is the part of amount that is tip (DESIGN 9: tip > amount is refused at the edge).
    tipMinor: tipNull ? null : Math.floor(amountMinor * tipShare),
  }));
const checksArb = fc.array(checkArb, { minLength: 0, maxLength: 6 });
const paymentsArb = fc.array(paymentArb, { maxLength: 8 });

const big = (n: number) => BigInt(n);
const bigSum = (xs: readonly bigint[]) => xs.reduce((a, b) => a + b, 0n);

/** The spec's formulas over BigInt: the reference the Number implementation must match exactly. */
function model(checks: readonly CheckAmounts[], prepayment: number, payments: readonly PaymentForBill[]) {
  const subtotal = bigSum(checks.map((c) => big(c.subtotalMinor)));
  const tax = bigSum(checks.map((c) => big(c.taxMinor)));
  const tip = bigSum(checks.map((c) => big(c.tipMinor)));
  const discount = bigSum(checks.map((c) => big(c.discountMinor)));
  const total = subtotal + tax + tip - discount;
  const paid = bigSum(payments.filter((p) => p.status === 'confirmed').map((p) => big(p.amountMinor) - big(p.tipMinor ?? 0)));
  const balance = total - big(prepayment) - paid;
  return { subtotal, tax, tip, discount, total, prepayment: big(prepayment), paid, totalDue: balance > 0n ? balance : 0n, balance };
}

describe('item totals', () => {
  it.each([
    { name: 'one unit', price: 250, quantity: 1, discount: 0, total: 250 },
    { name: 'several units', price: 1450, quantity: 3, discount: 0, total: 4350 },
    { name: 'a line discount', price: 1450, quantity: 2, discount: 300, total: 2600 },
    { name: 'a free line', price: 690, quantity: 2, discount: 1380, total: 0 },
    { name: 'zero price', price: 0, quantity: 5, discount: 0, total: 0 },
    { name: '10 cents × 3 (0.30, not 0.30000000000000004)', price: 10, quantity: 3, discount: 0, total: 30 },
  ])('[BILL-21] item total = unitPrice × quantity − line discount: $name', ({ price, quantity, discount, total }) => {
    const out = itemOf(item({ priceMinor: price, quantity, discountMinor: discount }));
    expect(out.unitPrice).toBe(price);
    expect(out.total).toBe(total);
  });

  it('[BILL-21] property: item total is exactly unitPrice × quantity − discount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 100 }), (price, quantity, pct) => {
        const gross = big(price) * big(quantity);
        const discount = Number((gross * big(pct)) / 100n);
        const out = itemOf(item({ priceMinor: price, quantity, discountMinor: discount }));
        expect(Number.isSafeInteger(out.total)).toBe(true);
        expect(big(out.total)).toBe(gross - big(discount));
      }),
    );
  });

  it('[BILL-18][BILL-19][DES-131] the bill item keeps the POS item id as a string, or null, and only the bill fields', () => {
    expect(itemOf(item({ id: '42' }))).toEqual({ id: '42', name: 'Espresso', quantity: 1, unitPrice: 250, total: 250 });
    expect(itemOf(item({ id: null })).id).toBeNull();
    // Pass-through POS fields stay in the stored item; the bill item does not carry them.
    expect(Object.keys(itemOf(item({ raw: { sku: 'ESP', notes: 'x', modifiers: [] } }))).sort()).toEqual(['id', 'name', 'quantity', 'total', 'unitPrice']);
  });

  it('past the largest amount the product throws instead of losing units', () => {
    expect(() => itemOf(item({ priceMinor: MAX_MINOR, quantity: 2 }))).toThrow(RangeError);
  });
});

describe('check and order totals', () => {
  it.each([
    { name: 'spec example, EUR', c: check(2900, 290, 300, 150), total: 3340 },
    { name: 'inclusive VAT (tax 0)', c: check(1000), total: 1000 },
    { name: 'discount equal to the rest', c: check(1000, 100, 0, 1100), total: 0 },
    { name: 'KWD fils', c: check(3375, 169, 500, 1), total: 4043 },
  ])('[BILL-09] check total = subtotal + tax + tip − discount: $name', ({ c, total }) => {
    expect(checkTotals(c)).toEqual({ subtotal: c.subtotalMinor, tax: c.taxMinor, tip: c.tipMinor, discount: c.discountMinor, total });
  });

  it.each([
    { name: 'no payments, no prepayment', checks: [check(2900)], prep: 0, pays: [], paid: 0, due: 2900 },
    { name: 'split order sums both checks', checks: [check(1000, 100), check(2000, 0, 200, 50)], prep: 0, pays: [], paid: 0, due: 3250 },
    { name: 'prepayment reduces what is due', checks: [check(5000)], prep: 2000, pays: [], paid: 0, due: 3000 },
    { name: 'confirmed partial counts amount − tip', checks: [check(5000)], prep: 0, pays: [payment('confirmed', 1200, 200)], paid: 1000, due: 4000 },
    { name: 'tip null counts as no tip', checks: [check(5000)], prep: 0, pays: [payment('confirmed', 1200, null)], paid: 1200, due: 3800 },
    { name: 'pending does not count', checks: [check(5000)], prep: 0, pays: [payment('pending', 5000)], paid: 0, due: 5000 },
    { name: 'failed does not count', checks: [check(5000)], prep: 0, pays: [payment('failed', 5000)], paid: 0, due: 5000 },
    { name: 'in-flight and forward-failed do not count', checks: [check(5000)], prep: 0, pays: [payment('in_flight', 100), payment('forward_failed', 100)], paid: 0, due: 5000 },
    { name: 'overpaid floors at 0', checks: [check(1000)], prep: 600, pays: [payment('confirmed', 700)], paid: 700, due: 0 },
    { name: 'prepayment beyond total floors at 0', checks: [check(1450)], prep: 5000, pays: [], paid: 0, due: 0 },
    { name: '0.10 + 0.20 + 0.30 against 0.60', checks: [check(60)], prep: 0, pays: [payment('confirmed', 10), payment('confirmed', 20), payment('confirmed', 30)], paid: 60, due: 0 },
    { name: 'no open check', checks: [], prep: 0, pays: [], paid: 0, due: 0 },
  ])('[BILL-08][BILL-12][BILL-13][BILL-14][BILL-15][BILL-16] order totals: $name', ({ checks, prep, pays, paid, due }) => {
    const t = orderTotals(checks, prep, pays);
    expect(t.subtotal).toBe(checks.reduce((s, c) => s + c.subtotalMinor, 0));
    expect(t.prepayment).toBe(prep);
    expect(t.paid).toBe(paid);
    expect(t.totalDue).toBe(due);
  });

  it('[BILL-08][BILL-09] property: order totals are the sums over checks, and total = subtotal + tax + tip − discount', () => {
    fc.assert(
      fc.property(checksArb, (checks) => {
        const t = orderTotals(checks, 0, []);
        const m = model(checks, 0, []);
        expect([t.subtotal, t.tax, t.tip, t.discount, t.total].map(big)).toEqual([m.subtotal, m.tax, m.tip, m.discount, m.total]);
        expect(big(t.total)).toBe(big(t.subtotal) + big(t.tax) + big(t.tip) - big(t.discount));
        for (const c of checks) {
          const ct = checkTotals(c);
          expect(big(ct.total)).toBe(big(c.subtotalMinor) + big(c.taxMinor) + big(c.tipMinor) - big(c.discountMinor));
        }
      }),
    );
  });

  it('[BILL-16] property: totalDue is never negative', () => {
    fc.assert(
      fc.property(checksArb, minor, paymentsArb, (checks, prepayment, payments) => {
        const t = orderTotals(checks, prepayment, payments);
        expect(t.totalDue).toBeGreaterThanOrEqual(0);
        expect(Object.is(t.totalDue, -0)).toBe(false);
      }),
    );
  });

  it('[BILL-15] property: totalDue = total − prepayment − paid, floored at 0', () => {
    fc.assert(
      fc.property(checksArb, minor, paymentsArb, (checks, prepayment, payments) => {
        const t = orderTotals(checks, prepayment, payments);
        const m = model(checks, prepayment, payments);
        expect(big(t.totalDue)).toBe(m.totalDue);
        if (m.balance >= 0n) expect(big(t.totalDue)).toBe(big(t.total) - big(t.prepayment) - big(t.paid));
      }),
    );
  });

  it('[BILL-12][BILL-13][BILL-14] property: paid is Σ (amount − tip) of confirmed payments only; others change nothing', () => {
    fc.assert(
      fc.property(checksArb, minor, paymentsArb, paymentsArb, (checks, prepayment, payments, extra) => {
        const m = model(checks, prepayment, payments);
        expect(big(paidOf(payments))).toBe(m.paid);
        // Adding any number of pending / failed / in-flight payments leaves every total unchanged.
        const notConfirmed = extra.filter((p) => p.status !== 'confirmed');
        expect(orderTotals(checks, prepayment, [...payments, ...notConfirmed])).toEqual(orderTotals(checks, prepayment, payments));
        // Turning a confirmed payment into pending or failed removes exactly its (amount − tip).
        const i = payments.findIndex((p) => p.status === 'confirmed');
        if (i >= 0) {
          const p = payments[i];
          for (const status of ['pending', 'failed'] as const) {
            const changed = payments.map((q, j) => (j === i ? { ...q, status } : q));
            expect(paidOf(changed)).toBe(paidOf(payments) - (p.amountMinor - (p.tipMinor ?? 0)));
          }
        }
        // The order payments are listed in does not matter.
        expect(paidOf([...payments].reverse())).toBe(paidOf(payments));
      }),
    );
  });

  it('[BILL-12] paid is 0 when there is no payment', () => {
    expect(paidOf([])).toBe(0);
    expect(orderTotals([check(1000)], 0, []).paid).toBe(0);
  });

  it('[BILL-16] isSettled iff the balance total − prepayment − paid is ≤ 0 (so totalDue is 0)', () => {
    fc.assert(
      fc.property(checksArb, minor, paymentsArb, (checks, prepayment, payments) => {
        const t = orderTotals(checks, prepayment, payments);
        const m = model(checks, prepayment, payments);
        expect(isSettled(t)).toBe(m.balance <= 0n);
        expect(isSettled(t)).toBe(t.totalDue === 0);
      }),
    );
    expect(isSettled({ total: 60, prepayment: 0, paid: 60 })).toBe(true);
    expect(isSettled({ total: 60, prepayment: 0, paid: 59 })).toBe(false);
    expect(isSettled({ total: 60, prepayment: 50, paid: 20 })).toBe(true);
  });

  it('a sum past the largest amount throws rather than drifting', () => {
    expect(() => orderTotals([check(MAX_MINOR), check(1)], 0, [])).toThrow(RangeError);
    expect(() => paidOf([payment('confirmed', MAX_MINOR), payment('confirmed', 1)])).toThrow(RangeError);
  });
});

describe('exact money end to end (no float drift)', () => {
  const currencies = [
    { code: 'EUR', exp: 2 },
    { code: 'JPY', exp: 0 },
    { code: 'KWD', exp: 3 },
  ] as const;

  it('[DES-041][BILL-12] property: payments written as wire decimals sum exactly, in every exponent', () => {
    fc.assert(
      fc.property(fc.constantFrom(...currencies), fc.array(fc.integer({ min: 1, max: 99_999_999 }), { minLength: 1, maxLength: 12 }), ({ code }, amounts) => {
        // What a partner sends: decimals on the wire (0.1, 0.2 …); read back to minor units.
        const minors = amounts.map((a) => {
          const parsed = parseAmount(toWire(a, code), code);
          if (!parsed.ok) throw new Error(parsed.problem);
          return parsed.minor;
        });
        expect(minors).toEqual(amounts);
        const paid = paidOf(minors.map((m) => payment('confirmed', m, 0)));
        expect(big(paid)).toBe(bigSum(amounts.map(big)));
        // The wire value of the sum is the decimal of the exact sum, not a float sum's neighbour.
        const back = parseAmount(toWire(paid, code), code);
        expect(back).toEqual({ ok: true, minor: paid });
      }),
    );
  });

  it('[DES-041] 0.10 + 0.20 + 0.30 against 0.60: paid is exactly 0.6 and the order is settled', () => {
    // The float sum drifts; the minor-unit sum does not.
    expect(0.1 + 0.2 + 0.3).not.toBe(0.6);
    const pays = [0.1, 0.2, 0.3].map((a) => payment('confirmed', (parseAmount(a, 'EUR') as { minor: number }).minor));
    const t = orderTotals([check(60)], 0, pays);
    expect(toWire(t.paid, 'EUR')).toBe(0.6);
    expect(t.totalDue).toBe(0);
    expect(isSettled(t)).toBe(true);
  });

  it('[BILL-07] property: every total goes to the wire with at most the currency’s decimals and back unchanged', () => {
    fc.assert(
      fc.property(fc.constantFrom(...currencies), checksArb, minor, paymentsArb, ({ code, exp }, checks, prepayment, payments) => {
        const t = orderTotals(checks, prepayment, payments);
        for (const value of Object.values(t)) {
          const wire = toWire(value, code);
          const decimals = (String(wire).split('.')[1] ?? '').length;
          expect(decimals).toBeLessThanOrEqual(exp);
          expect(parseAmount(wire, code)).toEqual({ ok: true, minor: value });
        }
      }),
    );
  });
});

describe('POS order → stored order (what the bill is built from)', () => {
  // Items carry pass-through fields (sku) the contract allows but the static type does not list.
  const posOrder = (extra: Partial<PosOrder> & Record<string, unknown> = {}): PosOrder => ({
    id: '1001',
    status: 'open',
    tables: ['1'],
    partySize: 4,
    guestName: '',
    checks: [
      {
        checkNumber: '7',
        status: 'open',
        totalAmount: 31.4,
        tax: 1.5,
        tip: 0,
        discount: 3,
        paymentMethod: '',
        items: [
          { id: 12, name: 'Classic burger', price: 14.5, quantity: 2, discount: 3, ...{ sku: 'BURGER' } },
          { id: 'A-7', name: 'Espresso', price: 2.4, quantity: 1 },
          { name: 'Corkage', price: 0, quantity: 1 },
          { id: null, name: 'Bread', price: 0, quantity: 1 },
        ],
      },
    ],
    createdAt: '2026-01-15T13:00:00+01:00',
    updatedAt: '2026-01-15T13:05:00+01:00',
    closedAt: null,
    ...extra,
  });

  it('[BILL-19][DES-131] an integer POS item id becomes its decimal string; a string id stays; none or null gives null', () => {
    const items = fromPosOrder(posOrder(), 'EUR').checks[0].items.map(itemOf);
    expect(items.map((i) => i.id)).toEqual(['12', 'A-7', null, null]);
    expect(items[0]).toEqual({ id: '12', name: 'Classic burger', quantity: 2, unitPrice: 1450, total: 2600 });
  });

  it('[BILL-04] a walk-in (opened on the POS) has partySize null even when the POS reports one', () => {
    expect(fromPosOrder(posOrder({ partySize: 4 }), 'EUR').partySize).toBeNull();
    expect(fromPosOrder(posOrder({ partySize: 4, source: 'pos', reservationId: null }), 'EUR').partySize).toBeNull();
  });

  it('[BILL-05] an order from a reservation keeps its party size', () => {
    expect(fromPosOrder(posOrder({ partySize: 6, reservationId: 'svc-1', source: 'partner' }), 'EUR').partySize).toBe(6);
    // An order the service created through the contract, by a POS that does not echo the service's id.
    expect(fromPosOrder(posOrder({ partySize: 6, source: 'partner' }), 'EUR').partySize).toBe(6);
  });

  it('[BILL-10][BILL-11] prepayment is read in minor units; none is 0', () => {
    expect(fromPosOrder(posOrder({ prepayment: 20.5 }), 'EUR').prepaymentMinor).toBe(2050);
    expect(fromPosOrder(posOrder(), 'EUR').prepaymentMinor).toBe(0);
    expect(fromPosOrder(posOrder({ prepayment: null }), 'EUR').prepaymentMinor).toBe(0);
  });
});
