import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { RmsClients, RmsError, type RmsClient } from '../../src/rms/rms-client.ts';
import { MiB, oversizedCall } from '../helpers/memory.ts';

// BKG-45 (DESIGN 8.8e): an answer over 8 MiB from an RMS fails that call as a bad answer, and is
// never read whole: the reference RMS streams it over real HTTPS (its oversized-answer knob), with
// a Content-Length that says so or chunked, and the process's memory does not grow by its size.

const BYTES = 128 * MiB;

describe.each([['HTTP/1.1', false], ['HTTP/2', true]] as const)('[BKG-45] the booking-services client reads at most 8 MiB of an answer (%s)', (_, http2) => {
  let sim: RmsSimulator;
  let clients: RmsClients;
  let client: RmsClient;

  beforeAll(async () => {
    sim = await startRmsSimulator({ seed: true, http2 });
    // A limit long enough to read the whole answer, so only the cap can stop the reading.
    clients = new RmsClients({ timeoutMs: 60_000, availabilityTimeoutMs: 60_000, allowPrivate: true });
    clients.trust(sim.ca);
    client = clients.for('partner', { baseUrl: sim.baseUrl, apiKey: sim.apiKey });
  });
  afterAll(async () => {
    await clients?.close();
    await sim?.close();
  });
  beforeEach(async () => {
    await sim.control.setOversized(null);
  });

  for (const chunked of [false, true]) {
    const how = chunked ? 'chunked (counted while reading)' : 'with Content-Length (refused before reading)';
    it(`[BKG-45] a 128 MiB answer ${how} fails the call as bad_answer; memory does not grow by its size`, async () => {
      const { err, growth, answer } = await oversizedCall(sim.control, () => client.getBooking('bk-1'), { bytes: BYTES, chunked });
      expect(err).toBeInstanceOf(RmsError);
      expect((err as RmsError).kind).toBe('bad_answer');
      expect((err as RmsError).message).toMatch(/over 8388608 bytes/);
      expect(growth).toBeLessThan(BYTES / 2);
      expect(answer.completed).toBe(false);
      expect(answer.bytesStreamed).toBeLessThan(BYTES);
    });
  }

  it('[BKG-45] every call of the contract is capped: availability, create, search and the healthcheck', async () => {
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['healthcheck', () => client.healthcheck()],
      ['availability', () => client.availability({ venueId: 'rms-venue-1', date: '2025-06-11', partySize: 2 })],
      ['createBooking', () => client.createBooking('bounded-1', {
        venueId: 'rms-venue-1', bookingChannel: { id: 'c', name: 'C' }, partySize: 2, date: '2025-06-11T19:00:00+01:00',
        contact: { firstname: 'A', lastname: 'B', email: 'a@example.com', telephone: '+44 20 7946 0001' },
      })],
      ['searchBookings', () => client.searchBookings({ venueId: 'rms-venue-1', startDate: '2025-06-11', endDate: '2025-06-11' })],
    ];
    for (const [name, call] of calls) {
      const { err } = await oversizedCall(sim.control, call, { bytes: BYTES, chunked: true });
      expect(err, name).toBeInstanceOf(RmsError);
      expect((err as RmsError).kind, name).toBe('bad_answer');
    }
    // The knob cleared itself: the next call is answered as usual.
    await client.healthcheck();
  });
});
