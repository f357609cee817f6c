// The simulator's control API: scripted answers (a status with Google's body or another, Retry-After,
// a hang, a slow answer, an oversized body), counted per operation; the read-only key; reset.
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NOTIFY_PATH, REPLACE_PATH, assertion, booking, dayEntry, googleHarness, type GoogleHarness } from './helpers.ts';
import { MapsBookingControlClient } from '../../maps-booking-simulator/src/index.ts';

let h: GoogleHarness;
let token: string;
beforeAll(async () => {
  h = await googleHarness();
  token = await h.accessToken();
});
beforeEach(async () => {
  await h.sim.control.clearScript();
  await h.sim.control.clearCalls();
});
afterAll(() => h.close());

const notify = (id = 'b1') => h.call('PATCH', NOTIFY_PATH(id, 'status'), { token, body: booking(id, { status: 'CONFIRMED' }) });

describe('scripted answers', () => {
  it('the next call answers the scripted status with Google’s error JSON and Retry-After; the one after is real', async () => {
    await h.sim.control.script('notifyBooking', { kind: 'status', status: 429, retryAfter: '30' });
    const limited = await notify();
    expect(limited).toMatchObject({ status: 429, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } } });
    expect(limited.headers['retry-after']).toBe('30');
    expect((await notify()).status).toBe(200);
    const calls = await h.sim.control.calls();
    expect(calls.map((c) => c.answer)).toEqual([
      { status: 429, body: limited.body, retryAfter: '30' },
      expect.objectContaining({ status: 200 }),
    ]);
  });

  it('a count covers that many calls of that operation only, in the order scripted', async () => {
    await h.sim.control.script('notifyBooking', { kind: 'status', status: 503 }, 2);
    await h.sim.control.script('notifyBooking', { kind: 'status', status: 400, body: { error: { code: 400, message: 'Booking not found', status: 'INVALID_ARGUMENT' } } });
    const replace = await h.call('POST', REPLACE_PATH(), { token, body: { extendedServiceAvailability: [dayEntry(1)] } });
    expect(replace.status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await notify()).status);
    expect(statuses).toEqual([503, 503, 400, 200]);
    expect((await h.sim.control.calls({ operation: 'notifyBooking' }))[2].answer?.body).toEqual({ error: { code: 400, message: 'Booking not found', status: 'INVALID_ARGUMENT' } });
    expect(await h.sim.control.scripts()).toEqual([]);
  });

  it('the token endpoint can be scripted too', async () => {
    await h.sim.control.script('token', { kind: 'status', status: 503 });
    expect((await h.exchange(await assertion(h.key))).status).toBe(503);
    expect((await h.exchange(await assertion(h.key))).status).toBe(200);
  });

  it('a slow answer is the real one, late', async () => {
    await h.sim.control.script('notifyBooking', { kind: 'slow', delayMs: 50 });
    expect((await notify()).status).toBe(200);
  });

  it('an oversized answer is a 200 body of exactly that many bytes, streamed without Content-Length', async () => {
    await h.sim.control.script('replaceAvailability', { kind: 'oversized', bytes: 300_000 });
    const res = await h.call('POST', REPLACE_PATH(), { token, body: { extendedServiceAvailability: [dayEntry(1)] } });
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    expect(Buffer.byteLength(res.text)).toBe(300_000);
    expect(JSON.parse(res.text).padding).toMatch(/^x+$/);
    const [call] = await h.sim.control.calls();
    expect(call.answer).toMatchObject({ status: 200, oversizedBytes: 300_000, bytesStreamed: 300_000, completed: true });
  });

  it('a hang never answers: the call stays unanswered in the log, and closing the simulator still ends it', async () => {
    const sim = await googleHarness();
    const t = await sim.accessToken();
    await sim.sim.control.script('notifyBooking', { kind: 'hang' });
    const pending = sim.call('PATCH', NOTIFY_PATH('b1', 'status'), { token: t, body: booking('b1', { status: 'CONFIRMED' }) }).catch((err: Error) => err);
    await expect.poll(async () => (await sim.sim.control.calls()).length).toBe(1);
    expect((await sim.sim.control.calls())[0].answer).toBeNull();
    await sim.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('control keys and reset', () => {
  it('the read-only key reads calls, token requests and bookings, and nothing else; no key reads nothing', async () => {
    const reader = new MapsBookingControlClient(h.sim.baseUrl, h.sim.readKey, h.sim.ca);
    try {
      await notify();
      expect(await reader.calls()).toHaveLength(1);
      expect(Array.isArray(await reader.tokenRequests())).toBe(true);
      expect(await reader.bookings()).toContainEqual(booking('b1', { status: 'CONFIRMED' }));
      await expect(reader.script('notifyBooking', { kind: 'hang' })).rejects.toMatchObject({ statusCode: 401 });
      await expect(reader.serviceAccounts()).rejects.toMatchObject({ statusCode: 401 });
    } finally {
      await reader.close();
    }
    const agent = new Agent({ connect: { ca: h.sim.ca } });
    const anonymous = await request(`${h.sim.baseUrl}/_control/calls`, { dispatcher: agent });
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.text();
    await agent.close();
  });

  it('reset forgets the accounts and their tokens', async () => {
    const own = await googleHarness();
    try {
      const t = await own.accessToken();
      await own.sim.control.reset();
      expect(await own.sim.control.serviceAccounts()).toEqual([]);
      expect((await own.call('PATCH', NOTIFY_PATH('b1', 'status'), { token: t, body: booking('b1', { status: 'CONFIRMED' }) })).status).toBe(401);
      expect((await own.exchange(await assertion(own.key))).body.error).toBe('invalid_grant');
    } finally {
      await own.close();
    }
  });
});
