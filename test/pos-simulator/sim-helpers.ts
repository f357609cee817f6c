// Helpers for tests that drive the POS simulator over real HTTPS: start one, call the contract as
// the service would (undici, trusting only the simulator's certificate), and close both.

import { Agent, request } from 'undici';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../pos-simulator/src/index.ts';

export interface Answer<T = any> { status: number; body: T; headers: Record<string, string | string[] | undefined> }

export interface SimHarness {
  sim: Simulator;
  /** Contract call with the simulator's key (auth: false = no header; a string = that key). */
  call<T = any>(method: 'GET' | 'POST', path: string, body?: unknown, auth?: boolean | string): Promise<Answer<T>>;
  close(): Promise<void>;
}

export async function harness(opts: SimulatorOptions = {}): Promise<SimHarness> {
  const sim = await startSimulator({ ...opts });
  const agent = new Agent({ connect: { ca: sim.ca } });
  return {
    sim,
    async call(method, path, body, auth = true) {
      const headers: Record<string, string> = {};
      if (auth !== false) headers.authorization = `Bearer ${auth === true ? sim.apiKey : auth}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await request(`${sim.baseUrl}${path}`, {
        method, headers, dispatcher: agent, body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
    async close() {
      await agent.close();
      await sim.close();
    },
  };
}

/** A small venue with known prices: tables T1..T4, skus A (2.50), B (10.00), C (0.10). */
export async function smallVenue(h: SimHarness, id = 'v1', extra: Record<string, unknown> = {}) {
  return h.sim.control.createVenue({
    id,
    name: 'Test venue',
    timezone: 'Europe/Paris',
    currency: 'EUR',
    tables: [{ id: 'T1', name: 'One' }, { id: 'T2', name: 'Two' }, { id: 'T3', name: 'Three' }, { id: 'T4', name: 'Four' }],
    menu: [{ sku: 'A', name: 'Item A', price: 2.5 }, { sku: 'B', name: 'Item B', price: 10 }, { sku: 'C', name: 'Item C', price: 0.1 }],
    ...extra,
  });
}

export const DAY_MS = 24 * 60 * 60 * 1000;
