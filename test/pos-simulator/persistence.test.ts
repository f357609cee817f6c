// The simulator's state file (DESIGN 6.4, DES-089).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { harness, smallVenue, type SimHarness } from './sim-helpers.ts';

let dir: string;
let h: SimHarness | undefined;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'pos-sim-state-')); });
afterEach(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('[DES-089] state persisted to a JSON file survives a restart: key, venues, orders, payments, pending timers, clock, broken mode', async () => {
  const stateFile = join(dir, 'state.json');
  h = await harness({ stateFile });
  const apiKey = h.sim.apiKey;
  await smallVenue(h, 'v1', { behaviour: { payment: 'deferred', delayMs: 60_000, outcome: 'confirmed' } });
  await h.sim.control.setClock({ set: '2025-04-01T12:00:00Z', frozen: true });
  const created = (await h.call('POST', '/venue/v1/orders', { tables: ['T1', 'T2'], items: [{ sku: 'B', quantity: 1 }] })).body;
  const walkIn = await h.sim.control.openOrder('v1', { tables: ['T3'], checks: [{ items: [{ sku: 'A', quantity: 2 }] }] });
  await h.sim.control.closeOrder('v1', walkIn.id, { paymentMethod: 'cash' });
  expect((await h.call('POST', `/venue/v1/orders/${created.id}/payments`, { paymentId: 'p', type: 'full', amount: 10 })).status).toBe(202);
  await h.sim.control.setBroken('ignore-window');
  const before = (await h.call('GET', '/venue/v1/orders')).body;
  await h.close();
  h = undefined;

  // Written atomically: the file is complete JSON and no temp file is left behind.
  expect(JSON.parse(readFileSync(stateFile, 'utf8')).version).toBe(1);
  expect(readdirSync(dir)).toEqual(['state.json']);

  h = await harness({ stateFile });
  expect(h.sim.apiKey).toBe(apiKey);
  expect((await h.call('GET', '/venue/v1/orders')).body).toEqual(before);
  expect((await h.sim.control.broken()).mode).toBe('ignore-window');
  expect((await h.sim.control.clock()).now).toBe('2025-04-01T12:00:00.000Z');
  // The pending payment resumes: it confirms when its time comes on the restored clock.
  expect((await h.call('GET', `/venue/v1/orders/${created.id}/payments/p`)).body.status).toBe('pending');
  await h.sim.control.advanceClock(60_000);
  expect((await h.call('GET', `/venue/v1/orders/${created.id}/payments/p`)).body.status).toBe('confirmed');
  // New ids continue the sequences instead of reusing them.
  const next = (await h.call('POST', '/venue/v1/orders', { tables: ['T4'] })).body;
  expect(before.map((o: { id: string }) => o.id)).not.toContain(next.id);
});

it('[DES-089] without a state file nothing is written; a state file that is not simulator state is refused at start', async () => {
  h = await harness();
  await smallVenue(h);
  await h.close();
  h = undefined;
  expect(readdirSync(dir)).toEqual([]);
  const bad = join(dir, 'bad.json');
  (await import('node:fs')).writeFileSync(bad, '{"hello":"world"}');
  await expect(harness({ stateFile: bad })).rejects.toThrow(/not a version-1 simulator state/);
  expect(existsSync(bad)).toBe(true);
});

it('a restart on a state file that holds its state leaves the file as it is; a change is written again', async () => {
  const stateFile = join(dir, 'state.json');
  h = await harness({ stateFile });
  await smallVenue(h, 'v1');
  await h.close();
  h = undefined;
  const { ino, mtimeMs } = statSync(stateFile);
  const text = readFileSync(stateFile, 'utf8');

  // Saved at the start as before, but the same text is not written again (issue 28: the rename waited for the disk).
  h = await harness({ stateFile });
  expect(statSync(stateFile).ino).toBe(ino);
  expect(statSync(stateFile).mtimeMs).toBe(mtimeMs);
  await h.sim.control.setBroken('ignore-window');
  expect(statSync(stateFile).ino).not.toBe(ino);
  expect(readFileSync(stateFile, 'utf8')).not.toBe(text);
  expect(JSON.parse(readFileSync(stateFile, 'utf8')).broken).toBe('ignore-window');
  expect(readdirSync(dir)).toEqual(['state.json']);
});
