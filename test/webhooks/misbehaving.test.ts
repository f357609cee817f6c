import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { startWebhookWorld, type WebhookWorld } from './world.ts';

// Endpoints that misbehave: a hang, a huge answer, a redirect, a reset connection. Each is a failed
// attempt in the log (to be retried), and none holds back another endpoint's deliveries. The job
// poller runs for real here (no runDue), as in a server.

describeEachStore('misbehaving webhook endpoints', (store) => {
  let w: WebhookWorld;
  let p: TestPartner;
  let venue: string;
  beforeAll(async () => {
    w = await startWebhookWorld(store, { startJobs: true, config: { jobPollMs: 50 } });
    p = await w.app.newPartner(['pat'], 'P');
    p.token = (await w.app.service.app.services.auth.issueToken(p.partnerId, 86_400)).accessToken;
    venue = await w.app.newVenue();
    await w.app.grant(p.partnerId, venue);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('a huge answer is not read past a small cap, a redirect is not followed, a reset is a failed attempt; none is our error', async () => {
    const huge = await w.endpoint(p, ['order.closed'], '/huge');
    const moved = await w.endpoint(p, ['order.closed'], '/moved');
    const reset = await w.endpoint(p, ['order.closed'], '/reset');
    w.receiver.behave((r) =>
      r.path === '/huge' ? { hugeBody: 64 * 1024 * 1024 }
      : r.path === '/moved' ? { status: 302, headers: { location: `${w.receiver.url}/elsewhere` } }
      : r.path === '/reset' ? { reset: true }
      : { status: 204 },
    );
    await w.emitEvent({ venueId: venue }, 'order.closed', 'o-bad', {});
    const first = async (id: string) => eventually(async () => {
      const [attempt] = await w.attempts(p, id);
      return attempt ?? false;
    }, { what: `an attempt to ${id}` });
    expect(await first(huge.id)).toMatchObject({ status: 'failed', responseCode: 500, attempt: 1 });
    expect((await first(huge.id)).error.length).toBeLessThanOrEqual(500);
    expect(await first(moved.id)).toMatchObject({ status: 'failed', responseCode: 302 });
    expect(await first(reset.id)).toMatchObject({ status: 'failed', responseCode: null });
    expect(w.receiver.on('/elsewhere')).toEqual([]);
  });

  it('an endpoint that never answers does not hold back another endpoint; it fails after the 15 s limit', async () => {
    const slow = await w.endpoint(p, ['payment.confirmed'], '/slow');
    await w.endpoint(p, ['payment.failed'], '/fast');
    w.receiver.behave((r) => (r.path === '/slow' ? { hang: true } : { status: 204 }));
    await w.emitEvent({ partnerId: p.partnerId, venueId: venue }, 'payment.confirmed', 'pay-slow', {});
    await eventually(() => w.receiver.on('/slow').length === 1, { what: 'the slow endpoint called' });
    // While the slow attempt hangs, a later event for another endpoint is claimed and delivered.
    await w.emitEvent({ partnerId: p.partnerId, venueId: venue }, 'payment.failed', 'pay-fast', {});
    await eventually(() => w.receiver.on('/fast').length === 1, { what: 'the fast endpoint called' });
    expect(await w.attempts(p, slow.id)).toEqual([]);
    const [attempt] = await eventually(async () => {
      const log = await w.attempts(p, slow.id);
      return log.length > 0 ? log : false;
    }, { timeoutMs: 60_000, what: 'the slow attempt recorded' });
    expect(attempt).toMatchObject({ status: 'failed', responseCode: null, error: 'no answer within 15 s' });
  }, 90_000);
});
