import { readFileSync } from 'node:fs';
import { createTablesideClient, unwrap } from '@tableside/sdk';

// The sandbox partner that `npm start` seeds (its credentials are in .tableside/sandbox.json).
const sandbox = JSON.parse(readFileSync('.tableside/sandbox.json', 'utf8'));
const client = createTablesideClient({ baseUrl: sandbox.baseUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });

const venueId: string = sandbox.venueIds[0];
const { tables } = unwrap(await client.GET('/v1/pat/venue/{venueId}/tables', { params: { path: { venueId } } }));
for (const table of tables) {
  const result = await client.GET('/v1/pat/venue/{venueId}/table/{tableId}/bill', { params: { path: { venueId, tableId: table.id } } });
  if (result.response.status === 404) continue; // no open order at this table
  const bill = unwrap(result);
  // An order with nothing due (no items yet, or already paid) cannot take a payment: the next table.
  if (bill.totals.totalDue <= 0) {
    console.log(`${table.name}: nothing due, skipped`);
    continue;
  }
  const payment = unwrap(await client.POST('/v1/pat/venue/{venueId}/order/{orderId}/payment', {
    params: { path: { venueId, orderId: bill.orderId } },
    // externalReference is the payment's idempotency key: a retry with it never pays twice.
    body: { externalReference: `till-${Date.now()}`, type: 'full', amount: bill.totals.totalDue, paymentMethod: 'card' },
  }));
  console.log(`${table.name}: paid ${payment.amount} (${payment.status}), order ${payment.orderStatus}`);
  break;
}
