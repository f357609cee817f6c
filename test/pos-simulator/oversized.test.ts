import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { startSimulator, type Simulator } from '../../pos-simulator/src/index.ts';
import { eventually } from '../helpers/eventually.ts';

// The oversized-answer knob (pos-simulator/src/oversized.ts), shared by the POS and RMS simulators
// (and, for its body, the Maps Booking API simulator): every authorised contract call answers a 200
// JSON body of the scripted size, with Content-Length or chunked, produced as the socket drains, so
// a 1 GiB answer to a client that stops reading is never built.

const KiB = 1024;
const MiB = 1024 * KiB;

interface AnySim { baseUrl: string; apiKey: string; ca: string; control: Simulator['control'] | RmsSimulator['control'] }

function suite(name: string, start: () => Promise<AnySim & { close(): Promise<void> }>, path: string) {
  describe(`[BKG-45] ${name}: the oversized-answer knob`, () => {
    let sim: AnySim & { close(): Promise<void> };
    let agent: Agent;
    beforeAll(async () => {
      sim = await start();
      agent = new Agent({ connect: { ca: sim.ca } });
    });
    afterAll(async () => {
      await agent?.close();
      await sim?.close();
    });
    beforeEach(async () => {
      await sim.control.setOversized(null);
    });
    const get = (auth = true) => request(`${sim.baseUrl}${path}`, { dispatcher: agent, headers: auth ? { authorization: `Bearer ${sim.apiKey}` } : {} });

    it('answers a 200 JSON body of exactly that size, with Content-Length unless chunked, then clears itself after count calls', async () => {
      for (const chunked of [false, true]) {
        await sim.control.setOversized({ bytes: 300 * KiB, chunked, count: 1 });
        const res = await get();
        const text = await res.body.text();
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-length']).toBe(chunked ? undefined : String(300 * KiB));
        expect(Buffer.byteLength(text)).toBe(300 * KiB);
        expect(JSON.parse(text).padding).toMatch(/^x+$/);
        const view = await sim.control.oversized();
        expect(view.knob).toBeNull();
        expect(view.answers.at(-1)).toMatchObject({ status: 200, oversizedBytes: 300 * KiB, bytesStreamed: 300 * KiB, completed: true });
      }
      const normal = await get();
      expect(normal.statusCode).toBe(200);
      expect(normal.headers['content-length']).not.toBe(String(300 * KiB));
      await normal.body.dump();
    });

    it('streams as the client reads: a client that stops after 1 MiB of a 1 GiB answer leaves the rest unbuilt; an unauthorised call is refused as before', async () => {
      await sim.control.setOversized({ bytes: 1024 * MiB, chunked: true });
      const res = await get();
      let read = 0;
      for await (const chunk of res.body) {
        read += (chunk as Buffer).length;
        if (read >= MiB) break;
      }
      const answer = await eventually(async () => {
        const last = (await sim.control.oversized()).answers.at(-1);
        expect(last?.ended).toBe(true);
        return last!;
      }, { what: 'the answer to end' });
      expect(answer.completed).toBe(false);
      expect(answer.bytesStreamed).toBeLessThan(64 * MiB);
      const refused = await get(false);
      expect(refused.statusCode).toBe(401);
      await refused.body.dump();
      expect((await sim.control.oversized()).knob).toEqual({ bytes: 1024 * MiB, chunked: true, remaining: null });
    });

    it('a reset clears the knob', async () => {
      await sim.control.setOversized({ bytes: 2 * MiB });
      await sim.control.reset();
      expect((await sim.control.oversized()).knob).toBeNull();
    });
  });
}

suite('the reference POS', () => startSimulator({ seed: true }), '/venue/sim-venue-1/tables');
suite('the reference RMS', () => startRmsSimulator({ seed: true }), '/healthcheck');
