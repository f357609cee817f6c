import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../pos-simulator/src/index.ts';
import { PosClient, PosCreatedUnread, PosError } from '../../src/pos/pos-client.ts';
import { MiB, oversizedCall } from '../helpers/memory.ts';

// BKG-45 (DESIGN 8.8e): an answer over 8 MiB from a POS fails that call (an unreadable body, like
// one that is not JSON), and is never read whole: the reference POS streams it over real HTTPS (its
// oversized-answer knob), with a Content-Length that says so or chunked, and the process's memory
// does not grow by its size.

const V = 'sim-venue-1';
const BYTES = 128 * MiB;

describe('[BKG-45] the POS client reads at most 8 MiB of an answer', () => {
  let sim: Simulator;
  let client: PosClient;

  beforeAll(async () => {
    sim = await startSimulator({ seed: true });
    // A limit long enough to read the whole answer, so only the cap can stop the reading.
    client = new PosClient({ code: 'sim', baseUrl: sim.baseUrl, apiKey: sim.apiKey, ca: sim.ca }, { timeoutMs: 60_000 });
  });
  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });
  beforeEach(async () => {
    await sim.control.setOversized(null);
  });

  for (const chunked of [false, true]) {
    const how = chunked ? 'chunked (counted while reading)' : 'with Content-Length (refused before reading)';
    it(`[BKG-45] a 128 MiB answer ${how} fails the call as bad_json; memory does not grow by its size`, async () => {
      const { err, growth, answer } = await oversizedCall(sim.control, () => client.listOrders(V), { bytes: BYTES, chunked });
      expect(err).toBeInstanceOf(PosError);
      expect((err as PosError).kind).toBe('bad_json');
      expect((err as PosError).message).toMatch(/over 8388608 bytes/);
      expect(growth).toBeLessThan(BYTES / 2);
      expect(answer.completed).toBe(false);
      expect(answer.bytesStreamed).toBeLessThan(BYTES);
    });
  }

  it('[BKG-45] every call of the contract is capped: tables, create order, one order, a forwarded payment', async () => {
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['listTables', () => client.listTables(V)],
      ['createOrder', () => client.createOrder(V, { tables: ['1'], prepayment: 0 })],
      ['getOrder', () => client.getOrder(V, 'o-1')],
      ['forwardPayment', () => client.forwardPayment(V, 'o-1', { paymentId: 'p-1', type: 'full', amount: 1, tip: 0, currency: 'EUR', paymentMethod: null })],
    ];
    for (const [name, call] of calls) {
      const { err } = await oversizedCall(sim.control, call, { bytes: BYTES, chunked: true });
      expect(err, name).toBeInstanceOf(PosError);
      expect((err as PosError).message, name).toMatch(/over 8388608 bytes; not read/);
      // A create answered 2xx made the order whatever its body (BKG-37): unread, not a failure to retry.
      if (name === 'createOrder') expect(err, name).toBeInstanceOf(PosCreatedUnread);
      else expect((err as PosError).kind, name).toBe('bad_json');
    }
    // The knob cleared itself: the next call is answered as usual.
    expect((await client.listTables(V)).length).toBeGreaterThan(0);
  });
});
