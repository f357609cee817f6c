import { expect, it } from 'vitest';
import { describeEachStore } from '../helpers/db.ts';
import { POS } from '../helpers/pat.ts';
import { startSeatingWorld, type RmsVenue, type SeatingWorld } from '../helpers/seating.ts';

// From seat to analytics (DESIGN 8.3c, spec 2.10, 2.13): a booking seated by the RMS opens its POS
// order; the bill shows its party size and prepayment (totalDue subtracts it); it is paid at the
// table like any other order; analytics reads it back closed with its reservationDate and prepayment.
// Walk-ins keep null. Real service, real POS simulator over HTTPS, every store.

const closedOrders = (w: SeatingWorld, v: RmsVenue) =>
  w.app.http.get(`/v1/pos/venue/${v.venueId}/order`, { token: w.partner.token, query: { from: '2026-01-15', until: '2026-01-15' } });

describeEachStore('a seated booking, end to end', (store) => {
  it('[BKG-29] [BKG-30] [BKG-34] seat -> POS order -> bill with partySize and prepayment -> pay -> analytics with reservationDate; a walk-in keeps null', async () => {
    const w = await startSeatingWorld({ store, clock: 'manual' });
    const v = await w.rmsVenue();

    const seated = await w.seat({
      bookingId: 'bk-e2e', venueId: v.externalId, status: 'seated', partySize: 2, tables: ['3'],
      date: '2026-01-15T12:30:00+01:00', prepayment: 10.5, items: [{ sku: 'BURGER', quantity: 2 }],
    });
    expect(seated.status, seated.text).toBe(200);
    const orderId = seated.body.orderId;

    const bill = await w.bill(v, '3');
    expect(bill.status, bill.text).toBe(200);
    expect(bill.body).toMatchObject({ orderId, partySize: 2 });
    expect(bill.body.totals).toMatchObject({ total: 29, prepayment: 10.5, paid: 0, totalDue: 18.5 });

    const paid = await w.pay(v, orderId, { externalReference: 'e2e-pay', amount: 18.5, type: 'full', paymentMethod: 'card' });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'confirmed', orderStatus: 'closed' });

    // A walk-in on another table, opened by staff on the POS and paid the same way.
    await w.openOrder(v.posVenueId, { tables: ['1'], partySize: 3, checks: [{ items: [{ sku: 'WINE', quantity: 1 }] }] } as never);
    const walkIn = await w.bill(v, '1');
    expect(walkIn.body.partySize).toBeNull();
    expect(walkIn.body.totals.prepayment).toBe(0);
    expect((await w.pay(v, walkIn.body.orderId, { externalReference: 'e2e-walk-in', amount: 6.9, type: 'full' })).status).toBe(200);

    const res = await closedOrders(w, v);
    expect(res.status, res.text).toBe(200);
    const seatedOrder = res.body.orders.find((o: { id: string }) => o.id === orderId);
    expect(seatedOrder).toMatchObject({ status: 'closed', tables: ['3'], partySize: 2, prepayment: 10.5 });
    expect(new Date(seatedOrder.reservationDate).toISOString()).toBe('2026-01-15T11:30:00.000Z');
    const walkInOrder = res.body.orders.find((o: { id: string }) => o.id === walkIn.body.orderId);
    expect(walkInOrder).toMatchObject({ partySize: null, reservationDate: null, prepayment: null });
  });

  it('[BKG-29] on a POS without bill retrieval the bill answers from the store at once, with partySize and prepayment', async () => {
    const w = await startSeatingWorld({ store, clock: 'manual' });
    const v = await w.rmsVenue({ posType: POS.stored });
    const seated = await w.seat({ bookingId: 'bk-stored', venueId: v.externalId, status: 'seated', partySize: 6, tables: ['2'], date: '2026-01-15T13:00:00+01:00', prepayment: 5, items: [{ sku: 'CAKE', quantity: 2 }] });
    expect(seated.status).toBe(200);
    const bill = await w.bill(v, '2');
    expect(bill.status, bill.text).toBe(200);
    expect(bill.body).toMatchObject({ orderId: seated.body.orderId, partySize: 6 });
    expect(bill.body.totals).toMatchObject({ total: 14.5, prepayment: 5, totalDue: 9.5 });
  });

  it('[BKG-29] a prepayment covering the whole bill leaves totalDue 0; a payment of 0 is refused (docs: nothing to charge)', async () => {
    const w = await startSeatingWorld({ store, clock: 'manual' });
    const v = await w.rmsVenue();
    const seated = await w.seat({ bookingId: 'bk-prepaid', venueId: v.externalId, status: 'seated', partySize: 2, tables: ['4'], date: '2026-01-15T13:00:00+01:00', prepayment: 50, items: [{ sku: 'ESP', quantity: 2 }] });
    const bill = await w.bill(v, '4');
    expect(bill.body.totals).toMatchObject({ total: 5, prepayment: 50, totalDue: 0 });
    const zero = await w.pay(v, seated.body.orderId, { externalReference: 'zero', amount: 0, type: 'full' });
    expect(zero.status).toBe(400);
    expect(zero.body.error.details.amount).toBeDefined();
  });
});
