// startRmsSimulator({ seed: true }) seeds its demo in-process (issue 28): the same state as the demo
// seeded over the control API, whose route checks each body against its schema.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { simStateOf as stateOf } from '../helpers/sim-state.ts';
import { DEMO_VENUE_IDS, seedDemo, startRmsSimulator, type RmsSimulator } from '../../rms-simulator/src/index.ts';

let dir: string;
const started: RmsSimulator[] = [];
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'rms-sim-seed-')); });
afterEach(async () => {
  for (const sim of started.splice(0)) await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

it('the demo seeded at start is the demo the control API seeds', async () => {
  const inProcess = join(dir, 'in-process.json');
  const overHttp = join(dir, 'over-http.json');
  started.push(await startRmsSimulator({ stateFile: inProcess, seed: true }));
  const viaControl = await startRmsSimulator({ stateFile: overHttp });
  started.push(viaControl);
  await seedDemo(viaControl.control);

  const seeded = stateOf(inProcess) as { venues: Array<{ id: string }> };
  expect(seeded.venues.map((v) => v.id)).toEqual([...DEMO_VENUE_IDS]);
  expect(seeded).toEqual(stateOf(overHttp));
});
