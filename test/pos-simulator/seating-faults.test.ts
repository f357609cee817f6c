// The simulator's seating-fault knobs (DESIGN 8.8a): scripted create answers, the id sent kept as the
// order id, calls held until released. What the service does with them: test/rms/seated-reservations-faults.test.ts.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { harness, smallVenue, type SimHarness } from './sim-helpers.ts';

let h: SimHarness;
beforeEach(async () => { h = await harness(); });
afterEach(() => h.close());

const create = (id: string, table = 'T1') => h.call('POST', '/venue/v1/orders', { id, tables: [table], partySize: 2, prepayment: 0 });

it('(DESIGN 8.8a) scripted create answers, one per create and then normal: each answer but the plain 503/429 made the order', async () => {
  await smallVenue(h);
  await h.sim.control.setSeatingFaults('v1', { createAnswers: ['empty', 'id-only', 'error503', 'error429', 'error503-after-create'] });
  const empty = await create('a');
  expect([empty.status, empty.body]).toEqual([201, undefined]);
  const idOnly = await create('b');
  expect(idOnly).toMatchObject({ status: 201, body: { id: expect.any(String) } });
  expect(idOnly.body.checkNumber).toBeUndefined();
  expect((await create('c')).status).toBe(503);
  expect((await create('d')).status).toBe(429);
  expect((await create('e')).status).toBe(503);
  expect(await create('f')).toMatchObject({ status: 201, body: { id: expect.any(String), checkNumber: expect.any(String) } });
  const open = (await h.call('GET', '/venue/v1/orders?status=open')).body as Array<{ reservationId: string }>;
  expect(open.map((o) => o.reservationId).sort()).toEqual(['a', 'b', 'e', 'f']);
  expect((await h.sim.control.seatingFaults('v1')).createAnswers).toEqual([]);
});

it('(DESIGN 8.8a) echoId: the order takes the id sent as its own id when it is free', async () => {
  await smallVenue(h);
  await h.sim.control.setSeatingFaults('v1', { echoId: true });
  expect((await create('tableside-1')).body.id).toBe('tableside-1');
  expect((await h.call('GET', '/venue/v1/orders/tableside-1')).status).toBe(200);
  // Taken: the POS's own next id.
  expect((await create('tableside-1', 'T2')).body.id).not.toBe('tableside-1');
});

it('(DESIGN 8.8a) hold: contract calls wait until released; newest lets only the last one go', async () => {
  await smallVenue(h);
  await h.sim.control.setSeatingFaults('v1', { hold: true });
  const first = h.call('GET', '/venue/v1/tables');
  await eventually(async () => expect((await h.sim.control.seatingFaults('v1')).holding).toBe(1), { what: 'one call held' });
  const second = h.call('GET', '/venue/v1/orders');
  await eventually(async () => expect((await h.sim.control.seatingFaults('v1')).holding).toBe(2), { what: 'two calls held' });
  expect(await h.sim.control.release('v1', { newest: true })).toEqual({ released: 1 });
  expect((await second).status).toBe(200);
  expect((await h.sim.control.seatingFaults('v1')).holding).toBe(1);
  await h.sim.control.setSeatingFaults('v1', {});
  expect((await first).status).toBe(200);
});
