import { describe, expect, it } from 'vitest';
import { POS, startPatWorld } from '../helpers/pat.ts';

describe('pay-at-table world', () => {
  it('connects a venue, reads a bill and pays it in full', async () => {
    const w = await startPatWorld();
    const venue = await w.connectVenue({ posType: POS.immediate });
    await w.openOrder(venue.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] });
    const bill = await w.bill(venue, '1');
    expect(bill.status).toBe(200);
    expect(bill.body.totals.totalDue).toBe(29);
    const paid = await w.pay(venue, bill.body.orderId, { externalReference: 'r1', amount: 29, type: 'full' });
    expect(paid.status).toBe(200);
    expect(paid.body.orderStatus).toBe('closed');
  });
});
