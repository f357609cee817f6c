// Helpers for tests that drive the reference RMS over real HTTPS: start one, call the booking-services
// contract as Tableside would (undici, trusting only the simulator's certificate), close both.

import { Agent, request } from 'undici';
import { startRmsSimulator, type RmsSimulator, type RmsSimulatorOptions } from '../../rms-simulator/src/index.ts';

export interface Answer<T = any> { status: number; body: T; text: string; headers: Record<string, string | string[] | undefined> }

export interface RmsHarness {
  sim: RmsSimulator;
  /** Contract call with the simulator's key (auth: false = no header; a string = that key). */
  call<T = any>(method: 'GET' | 'POST' | 'PUT', path: string, opts?: { body?: unknown; auth?: boolean | string; key?: string }): Promise<Answer<T>>;
  /** POST /booking under an Idempotency-Key (a fresh one unless given). */
  book<T = any>(body: Record<string, unknown>, key?: string): Promise<Answer<T>>;
  close(): Promise<void>;
}

let keys = 0;

export async function harness(opts: RmsSimulatorOptions = {}): Promise<RmsHarness> {
  const sim = await startRmsSimulator(opts);
  let closing: Promise<void> | undefined;
  const agent = new Agent({ connect: { ca: sim.ca } });
  const call: RmsHarness['call'] = async (method, path, o = {}) => {
    const auth = o.auth ?? true;
    const headers: Record<string, string> = {};
    if (auth !== false) headers.authorization = `Bearer ${auth === true ? sim.apiKey : auth}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.key !== undefined) headers['idempotency-key'] = o.key;
    const res = await request(`${sim.baseUrl}${path}`, {
      method, headers, dispatcher: agent, body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    const text = await res.body.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, body: body as any, text, headers: res.headers };
  };
  return {
    sim,
    call,
    book: (body, key = `test-key-${++keys}`) => call('POST', '/booking', { body, key }),
    close: () => {
      closing ??= (async () => {
        await agent.close();
        await sim.close();
      })();
      return closing;
    },
  };
}

/** A small London venue, open every day 18:00-21:00 every 30 min, no advance rules, no payment. */
export function smallVenue(id = 'v1', extra: Record<string, unknown> = {}) {
  return {
    id,
    name: 'Small venue',
    timezone: 'Europe/London',
    currency: 'GBP',
    tables: [
      { id: 'A', minCovers: 1, maxCovers: 2, posTableId: 'pos-A' },
      { id: 'B', minCovers: 1, maxCovers: 2, posTableId: 'pos-B' },
      { id: 'C', minCovers: 2, maxCovers: 4 },
    ],
    combinations: [{ tables: ['A', 'B'], minCovers: 3, maxCovers: 4 }],
    hours: Object.fromEntries(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d) => [d, [{ open: '18:00', close: '21:00' }]])),
    slotIntervalMinutes: 30,
    turnTimes: [{ maxPartySize: 2, minutes: 90 }],
    defaultTurnMinutes: 120,
    ...extra,
  };
}

/** Freezes the simulator clock at 09:00 UTC of 2025-06-10; bookings go on 2025-06-11 (London is UTC+1). */
export const NOW = '2025-06-10T09:00:00Z';
export const DAY = '2025-06-11';
export const at = (hhmm: string) => `${DAY}T${hhmm}:00+01:00`;

export function bookingBody(overrides: Record<string, unknown> = {}) {
  return {
    venueId: 'v1',
    bookingChannel: { id: 'chan-1', name: 'Test channel' },
    partySize: 2,
    date: at('18:00'),
    contact: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', telephone: '+44 20 7946 0001' },
    notes: 'window seat',
    ...overrides,
  };
}
