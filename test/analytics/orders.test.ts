import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { insertOrder } from './builders.ts';
import { toClosedOrder } from '../../src/analytics/orders.fns.ts';
import { pageClosedOrders } from '../../src/analytics/orders.repository.ts';
import type { ClosedOrder } from '../../src/analytics/orders.schemas.ts';

// GET /v1/pos/venue/{venueId}/order (spec 2.13, 4.8, 5, 8; DESIGN 5, 9) over HTTPS, on orders written
// straight into the store (exact close times, time zones, paging). The sync from a POS is in
// sync.test.ts.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeEachStore('closed orders', (store) => {
  let app: TestApp;
  let partner: TestPartner;

  beforeAll(async () => {
    app = await startTestApp({ store, env: { AUTH_FAILURE_LIMIT_PER_MIN: '1000000' } });
    partner = await app.newPartner(['analytics']);
  });
  afterAll(async () => {
    await app?.close();
  });

  async function venue(fields: Parameters<TestApp['newVenue']>[0] = {}): Promise<string> {
    const id = await app.newVenue(fields);
    await app.grant(partner.partnerId, id);
    return id;
  }
  const order = (venueId: string, input: Parameters<typeof insertOrder>[2] = {}) => insertOrder(app.db.kysely, venueId, input);
  const list = (venueId: string, query: Record<string, string | number | undefined>, token = partner.token) =>
    app.http.get(`/v1/pos/venue/${venueId}/order`, { token, query });
  const JAN = { from: '2026-01-01T00:00:00Z', until: '2026-01-31T23:59:59Z' };

  describe('shape', () => {
    it('[ANA-01] [ANA-02] [ANA-03] [ANA-27] 200 {total, orders}: every field of the closed order and its checks, its own shape (no bill fields)', async () => {
      const v = await venue();
      const reservation = new Date('2026-01-10T19:00:00Z');
      await order(v, {
        closedAt: '2026-01-10T21:15:30.250Z',
        posOrderId: 'POS-777',
        tables: ['12', '13'],
        partySize: 4,
        reservationDate: reservation,
        prepaymentMinor: 2000,
        openAt: new Date('2026-01-10T19:05:00Z'),
        checks: [
          {
            checkNumber: '1', subtotalMinor: 5800, taxMinor: 580, tipMinor: 300, discountMinor: 250, paymentMethod: 'visa',
            items: [{ id: '7', name: 'Classic burger', quantity: 4, priceMinor: 1450 }],
          },
        ],
      });
      const res = await list(v, JAN);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['orders', 'total']);
      expect(res.body.total).toBe(1);
      const [o] = res.body.orders;
      expect(o).toEqual({
        id: expect.stringMatching(UUID),
        status: 'closed',
        tables: ['12', '13'],
        partySize: 4,
        reservationDate: '2026-01-10T19:00:00.000Z',
        externalId: 'POS-777',
        prepayment: 20,
        currency: 'EUR',
        openAt: '2026-01-10T19:05:00.000Z',
        closedAt: '2026-01-10T21:15:30.250Z',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        checks: [
          {
            id: expect.stringMatching(UUID),
            checkNumber: '1',
            status: 'closed',
            totalAmount: 58,
            tax: 5.8,
            tip: 3,
            discount: 2.5,
            paymentMethod: 'visa',
            items: [{ id: '7', name: 'Classic burger', price: 14.5, quantity: 4 }],
            closedAt: '2026-01-10T21:15:30.250Z',
            voidedAt: null,
            createdAt: expect.stringMatching(ISO),
            updatedAt: expect.stringMatching(ISO),
          },
        ],
      });
      // Not the bill (2.10) and not the partner-side order (2.7).
      for (const field of ['orderId', 'tableId', 'tableName', 'totals', 'totalDue', 'paid', 'guestName']) expect(o).not.toHaveProperty(field);
      expect(o.checks[0]).not.toHaveProperty('totals');
    });

    it('[ANA-03] instants are written in UTC to the millisecond, microseconds truncated, whatever the session time zone', async () => {
      // The page's instants are formatted by PostgreSQL (issue 14): they must read as isoInstant
      // writes a Date everywhere else, including below the millisecond and in another session zone.
      const v = await venue();
      const id = await order(v, { closedAt: '2026-01-12T08:00:00Z', checks: [{ checkNumber: '1' }] });
      await sql`UPDATE orders SET open_at = '2026-01-12T07:00:00.999999Z', closed_at = '2026-01-12T08:00:00.000999+05:30',
                                  reservation_date = '0999-12-31T23:59:59.5Z', prepayment_minor = 0 WHERE id = ${id}`.execute(app.db.kysely);
      await sql`UPDATE order_checks SET closed_at = NULL, created_at = '2026-01-12T07:30:00.1234Z' WHERE order_id = ${id}`.execute(app.db.kysely);
      const expected = (o: ClosedOrder) => {
        expect(o.openAt).toBe(new Date('2026-01-12T07:00:00.999Z').toISOString());
        expect(o.closedAt).toBe('2026-01-12T02:30:00.000Z');
        expect(o.reservationDate).toBe('0999-12-31T23:59:59.500Z');
        expect(o.prepayment).toBe(0);
        // A closed check without its own close time closes with the order.
        expect(o.checks[0].closedAt).toBe('2026-01-12T02:30:00.000Z');
        expect(o.checks[0].createdAt).toBe('2026-01-12T07:30:00.123Z');
      };
      const window = { from: new Date('2026-01-12T00:00:00Z'), until: new Date('2026-01-12T23:59:59Z') };
      const res = await list(v, { from: window.from.toISOString(), until: window.until.toISOString() });
      expect(res.status).toBe(200);
      expected(res.body.orders[0]);
      // A connection whose session zone is not UTC reads the same instants.
      const page = await app.db.kysely.connection().execute(async (c) => {
        await sql`SET TIME ZONE 'Asia/Kathmandu'`.execute(c);
        try {
          return await pageClosedOrders({ kysely: c }, v, window, { limit: 10, offset: 0 });
        } finally {
          await sql`RESET TIME ZONE`.execute(c);
        }
      });
      expected(toClosedOrder(page.orders[0]));
    });

    it('[ANA-04] only closed orders: an open order and an order voided on the POS (every check void) never appear', async () => {
      const v = await venue();
      const closed = await order(v, { closedAt: '2026-01-05T12:00:00Z' });
      await order(v, { status: 'open' });
      await order(v, { status: 'void', closedAt: '2026-01-06T12:00:00Z', checks: [{ status: 'void' }] });
      const res = await list(v, JAN);
      expect(res.body.total).toBe(1);
      expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([closed]);
      expect(res.body.orders.every((o: { status: string }) => o.status === 'closed')).toBe(true);
    });

    it('[ANA-05] an order has the same id in every query (windows, pages)', async () => {
      const v = await venue();
      const id = await order(v, { closedAt: '2026-01-20T10:00:00Z', posOrderId: 'stable-1' });
      const a = await list(v, JAN);
      const b = await list(v, { from: '2026-01-20', until: '2026-01-20' });
      const c = await list(v, { ...JAN, limit: 1, offset: 0 });
      expect([a, b, c].map((r) => r.body.orders[0].id)).toEqual([id, id, id]);
      expect(a.body.orders[0].checks[0].id).toBe(b.body.orders[0].checks[0].id);
    });

    it('[ANA-06] [ANA-08] tables holds every POS table of merged tables; externalId is the POS order id', async () => {
      const v = await venue();
      await order(v, { closedAt: '2026-01-03T12:00:00Z', tables: ['4', '5', '6'], posOrderId: 'ext-4-5-6' });
      const [o] = (await list(v, JAN)).body.orders;
      expect(o.tables).toEqual(['4', '5', '6']);
      expect(o.externalId).toBe('ext-4-5-6');
    });

    it('[ANA-07] a walk-in has reservationDate null (and partySize and prepayment null); a reservation order has them', async () => {
      const v = await venue();
      await order(v, { closedAt: '2026-01-03T12:00:00Z', posOrderId: 'walk-in' });
      await order(v, { closedAt: '2026-01-03T13:00:00Z', posOrderId: 'booked', partySize: 2, reservationDate: new Date('2026-01-03T11:00:00Z') });
      const byExt = Object.fromEntries((await list(v, JAN)).body.orders.map((o: { externalId: string }) => [o.externalId, o]));
      expect(byExt['walk-in']).toMatchObject({ reservationDate: null, partySize: null, prepayment: null });
      expect(byExt.booked).toMatchObject({ reservationDate: '2026-01-03T11:00:00.000Z', partySize: 2, prepayment: 0 });
    });

    it('[ANA-09] checkNumber is unique within an order, not across the venue', async () => {
      const v = await venue();
      await order(v, { closedAt: '2026-01-03T12:00:00Z', checks: [{ checkNumber: '1' }, { checkNumber: '2' }] });
      await order(v, { closedAt: '2026-01-03T13:00:00Z', checks: [{ checkNumber: '1' }] });
      const orders = (await list(v, JAN)).body.orders;
      expect(orders.map((o: { checks: Array<{ checkNumber: string }> }) => o.checks.map((c) => c.checkNumber))).toEqual([['1'], ['1', '2']]);
      const ids = orders.flatMap((o: { checks: Array<{ id: string }> }) => o.checks.map((c) => c.id));
      expect(new Set(ids).size).toBe(3);
    });

    it('[ANA-10] a check is closed or void; voidedAt is null unless void; checks come in check-number order', async () => {
      const v = await venue();
      await order(v, {
        closedAt: '2026-01-03T12:00:00Z',
        checks: [
          { checkNumber: '10', status: 'closed' },
          { checkNumber: '2', status: 'void', voidedAt: new Date('2026-01-03T11:30:00Z') },
          // A POS may leave a check of a closed order in another state: on a closed order it is closed.
          { checkNumber: '3', status: 'paid', closedAt: null },
        ],
      });
      const [o] = (await list(v, JAN)).body.orders;
      expect(o.checks.map((c: { checkNumber: string; status: string; voidedAt: string | null; closedAt: string | null }) => [c.checkNumber, c.status, c.voidedAt, c.closedAt])).toEqual([
        ['2', 'void', '2026-01-03T11:30:00.000Z', null],
        ['3', 'closed', null, '2026-01-03T12:00:00.000Z'],
        ['10', 'closed', null, '2026-01-03T12:00:00.000Z'],
      ]);
    });

    it('[ANA-11] [ANA-13] totalAmount is the subtotal before tax, tip and discount; paymentMethod is the POS string or null', async () => {
      const v = await venue({ currency: 'JPY' });
      await order(v, {
        closedAt: '2026-01-03T12:00:00Z',
        currency: 'JPY',
        checks: [
          { checkNumber: '1', subtotalMinor: 2900, taxMinor: 290, tipMinor: 100, discountMinor: 50, paymentMethod: 'Amex •••• 1005', items: [{ priceMinor: 1450, quantity: 2 }] },
          { checkNumber: '2', subtotalMinor: 700, paymentMethod: null, items: [{ priceMinor: 700 }] },
        ],
      });
      const [o] = (await list(v, JAN)).body.orders;
      expect(o.currency).toBe('JPY');
      expect(o.checks[0]).toMatchObject({ totalAmount: 2900, tax: 290, tip: 100, discount: 50, paymentMethod: 'Amex •••• 1005' });
      expect(o.checks[0].items[0]).toMatchObject({ price: 1450, quantity: 2 });
      expect(o.checks[1]).toMatchObject({ totalAmount: 700, paymentMethod: null });
    });

    it('[ANA-12] items carry id, name, price and quantity; other POS fields pass through as the POS sent them', async () => {
      const v = await venue();
      await order(v, {
        closedAt: '2026-01-03T12:00:00Z',
        checks: [{
          items: [
            { id: '42', name: 'House red', quantity: 3, priceMinor: 690, raw: { id: 42, name: 'House red', quantity: 3, price: 6.9, sku: 'WINE', notes: 'decanted', discount: 1, modifiers: [{ name: 'large' }] } },
            { id: null, name: 'Bread', quantity: 1, priceMinor: 0, raw: { name: 'Bread', quantity: 1, price: 0 } },
          ],
        }],
      });
      const [o] = (await list(v, JAN)).body.orders;
      expect(o.checks[0].items).toEqual([
        { id: '42', name: 'House red', price: 6.9, quantity: 3, sku: 'WINE', notes: 'decanted', discount: 1, modifiers: [{ name: 'large' }] },
        { id: null, name: 'Bread', price: 0, quantity: 1 },
      ]);
    });
  });

  describe('validation', () => {
    const errorsOf = (res: { body: any }) => res.body.error.details.form.errors as Record<string, string[]>;

    it('[ANA-14] [ANA-23] from missing, until missing, or both → 400 naming each missing field in details.form.errors', async () => {
      const v = await venue();
      const noFrom = await list(v, { until: JAN.until });
      expect(noFrom.status).toBe(400);
      expect(Object.keys(errorsOf(noFrom))).toEqual(['from']);
      const noUntil = await list(v, { from: JAN.from });
      expect(noUntil.status).toBe(400);
      expect(Object.keys(errorsOf(noUntil))).toEqual(['until']);
      const neither = await list(v, {});
      expect(Object.keys(errorsOf(neither)).sort()).toEqual(['from', 'until']);
    });

    it('[ANA-15] an unparseable from or until → 400 naming it', async () => {
      const v = await venue();
      for (const bad of ['yesterday', '', '2026-02-30', '2026-13-01', '2026-01-15T24:00:00Z', '2026-01-15T10:00:00+25:00', '15/01/2026', '1736899200', '2026-1-5', '2026-01-15T10:00:00ZZ']) {
        const res = await list(v, { from: bad, until: JAN.until });
        expect(res.status, bad).toBe(400);
        expect(Object.keys(errorsOf(res)), bad).toEqual(['from']);
        const res2 = await list(v, { from: JAN.from, until: bad });
        expect(res2.status, bad).toBe(400);
        expect(Object.keys(errorsOf(res2)), bad).toEqual(['until']);
      }
    });

    it('[ANA-16] from and until each accept an ISO 8601 date or date-time (Z, offsets, fractions, no offset = venue time)', async () => {
      const v = await venue({ timezone: 'Europe/Madrid' });
      const id = await order(v, { closedAt: '2026-01-15T11:00:00Z' }); // 12:00 in Madrid
      const cases: Array<[string, string]> = [
        ['2026-01-15', '2026-01-15'],
        ['2026-01-15T11:00:00Z', '2026-01-15T11:00:00Z'],
        ['2026-01-15T11:00Z', '2026-01-15t11:00:00.000z'],
        ['2026-01-15T12:00:00+01:00', '2026-01-15T12:00:00.000000+0100'],
        ['2026-01-15T06:00:00-05', '2026-01-15T11:00:00,000Z'],
        ['2026-01-15T12:00:00', '2026-01-15T12:00'], // no offset: the venue's wall clock
        ['2026-01-14', '2026-01-15T23:00:00.999999999Z'],
      ];
      for (const [from, until] of cases) {
        const res = await list(v, { from, until });
        expect(res.status, `${from} .. ${until}`).toBe(200);
        expect(res.body.orders.map((o: { id: string }) => o.id), `${from} .. ${until}`).toEqual([id]);
      }
      // A '+' left unencoded in the query string arrives as a space; it still means +01:00.
      const raw = await app.http.get(`/v1/pos/venue/${v}/order?from=2026-01-15T12:00:00+01:00&until=2026-01-15T12:00:00+01:00`, { token: partner.token });
      expect(raw.status).toBe(200);
      expect(raw.body.total).toBe(1);
    });

    it('[ANA-22] [ANA-23] an invalid limit or offset (non-integer, negative, over 100) → 400 naming it', async () => {
      const v = await venue();
      for (const [field, value] of [['limit', '-1'], ['limit', '1.5'], ['limit', 'abc'], ['limit', '0'], ['limit', '101'], ['offset', '-1'], ['offset', '2.5'], ['offset', 'x'], ['offset', '10000000000000000000000']] as const) {
        const res = await list(v, { ...JAN, [field]: value });
        expect(res.status, `${field}=${value}`).toBe(400);
        expect(Object.keys(errorsOf(res)), `${field}=${value}`).toEqual([field]);
      }
    });

    it('[ANA-23] [DES-015] one 400 lists every offending field, in the nested envelope', async () => {
      const v = await venue();
      const res = await list(v, { until: 'soon', limit: 500, offset: -3 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String), details: { form: { errors: expect.any(Object) } } } });
      expect(Object.keys(errorsOf(res)).sort()).toEqual(['from', 'limit', 'offset', 'until']);
      for (const problems of Object.values(errorsOf(res))) expect(problems.every((p) => typeof p === 'string' && p.length > 0)).toBe(true);
      // The window problem is reported together with a bad limit.
      const both = await list(v, { from: '2026-01-01', until: '2026-03-01', limit: 101 });
      expect(Object.keys(errorsOf(both)).sort()).toEqual(['from', 'limit', 'until']);
    });

    it('[DES-126] until earlier than from → 400 with details.form.errors', async () => {
      const v = await venue();
      const res = await list(v, { from: '2026-01-10T00:00:00Z', until: '2026-01-09T23:59:59.999Z' });
      expect(res.status).toBe(400);
      expect(errorsOf(res).until[0]).toMatch(/earlier than from/);
      const same = await list(v, { from: '2026-01-10T00:00:00Z', until: '2026-01-10T00:00:00Z' });
      expect(same.status).toBe(200);
    });
  });

  describe('window', () => {
    it('[LIM-16] [LIM-17] exactly 31 days is accepted; 31 days and one second (or one millisecond) more is refused', async () => {
      const v = await venue();
      const from = '2026-01-01T00:00:00Z';
      expect((await list(v, { from, until: '2026-02-01T00:00:00Z' })).status).toBe(200);
      expect((await list(v, { from, until: '2026-02-01T01:00:00+01:00' })).status).toBe(200);
      const over = await list(v, { from, until: '2026-02-01T00:00:01Z' });
      expect(over.status).toBe(400);
      expect(over.body.error.details.form.errors.until[0]).toMatch(/longer than 31 days/);
      expect((await list(v, { from, until: '2026-02-01T00:00:00.001Z' })).status).toBe(400);
      // Dates: January 1 to 31 is 31 days less a millisecond; to February 1 is a day too many.
      expect((await list(v, { from: '2026-01-01', until: '2026-01-31' })).status).toBe(200);
      expect((await list(v, { from: '2026-01-01', until: '2026-02-01' })).status).toBe(400);
    });

    it('[LIM-16] [LIM-17] the limit is 31 × 24 hours whatever the clocks do: a 31-day month across the autumn change is an hour too long', async () => {
      const v = await venue({ timezone: 'Europe/Madrid' });
      expect((await list(v, { from: '2026-03-01', until: '2026-03-31' })).status).toBe(200); // 31 days − 1 h
      expect((await list(v, { from: '2026-10-01', until: '2026-10-31' })).status).toBe(400); // 31 days + 1 h
      expect((await list(v, { from: '2026-10-01', until: '2026-10-30' })).status).toBe(200);
    });

    it('[ANA-17] [ANA-18] from and until are inclusive: orders closed exactly at either bound are returned, 1 ms outside are not', async () => {
      const v = await venue();
      const from = Date.parse('2026-01-10T08:00:00.000Z');
      const until = Date.parse('2026-01-20T18:30:00.000Z');
      const at = async (ms: number) => order(v, { closedAt: new Date(ms) });
      const atFrom = await at(from);
      const atUntil = await at(until);
      await at(from - 1);
      await at(until + 1);
      const res = await list(v, { from: new Date(from).toISOString(), until: new Date(until).toISOString() });
      expect(res.body.total).toBe(2);
      expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([atUntil, atFrom]);
      // The same instants written with an offset select the same orders.
      const offset = await list(v, { from: '2026-01-10T09:00:00+01:00', until: '2026-01-20T13:30:00-05:00' });
      expect(offset.body.orders.map((o: { id: string }) => o.id)).toEqual([atUntil, atFrom]);
    });

    for (const [timeZone, offsetH] of [['Asia/Tokyo', 9], ['America/Los_Angeles', -8]] as const) {
      it(`[DES-043] [DES-125] date-only bounds are days in the venue's time zone (${timeZone}): from at 00:00:00.000, until at 23:59:59.999`, async () => {
        const v = await venue({ timezone: timeZone });
        const localMidnight = (date: string) => Date.parse(`${date}T00:00:00Z`) - offsetH * 3600_000;
        const startOfJan5 = localMidnight('2026-01-05');
        const endOfJan7 = localMidnight('2026-01-08') - 1;
        const first = await order(v, { closedAt: new Date(startOfJan5) });
        const last = await order(v, { closedAt: new Date(endOfJan7) });
        const before = await order(v, { closedAt: new Date(startOfJan5 - 1) });
        const after = await order(v, { closedAt: new Date(endOfJan7 + 1) });
        const res = await list(v, { from: '2026-01-05', until: '2026-01-07' });
        expect(res.status).toBe(200);
        expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([last, first]);
        // The UTC reading of those dates would select differently: the neighbours belong to other local days.
        const dayBefore = await list(v, { from: '2026-01-04', until: '2026-01-04' });
        expect(dayBefore.body.orders.map((o: { id: string }) => o.id)).toEqual([before]);
        const dayAfter = await list(v, { from: '2026-01-08', until: '2026-01-08' });
        expect(dayAfter.body.orders.map((o: { id: string }) => o.id)).toEqual([after]);
      });
    }

    it('[DES-043] a venue without a time zone reads dates in UTC', async () => {
      const v = await venue();
      await sql`UPDATE venues SET timezone = NULL WHERE id = ${v}`.execute(app.db.kysely);
      const inside = await order(v, { closedAt: '2026-01-05T00:00:00.000Z' });
      const end = await order(v, { closedAt: '2026-01-05T23:59:59.999Z' });
      await order(v, { closedAt: '2026-01-04T23:59:59.999Z' });
      await order(v, { closedAt: '2026-01-06T00:00:00.000Z' });
      const res = await list(v, { from: '2026-01-05', until: '2026-01-05' });
      expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([end, inside]);
    });
  });

  describe('order and paging', () => {
    it('[ANA-19] [ANA-20] [ANA-21] most recent first; total counts every match; pages neither overlap nor skip (ties broken by id)', async () => {
      const v = await venue();
      const base = Date.parse('2026-01-10T12:00:00Z');
      const ids: string[] = [];
      // 11 orders, three of them closed at the same instant.
      for (let i = 0; i < 8; i++) ids.push(await order(v, { closedAt: new Date(base + i * 60_000) }));
      for (let i = 0; i < 3; i++) ids.push(await order(v, { closedAt: new Date(base + 3 * 60_000) }));
      const all = await list(v, { ...JAN, limit: 100 });
      expect(all.body.total).toBe(11);
      const closedAts = all.body.orders.map((o: { closedAt: string }) => Date.parse(o.closedAt));
      expect(closedAts).toEqual([...closedAts].sort((a, b) => b - a));
      const seen: string[] = [];
      for (let offset = 0; offset < 12; offset += 3) {
        const page = await list(v, { ...JAN, limit: 3, offset });
        expect(page.body.total).toBe(11);
        seen.push(...page.body.orders.map((o: { id: string }) => o.id));
      }
      expect(seen).toEqual(all.body.orders.map((o: { id: string }) => o.id));
      expect(new Set(seen)).toEqual(new Set(ids));
      // Past the end: an empty page, the same total.
      const past = await list(v, { ...JAN, offset: 50 });
      expect(past.body).toEqual({ total: 11, orders: [] });
    });

    it('[LIM-12] [LIM-13] [LIM-14] [LIM-15] limit defaults to 50 from the most recent order; 100 is accepted, 101 refused', async () => {
      const v = await venue();
      const base = Date.parse('2026-01-02T00:00:00Z');
      const rows = Array.from({ length: 105 }, (_, i) => i);
      for (const i of rows) await order(v, { closedAt: new Date(base + i * 3600_000), checks: [{ items: [] }] });
      const page = await list(v, JAN);
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(105);
      expect(page.body.orders).toHaveLength(50);
      expect(page.body.orders[0].closedAt).toBe(new Date(base + 104 * 3600_000).toISOString());
      const hundred = await list(v, { ...JAN, limit: 100 });
      expect(hundred.status).toBe(200);
      expect(hundred.body.orders).toHaveLength(100);
      const over = await list(v, { ...JAN, limit: 101 });
      expect(over.status).toBe(400);
      expect(Object.keys(over.body.error.details.form.errors)).toEqual(['limit']);
    });
  });

  describe('venues and access', () => {
    it('[ANA-24] an unknown venue → 404, whatever its id looks like', async () => {
      for (const id of ['0198a5c4-1111-7222-8333-444455556666', 'not-a-venue', '42']) {
        const res = await list(id, JAN);
        expect(res.status, id).toBe(404);
        expect(res.body.error.code).toBe(404);
      }
      // Also without a valid query: the venue is checked first. Bounds with an offset are checked with
      // the page in one statement, date-only ones (the venue's time zone) before it: the same answers.
      expect((await list('0198a5c4-1111-7222-8333-444455556666', {})).status).toBe(404);
      expect((await list('0198a5c4-1111-7222-8333-444455556666', { from: '2026-01-01', until: '2026-01-31' })).status).toBe(404);
    });

    it('[AUTH-14] an existing venue outside the token\'s scope → 403, not 404, and nothing of it is returned', async () => {
      const other = await app.newPartner(['analytics']);
      const v = await app.newVenue();
      await app.grant(other.partnerId, v);
      await order(v, { closedAt: '2026-01-05T12:00:00Z' });
      const res = await list(v, JAN);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { code: 403, message: expect.any(String), details: null } });
      expect((await list(v, {})).status).toBe(403);
      expect((await list(v, { from: '2026-01-01', until: '2026-01-31' })).status).toBe(403);
      expect((await list(v, JAN, other.token)).body.total).toBe(1);
      expect((await list(v, { from: '2026-01-01', until: '2026-01-31' }, other.token)).body.total).toBe(1);
    });

    it('[AUTH-11] [AUTH-12] [AUTH-13] [DES-015] missing or invalid token → 401, no analytics access → 403, in the nested envelope', async () => {
      const v = await venue();
      const missing = await app.http.get(`/v1/pos/venue/${v}/order`, { query: JAN });
      expect(missing.status).toBe(401);
      expect(missing.body).toEqual({ error: { code: 401, message: expect.any(String), details: null } });
      const invalid = await list(v, JAN, 'tat_nopenopenopenopenopenopenope');
      expect(invalid.status).toBe(401);
      expect(invalid.body.error.code).toBe(401);
      const pat = await app.newPartner(['pat']);
      await app.grant(pat.partnerId, v);
      const noAccess = await list(v, JAN, pat.token);
      expect(noAccess.status).toBe(403);
      expect(noAccess.body.error.code).toBe(403);
    });

    it('an existing venue in scope with no orders in the window → 200 {total: 0, orders: []}', async () => {
      const v = await venue();
      await order(v, { closedAt: '2025-12-31T23:59:59.999Z' });
      expect((await list(v, JAN)).body).toEqual({ total: 0, orders: [] });
    });
  });

  it('the route is in the OpenAPI document with its query, responses and errors', async () => {
    const doc = (await app.http.get('/openapi.json')).body;
    const op = doc.paths['/v1/pos/venue/{venueId}/order'].get;
    expect(op.operationId).toBe('listClosedOrders');
    expect(op.tags).toEqual(['analytics']);
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['from', 'limit', 'offset', 'until', 'venueId']);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
  });
});
