import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { startMapsBookingSimulator, type ApiCall, type MapsBookingSimulator, type ServiceAccountKeyFile } from '../../maps-booking-simulator/src/index.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { testTls } from '../helpers/http.ts';
import { PARTNER } from '../maps-booking-simulator/helpers.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// Google's real-time updates (DESIGN 8.7b) end to end on each store: a google-v3 channel books through
// /v3 over HTTPS against the reference RMS; changes reach the simulated Maps Booking API over HTTPS,
// each call carrying a token the simulator issued for the channel's service account after checking
// its RS256 JWT with the account's public key. Jobs run when the test says (manual clock, runDue).

const NOW = '2025-06-10T09:00:00Z';
const sec = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);
const at = (hhmm: string, day = '2025-06-11') => `${day}T${hhmm}:00+01:00`;
const user = { user_id: 'google-user-rtu', given_name: 'Ada', family_name: 'Lovelace', telephone: '+44 20 7946 0001', email: 'ada@example.com' };

describeEachStore('Google real-time updates', (store) => {
  let w: ChannelWorld;
  let g: TestChannel;
  let google: MapsBookingSimulator;
  let key: ServiceAccountKeyFile;
  let clock: ManualClock;
  let n = 0;
  const s = () => w.app.service.app.services;
  const runDue = () => w.app.service.runner.runDue();
  const post = (path: string, body: unknown) => w.app.http.post(`/v3/${path}`, { body, headers: { authorization: g.auth } });
  const create = async (start: string, partySize = 2) => {
    const res = await post('CreateBooking', {
      slot: { merchant_id: w.venueId, service_id: 'dining', start_sec: String(sec(start)), duration_sec: '5400', resources: { party_size: partySize } },
      user_information: user, idempotency_token: `rtu-${++n}`,
    });
    expect(res.body.booking, JSON.stringify(res.body)).toBeDefined();
    return res.body.booking as { booking_id: string };
  };
  const rmsIdOf = async (id: string) => (await s().bookings.get(id)).rmsBookingId!;
  const rms = async () => (await s().bookingServices.client(w.partnerId))!;
  const notice = async (rmsId: string, action: 'update' | 'cancel' = 'update') => {
    const res = await w.app.http.post('/v1/rms/notifications', { token: w.key, body: { entity: 'booking', entityId: rmsId, action } });
    expect(res.status).toBe(202);
  };
  const calls = (operation: ApiCall['operation']) => google.control.calls({ operation });

  beforeAll(async () => {
    clock = new ManualClock(NOW);
    w = await startChannelWorld({ app: { store, clock } });
    google = await startMapsBookingSimulator();
    key = await google.control.generateServiceAccount({ partnerId: PARTNER });
    s().googleRtu.trust(google.ca);
    // Four party sizes, not the default ten: each day Google hears of is 4 live RMS reads and 4 entries.
    const capped = await w.app.http.put(`/v1/rms/venues/${w.venueId}`, { token: w.key, body: { maxCovers: 4 } });
    expect(capped.status).toBe(200);
    g = await w.channel('google-v3', { name: 'Reserve with Google' });
    await s().googleRtu.configure({ channel: g.id, partnerId: PARTNER, serviceAccount: JSON.stringify(key), apiBase: google.baseUrl });
  });
  afterAll(async () => {
    await google?.close();
    await w?.close();
  });
  beforeEach(async () => {
    await w.sim.control.setClock({ set: NOW, frozen: true });
    await w.sim.control.setFailures({ mode: 'none', force402: null, slowMs: 0, operations: null });
    // Notices are sent by hand: each test says when the RMS tells Tableside.
    await w.sim.control.clearTableside();
    await w.setCompany({ minAdvanceBooking: 0, minAdvanceBookingCancelling: 0 });
    await runDue();
    await google.control.clearScript();
    await google.control.clearCalls();
  });

  it('[CHN-32] the service-account key is stored sealed and never answered', async () => {
    const { rows } = await sql<{ private_key_sealed: string; client_email: string; partner_id: string }>`
      SELECT private_key_sealed, client_email, partner_id FROM google_rtu_configs WHERE channel_id = ${g.id}`.execute(w.app.db.kysely);
    expect(rows[0]).toMatchObject({ client_email: key.client_email, partner_id: PARTNER });
    expect(rows[0]!.private_key_sealed).not.toContain('PRIVATE KEY');
    expect(rows[0]!.private_key_sealed).not.toContain(key.private_key.split('\n')[1]);
    const answer = await s().googleRtu.configure({ channel: g.id, partnerId: PARTNER, serviceAccount: JSON.stringify(key), apiBase: google.baseUrl });
    expect(JSON.stringify(answer)).not.toContain('PRIVATE');
    expect(answer).toEqual({ channelId: g.id, partnerId: PARTNER, apiBase: google.baseUrl, clientEmail: key.client_email, tokenUri: key.token_uri, enabled: true, updatedAt: expect.any(String) });
    const disabled = await s().googleRtu.configure({ channel: g.id, disable: true });
    expect(disabled).toMatchObject({ channelId: g.id, enabled: false });
    await s().googleRtu.configure({ channel: g.id, partnerId: PARTNER, serviceAccount: JSON.stringify(key), apiBase: google.baseUrl });
    const tableside = await w.channel('tableside', { link: [] });
    await expect(s().googleRtu.configure({ channel: tableside.id, partnerId: PARTNER, serviceAccount: JSON.stringify(key) })).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(s().googleRtu.configure({ channel: g.id, partnerId: PARTNER, serviceAccount: JSON.stringify({ ...key, private_key: 'nope' }) }))
      .rejects.toThrow(/private_key is not an RSA private key/);
  });

  it('[CHN-34] [CHN-33] a change made at the RMS sends exactly one notification after the notice’s re-read, status mapped; Google’s own change (/v3/UpdateBooking) and a re-read that changes nothing send none', async () => {
    const b = await create(at('19:00'));
    await post('UpdateBooking', { booking: { booking_id: b.booking_id, slot: { resources: { party_size: 3 } } }, update_mask: 'slot.resources.party_size' });
    await runDue();
    expect(await calls('notifyBooking')).toEqual([]);

    const rmsId = await rmsIdOf(b.booking_id);
    await (await rms()).cancelBooking(rmsId, { cancelActor: 'restaurant' });
    await runDue();
    expect(await calls('notifyBooking')).toEqual([]); // not before Tableside re-reads it
    await notice(rmsId, 'cancel');
    await runDue();
    const sent = await calls('notifyBooking');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: 'PATCH', path: `/v1alpha/notification/partners/${PARTNER}/bookings/${b.booking_id}`, query: { updateMask: 'status' },
      body: { name: `partners/${PARTNER}/bookings/${b.booking_id}`, merchantId: w.venueId, serviceId: 'dining', status: 'CANCELED' },
      serviceAccount: key.client_email, answer: { status: 200 },
    });
    expect(Object.keys(sent[0]!.body as object).sort()).toEqual(['merchantId', 'name', 'serviceId', 'status']);
    // The same notice again: its re-read changes nothing, so nothing more is sent.
    await notice(rmsId, 'cancel');
    await runDue();
    expect(await calls('notifyBooking')).toHaveLength(1);
    expect((await google.control.tokenRequests()).every((t) => t.status === 200)).toBe(true);
  });

  it('[CHN-34] [CHN-33] updateMask names exactly what changed: a move at the RMS is startTime, a party size partySize; a revoked token is replaced and the call resent once', async () => {
    const b = await create(at('18:00'));
    const rmsId = await rmsIdOf(b.booking_id);
    await runDue();
    await (await rms()).updateBooking(rmsId, { date: new Date(at('18:30')).toISOString() });
    await notice(rmsId);
    await runDue();
    // Google stops honouring the token Tableside holds: the 401 gets a new token and one resend.
    const tokensBefore = (await google.control.tokenRequests()).length;
    await google.control.revokeTokens();
    await (await rms()).updateBooking(rmsId, { partySize: 4 });
    await notice(rmsId);
    await runDue();
    const sent = await calls('notifyBooking');
    expect(sent.map((c) => [c.query.updateMask, c.answer?.status, c.body])).toEqual([
      ['startTime', 200, expect.objectContaining({ startTime: new Date(at('18:30')).toISOString().replace('.000Z', 'Z') })],
      ['partySize', 401, expect.objectContaining({ partySize: 4 })],
      ['partySize', 200, expect.objectContaining({ partySize: 4 })],
    ]);
    expect((await google.control.tokenRequests()).length).toBe(tokensBefore + 1);
    expect(sent.every((c) => !('status' in (c.body as object)))).toBe(true);
  });

  it('[CHN-36] [CHN-34] [CHN-37] a 503 is retried (first retry within 10 s); an update written meanwhile supersedes it, one call whose mask covers both; the log lists each attempt', async () => {
    const b = await create(at('20:00'));
    const rmsId = await rmsIdOf(b.booking_id);
    await runDue();
    await google.control.script('notifyBooking', { kind: 'status', status: 503 });
    await (await rms()).updateBooking(rmsId, { partySize: 5 });
    await notice(rmsId);
    await runDue();
    await (await rms()).cancelBooking(rmsId, {});
    await notice(rmsId, 'cancel');
    await runDue();
    expect((await calls('notifyBooking')).map((c) => c.answer?.status)).toEqual([503]);
    clock.advance(10_000);
    await runDue();
    const sent = await calls('notifyBooking');
    expect(sent.map((c) => [c.answer?.status, c.query.updateMask])).toEqual([[503, 'partySize'], [200, 'status,partySize']]);
    expect(sent[1]!.body).toMatchObject({ status: 'CANCELED', partySize: 5 });
    const log = await s().googleRtu.attempts(g.id, 10);
    expect(log.attempts.filter((a) => a.kind === 'booking' && a.target === b.booking_id).map((a) => [a.status, a.responseCode])).toEqual([
      ['sent', 200], ['retrying', 503],
    ]);
  });

  it('[CHN-36] [CHN-34] an update written while the one before is in flight at Google is sent right after it, never lost nor sent first', async () => {
    const b = await create(at('21:00'));
    const rmsId = await rmsIdOf(b.booking_id);
    await runDue();
    // Google holds the first notification's answer while the RMS cancels and Tableside records it.
    await google.control.script('notifyBooking', { kind: 'slow', delayMs: 2500 });
    await (await rms()).updateBooking(rmsId, { partySize: 3 });
    await notice(rmsId);
    const first = runDue();
    await eventually(async () => expect(await calls('notifyBooking')).toHaveLength(1), { what: 'the first notification at Google' });
    await (await rms()).cancelBooking(rmsId, {});
    await notice(rmsId, 'cancel');
    await runDue();
    await first;
    await runDue();
    const sent = await calls('notifyBooking');
    expect(sent.map((c) => [c.query.updateMask, c.answer?.status])).toEqual([['partySize', 200], ['status', 200]]);
    expect((await google.control.bookings()).find((x) => x.name.endsWith(b.booking_id))).toMatchObject({ status: 'CANCELED', partySize: 3 });
  });

  it('[CHN-36] a 429 waits for its Retry-After; another 4xx is recorded failed and not retried; retrying stops after 24 h', async () => {
    const b = await create(at('20:15'));
    const rmsId = await rmsIdOf(b.booking_id);
    await runDue();
    await google.control.script('notifyBooking', { kind: 'status', status: 429, retryAfter: '120' });
    await (await rms()).updateBooking(rmsId, { partySize: 3 });
    await notice(rmsId);
    await runDue();
    clock.advance(60_000);
    await runDue();
    expect((await calls('notifyBooking')).map((c) => c.answer?.status)).toEqual([429]);
    clock.advance(61_000);
    await runDue();
    expect((await calls('notifyBooking')).map((c) => c.answer?.status)).toEqual([429, 200]);

    await google.control.script('notifyBooking', { kind: 'status', status: 400 });
    await (await rms()).updateBooking(rmsId, { partySize: 4 });
    await notice(rmsId);
    await runDue();
    clock.advance(3600_000);
    await runDue();
    expect((await calls('notifyBooking')).map((c) => c.answer?.status)).toEqual([429, 200, 400]);
    const [refused] = (await s().googleRtu.attempts(g.id, 1)).attempts;
    expect(refused).toMatchObject({ kind: 'booking', target: b.booking_id, status: 'failed', responseCode: 400, answer: expect.stringContaining('INVALID_ARGUMENT') });

    await google.control.script('notifyBooking', { kind: 'status', status: 503 }, 2);
    await (await rms()).updateBooking(rmsId, { partySize: 6 });
    await notice(rmsId);
    await runDue();
    clock.advance(24 * 3600_000 + 1000);
    await runDue();
    clock.advance(3600_000);
    await runDue();
    expect((await calls('notifyBooking')).map((c) => c.answer?.status)).toEqual([429, 200, 400, 503, 503]);
    expect((await s().googleRtu.attempts(g.id, 1)).attempts[0]).toMatchObject({ status: 'failed', responseCode: 503 });
  });

  it('[CHN-35] a booking made, moved or cancelled through Tableside replaces that local day: one entry per party size the feed offers (up to the venue’s maxCovers), the whole day’s window', async () => {
    const b = await create(at('19:30'));
    await runDue();
    const [call] = await calls('replaceAvailability');
    expect(call).toMatchObject({ path: `/v1alpha/inventory/partners/${PARTNER}/availability:replace`, serviceAccount: key.client_email, answer: { status: 200 } });
    const entries = (call!.body as { extendedServiceAvailability: any[] }).extendedServiceAvailability;
    // Europe/London in June: the local day 2025-06-11 is [23:00Z the day before, 23:00Z).
    expect(entries.map((e) => e.resourcesRestrict.partySize)).toEqual([1, 2, 3, 4]);
    for (const e of entries) {
      expect(e).toMatchObject({ merchantId: w.venueId, serviceId: 'dining', startTimeRestrict: '2025-06-10T23:00:00Z', endTimeRestrict: '2025-06-11T23:00:00Z' });
      for (const r of e.availability) expect(r.resources).toEqual({ partySize: e.resourcesRestrict.partySize });
    }
    // The booked slot shows one spot fewer than the RMS's total for two.
    const two = entries.find((e) => e.resourcesRestrict.partySize === 2).availability.find((r: any) => r.startTime === new Date(at('19:30')).toISOString().replace('.000Z', 'Z'));
    expect(two.spotsOpen).toBeLessThan(two.spotsTotal);

    // Moved to the next day through Google, then cancelled: the day it left and the day it went to, then that day again.
    await google.control.clearCalls();
    await post('UpdateBooking', { booking: { booking_id: b.booking_id, slot: { start_sec: String(sec(at('19:30', '2025-06-12'))) } } });
    await runDue();
    await post('UpdateBooking', { booking: { booking_id: b.booking_id, status: 'CANCELED' }, update_mask: 'status' });
    await runDue();
    const windows = (await calls('replaceAvailability')).map((c) => (c.body as { extendedServiceAvailability: any[] }).extendedServiceAvailability[0].startTimeRestrict);
    expect(windows.sort()).toEqual(['2025-06-10T23:00:00Z', '2025-06-11T23:00:00Z', '2025-06-11T23:00:00Z']);
    expect(await calls('notifyBooking')).toEqual([]);
  });

  it('[CHN-35] a completed feed sends its changed venue-days in calls of at most 1,000 records, an entry never split; the same feed again sends nothing', async () => {
    await w.sim.control.setTableside({ tablesideUrl: w.app.url, apiKey: w.key, ca: testTls().cert });
    const pushed = await w.sim.control.pushFeed({ days: 20, startDate: '2025-06-14', venueIds: ['rms-venue-1'] });
    expect(pushed.shards.every((x) => x.status === 202)).toBe(true);
    await runDue();
    const sent = await calls('replaceAvailability');
    expect(sent.length).toBeGreaterThan(1);
    const seen = new Set<string>();
    for (const c of sent) {
      const entries = (c.body as { extendedServiceAvailability: any[] }).extendedServiceAvailability;
      expect(entries.reduce((k, e) => k + e.availability.length, 0)).toBeLessThanOrEqual(1000);
      for (const e of entries) {
        const k = `${e.startTimeRestrict}|${e.resourcesRestrict.partySize}`;
        expect(seen.has(k)).toBe(false);
        seen.add(k);
      }
    }
    expect(seen.size).toBe(20 * 4);
    await google.control.clearCalls();
    await w.sim.control.pushFeed({ days: 20, startDate: '2025-06-14', venueIds: ['rms-venue-1'] });
    await runDue();
    expect(await calls('replaceAvailability')).toEqual([]);
  });
});
