import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.ts';
import { POS, startPatWorld } from '../helpers/pat.ts';

// The claim is one statement (issue 14): it locks the order and inserts the payment unless a
// unique index or the order's status refuses, and only then reads why. On a venue without
// forwarding the first payment is confirmed and closes the order inside its claim, so every request
// that waited on the order lock finds it closed: those with the same reference must still replay
// it, and only those with another reference get 422.

for (const store of availableStores()) {
  describe(`one-statement claim, no forwarding [${store}]`, () => {
    it('[DES-097] 30 concurrent submissions of one reference give one payment, the others replays, never a 422 although the first closed the order', async () => {
      const w = await startPatWorld({ store });
      const v = await w.connectVenue({ posType: POS.noForwarding });
      await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] }); // 29.00
      const bill = await w.bill(v, '1');
      const body = { externalReference: 'claim-same', amount: 29, type: 'full' };
      const results = await Promise.all(Array.from({ length: 30 }, () => w.pay(v, bill.body.orderId, body)));
      expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
      expect(new Set(results.map((r) => r.body.paymentId)).size).toBe(1);
      expect(results.filter((r) => r.headers['x-idempotent-replay'] !== 'true')).toHaveLength(1);
      expect(results.every((r) => r.body.status === 'confirmed' && r.body.orderStatus === 'closed')).toBe(true);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM payments WHERE order_id = ${bill.body.orderId}`.execute(w.app.db.kysely);
      expect(rows[0].n).toBe(1);
    });

    it('[PAY-41] full payments with different references racing on one order: one is confirmed and closes it, every other gets 422 and records nothing', async () => {
      const w = await startPatWorld({ store });
      const v = await w.connectVenue({ posType: POS.noForwarding });
      await w.openOrder(v.posVenueId, { tables: ['1'], checks: [{ items: [{ sku: 'BURGER', quantity: 2 }] }] });
      const bill = await w.bill(v, '1');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => w.pay(v, bill.body.orderId, { externalReference: `claim-${i}`, amount: 29, type: 'full' })),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(422)]);
      for (const r of results.filter((x) => x.status === 422)) expect(r.body.error.message).toMatch(/already closed/);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM payments WHERE order_id = ${bill.body.orderId}`.execute(w.app.db.kysely);
      expect(rows[0].n).toBe(1);
    });
  });
}
