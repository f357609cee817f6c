// Tableside's Maps Booking API client (DESIGN 8.7b) against the simulated Google over real HTTPS:
// the OAuth token obtained with the service account's RS256 JWT (checked by the simulator with the
// account's public key), reused and refreshed; Google's JSON; every failure typed for the job.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { MapsBookingClient, MapsBookingError, type MapsBookingClientOptions, type MapsBookingConfig } from '../../src/channels/maps-booking-client.ts';
import type { AvailabilityEntry } from '../../src/channels/maps-booking-client.fns.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { startMapsBookingSimulator } from '../../maps-booking-simulator/src/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { PARTNER, googleHarness, otherRsaKey, type GoogleHarness } from '../maps-booking-simulator/helpers.ts';

let h: GoogleHarness;
beforeAll(async () => {
  h = await googleHarness();
});
beforeEach(async () => {
  await h.sim.control.clearScript();
  await h.sim.control.clearCalls();
  await h.sim.control.setClock({ set: new Date().toISOString(), frozen: false });
});
afterAll(() => h.close());

function config(over: Partial<MapsBookingConfig['serviceAccount']> = {}): MapsBookingConfig {
  return {
    partnerId: PARTNER,
    apiBase: h.sim.baseUrl,
    serviceAccount: { clientEmail: h.key.client_email, privateKey: h.key.private_key, tokenUri: h.key.token_uri, ...over },
  };
}

function clientOf(opts: MapsBookingClientOptions = {}, cfg = config()): MapsBookingClient {
  const client = new MapsBookingClient(cfg, { ca: h.sim.ca, ...opts });
  onTestFinished(() => client.close());
  return client;
}

const cancel = { merchantId: 'venue-1', status: 'CANCELED' as const };
const notify = (client: MapsBookingClient, id = 'bk-1') => client.notifyBooking(id, cancel, ['status']);

async function failure(promise: Promise<unknown>): Promise<MapsBookingError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(MapsBookingError);
  return err as MapsBookingError;
}

function dayOf(partySize: number, slots: number): AvailabilityEntry {
  return {
    merchantId: 'venue-1', partySize,
    startTimeRestrict: '2025-06-11T00:00:00+01:00', endTimeRestrict: '2025-06-12T00:00:00+01:00',
    slots: Array.from({ length: slots }, (_, i) => ({ startTime: new Date(Date.UTC(2025, 5, 10, 23) + i * 60_000), durationSec: 5400, spotsTotal: 4, spotsOpen: 3 })),
  };
}

describe('access tokens', () => {
  it('[CHN-33] a token is obtained once with the service account’s RS256 JWT (iss, aud = token_uri, mapsbooking scope, an hour) and reused for every call', async () => {
    const client = clientOf();
    for (const id of ['bk-1', 'bk-2', 'bk-3']) await notify(client, id);
    await client.replaceAvailability([dayOf(2, 1)]);

    const tokens = await h.sim.control.tokenRequests();
    expect(tokens).toHaveLength(1);
    const { claims } = tokens[0];
    expect(claims).toMatchObject({ iss: h.key.client_email, aud: h.sim.tokenUri, scope: 'https://www.googleapis.com/auth/mapsbooking' });
    expect((claims!.exp as number) - (claims!.iat as number)).toBe(3600);
    const calls = await h.sim.control.calls();
    expect(calls.map((c) => [c.operation, c.serviceAccount, c.answer?.status])).toEqual([
      ['notifyBooking', h.key.client_email, 200], ['notifyBooking', h.key.client_email, 200], ['notifyBooking', h.key.client_email, 200],
      ['replaceAvailability', h.key.client_email, 200],
    ]);
  });

  it('[CHN-33] calls made at once share one token request', async () => {
    const client = clientOf();
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => notify(client, id)));
    expect(await h.sim.control.tokenRequests()).toHaveLength(1);
    expect(await h.sim.control.calls()).toHaveLength(4);
  });

  it('[CHN-33] a token about to expire is replaced before the call, with no 401 on the way', async () => {
    const start = '2026-01-15T12:00:00.000Z';
    await h.sim.control.setClock({ set: start, frozen: true });
    const clock = new ManualClock(start);
    const client = clientOf({ clock });
    await notify(client);
    clock.advance(3599_000 - 300_000);
    await h.sim.control.advanceClock(3599_000 - 300_000);
    await notify(client);
    expect(await h.sim.control.tokenRequests()).toHaveLength(2);
    expect((await h.sim.control.calls()).map((c) => c.answer?.status)).toEqual([200, 200]);
  });

  it('[CHN-33] a 401 from a method gets a new token and one resend', async () => {
    const client = clientOf();
    await notify(client, 'bk-1');
    await h.sim.control.revokeTokens();
    const held = await notify(client, 'bk-2');
    expect(held).toMatchObject({ name: `partners/${PARTNER}/bookings/bk-2`, status: 'CANCELED' });
    expect(await h.sim.control.tokenRequests()).toHaveLength(2);
    expect((await h.sim.control.calls()).map((c) => [c.bookingId, c.answer?.status])).toEqual([['bk-1', 200], ['bk-2', 401], ['bk-2', 200]]);
  });

  it('[CHN-33] a second 401 fails as unauthorized, after exactly one resend', async () => {
    await h.sim.control.script('notifyBooking', { kind: 'status', status: 401 }, 2);
    const err = await failure(notify(clientOf()));
    expect(err).toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(err).toMatchObject({ status: 401, googleStatus: 'UNAUTHENTICATED' });
    expect(await h.sim.control.calls()).toHaveLength(2);
    expect(await h.sim.control.tokenRequests()).toHaveLength(2);
  });

  it('[CHN-33] the token endpoint refusing the service account (unknown account, another key) fails as unauthorized with Google’s reason; no method is called', async () => {
    const unknown = await failure(notify(clientOf({}, config({ clientEmail: 'nobody@example.iam.gserviceaccount.com' }))));
    expect(unknown).toMatchObject({ kind: 'unauthorized', status: 400, googleStatus: 'invalid_grant' });
    expect(unknown.googleMessage).toBe('invalid_grant: Invalid grant: account not found');
    const otherKey = otherRsaKey().export({ type: 'pkcs8', format: 'pem' }).toString();
    const forged = await failure(notify(clientOf({}, config({ privateKey: otherKey }))));
    expect(forged.googleMessage).toBe('invalid_grant: Invalid JWT Signature.');
    const broken = await failure(notify(clientOf({}, config({ privateKey: 'not a key' }))));
    expect(broken.kind).toBe('unauthorized');
    expect(await h.sim.control.calls()).toEqual([]);
  });
});

describe('Google’s JSON', () => {
  it('[CHN-34] a booking notification: PATCH with the update mask, startTime RFC 3339 UTC, duration "Ns", counts as integers', async () => {
    const update = { merchantId: 'venue-1', status: 'CONFIRMED' as const, startTime: new Date('2025-06-11T19:30:00+01:00'), durationSec: 7200, partySize: 4 };
    await clientOf().notifyBooking('bk-9', update, ['partySize', 'startTime', 'duration', 'status']);
    const [call] = await h.sim.control.calls();
    expect(call.method).toBe('PATCH');
    expect(call.path).toBe(`/v1alpha/notification/partners/${PARTNER}/bookings/bk-9`);
    expect(call.query).toEqual({ updateMask: 'status,startTime,duration,partySize' });
    expect(call.body).toEqual({
      name: `partners/${PARTNER}/bookings/bk-9`, merchantId: 'venue-1', serviceId: 'dining',
      status: 'CONFIRMED', startTime: '2025-06-11T18:30:00Z', duration: '7200s', partySize: 4,
    });
  });

  it('[CHN-35] availability replace: one entry per venue, day and party size, the whole local day as its window', async () => {
    const answer = await clientOf().replaceAvailability([dayOf(2, 2), dayOf(4, 0)]);
    const [call] = await h.sim.control.calls();
    expect(call.path).toBe(`/v1alpha/inventory/partners/${PARTNER}/availability:replace`);
    expect(call.body).toEqual({
      extendedServiceAvailability: [
        {
          merchantId: 'venue-1', serviceId: 'dining', startTimeRestrict: '2025-06-10T23:00:00Z', endTimeRestrict: '2025-06-11T23:00:00Z',
          resourcesRestrict: { partySize: 2 },
          availability: [
            { startTime: '2025-06-10T23:00:00Z', duration: '5400s', spotsTotal: 4, spotsOpen: 3, resources: { partySize: 2 } },
            { startTime: '2025-06-10T23:01:00Z', duration: '5400s', spotsTotal: 4, spotsOpen: 3, resources: { partySize: 2 } },
          ],
        },
        { merchantId: 'venue-1', serviceId: 'dining', startTimeRestrict: '2025-06-10T23:00:00Z', endTimeRestrict: '2025-06-11T23:00:00Z', resourcesRestrict: { partySize: 4 }, availability: [] },
      ],
    });
    expect(answer).toEqual(call.body);
  });
});

describe('failures, typed for the job', () => {
  it('[CHN-36] 429 with Retry-After is rate_limited with the delay in ms', async () => {
    await h.sim.control.script('notifyBooking', { kind: 'status', status: 429, retryAfter: '30' });
    const err = await failure(notify(clientOf()));
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 30_000 });
    expect(err.googleStatus).toBe('RESOURCE_EXHAUSTED');
  });

  it('[CHN-36] 503, from a method or from the token endpoint, is unavailable', async () => {
    await h.sim.control.script('replaceAvailability', { kind: 'status', status: 503 });
    expect(await failure(clientOf().replaceAvailability([dayOf(2, 1)]))).toMatchObject({ kind: 'unavailable', status: 503, retryAfterMs: null });
    await h.sim.control.script('token', { kind: 'status', status: 503, retryAfter: '7' });
    expect(await failure(notify(clientOf()))).toMatchObject({ kind: 'unavailable', status: 503, retryAfterMs: 7000 });
  });

  it('[CHN-36] another 4xx is rejected, with Google’s status and message', async () => {
    await h.sim.control.script('notifyBooking', { kind: 'status', status: 400, body: { error: { code: 400, message: 'Booking bk-1 not found', status: 'INVALID_ARGUMENT' } } });
    const scripted = await failure(notify(clientOf()));
    expect(scripted).toMatchObject({ kind: 'rejected', status: 400, message: expect.stringContaining('Booking bk-1 not found') });
    expect(scripted).toMatchObject({ googleStatus: 'INVALID_ARGUMENT', googleMessage: 'Booking bk-1 not found' });
    // Google's own check: an entry is never split, so one over 1,000 records is refused whole.
    const tooBig = await failure(clientOf().replaceAvailability([dayOf(2, 1001)]));
    expect(tooBig).toMatchObject({ kind: 'rejected', status: 400 });
    expect(tooBig.googleMessage).toMatch(/at most 1000/);
  });

  it('[CHN-36] an answer over 1 MiB fails as bad_answer, and is not read to its end (DESIGN 8.8e)', async () => {
    const bytes = 32 * 1024 * 1024;
    await h.sim.control.script('notifyBooking', { kind: 'oversized', bytes });
    expect(await failure(notify(clientOf()))).toMatchObject({ kind: 'bad_answer', status: 200, message: expect.stringContaining('over 1048576 bytes') });
    const answer = await eventually(async () => {
      const [call] = await h.sim.control.calls();
      expect(call.answer?.bytesStreamed).toBeGreaterThan(1024 * 1024);
      return call.answer!;
    });
    expect(answer.completed).toBe(false);
    expect(answer.bytesStreamed).toBeLessThan(bytes);
    await h.sim.control.script('token', { kind: 'oversized', bytes: 2 * 1024 * 1024 });
    expect(await failure(notify(clientOf()))).toMatchObject({ kind: 'bad_answer' });
  });

  it('[CHN-36] a success that is not JSON is a bad_answer', async () => {
    await h.sim.control.script('notifyBooking', { kind: 'status', status: 200, body: '<html>ok</html>' });
    expect(await failure(notify(clientOf()))).toMatchObject({ kind: 'bad_answer', status: 200 });
  });

  it('[CHN-36] no answer within the time limit is a timeout', async () => {
    await h.sim.control.script('notifyBooking', { kind: 'hang' });
    expect(await failure(notify(clientOf({ timeoutMs: 500 })))).toMatchObject({ kind: 'timeout' });
  });

  it('[CHN-36] Google unreachable is a network failure', async () => {
    const gone = await startMapsBookingSimulator();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const client = clientOf({}, { ...config({ tokenUri: `${baseUrl}/token` }), apiBase: baseUrl });
    expect(await failure(notify(client))).toMatchObject({ kind: 'network', message: expect.stringContaining('ECONNREFUSED') });
  });
});
