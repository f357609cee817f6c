// startSimulator({ seed: true }) seeds its demo in-process (issue 28): the same state as the demo
// seeded over the control API, whose routes check each body against their schemas.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { simStateOf as stateOf } from '../helpers/sim-state.ts';
import { DEMO_VENUE_IDS, seedDemo, startSimulator, type Simulator } from '../../pos-simulator/src/index.ts';

let dir: string;
const started: Simulator[] = [];
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'pos-sim-seed-')); });
afterEach(async () => {
  for (const sim of started.splice(0)) await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

it('the demo seeded at start is the demo the control API seeds: venues, tables, menus, open, paid and voided orders', async () => {
  const inProcess = join(dir, 'in-process.json');
  const overHttp = join(dir, 'over-http.json');
  started.push(await startSimulator({ stateFile: inProcess, seed: true }));
  const viaControl = await startSimulator({ stateFile: overHttp });
  started.push(viaControl);
  await seedDemo(viaControl.control);

  const seeded = stateOf(inProcess) as { venues: Array<{ id: string }>; orders: unknown[] };
  expect(seeded.venues.map((v) => v.id)).toEqual([...DEMO_VENUE_IDS]);
  expect(seeded.orders).toHaveLength(8);
  expect(seeded).toEqual(stateOf(overHttp));
});

it('a venue of the demo the state file already holds is kept as it is; the others are seeded', async () => {
  const stateFile = join(dir, 'state.json');
  const first = await startSimulator({ stateFile });
  await first.control.createVenue({ id: DEMO_VENUE_IDS[0], name: 'Renamed bistro', currency: 'EUR', timezone: 'Europe/Paris' });
  await first.close();

  const sim = await startSimulator({ stateFile, seed: true });
  started.push(sim);
  const venues = await sim.control.listVenues();
  expect(venues.map((v) => [v.id, v.name])).toEqual([[DEMO_VENUE_IDS[0], 'Renamed bistro'], [DEMO_VENUE_IDS[1], 'Simulated Brasserie']]);
  expect((stateOf(stateFile) as { orders: Array<{ venueId: string }> }).orders.every((o) => o.venueId === DEMO_VENUE_IDS[1])).toBe(true);
});

it('putVenue in-process makes the venue the control API\'s PUT makes, and refuses a time zone it does not know', async () => {
  const input = {
    name: 'Simulated Trattoria', timezone: 'Europe/Rome', currency: 'eur', itemsSupported: true, behaviour: { payment: 'immediate' as const },
    tables: [{ id: '301', name: 'Tavolo 1' }], menu: [{ sku: 'ESP', name: 'Espresso', price: 2.5 }],
  };
  const inProcess = join(dir, 'in-process.json');
  const overHttp = join(dir, 'over-http.json');
  const local = await startSimulator({ stateFile: inProcess });
  started.push(local);
  const remote = await startSimulator({ stateFile: overHttp });
  started.push(remote);
  expect(local.putVenue('sim-venue-3', input)).toEqual(await remote.control.putVenue('sim-venue-3', input));
  expect(stateOf(inProcess)).toEqual(stateOf(overHttp));
  // The input is copied: changing the caller's object later changes nothing of the venue.
  input.tables[0]!.name = 'changed';
  expect((await local.control.getVenue('sim-venue-3')).tables).toEqual([{ id: '301', name: 'Tavolo 1' }]);
  expect(() => local.putVenue('sim-venue-4', { timezone: 'Mars/Base' })).toThrow(/unknown timezone/);
});
