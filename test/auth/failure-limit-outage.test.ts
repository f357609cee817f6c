import { expect, it, onTestFinished } from 'vitest';
import { openPostgres } from '../../src/db/db.ts';
import { startTestApp } from '../helpers/app.ts';
import { describePostgres, newPostgres } from '../helpers/db.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

// Found by the fleet drill (issue 29): the RateLimit headers go on every answer of a rate-limited
// route, and since the failure count is the fleet's (DES-031) they read it from PostgreSQL. While
// PostgreSQL was stopped, that read failed in the onSend hook and Fastify's fallback answered in
// place of the service: `{"statusCode":503,"code":"ECONNREFUSED",…,"message":"connect ECONNREFUSED
// 127.0.0.1:<port>"}` (no envelope, the database's address shown), or a 500 with Retry-After.

describePostgres('the RateLimit headers while the database is unreachable', () => {
  it('[ERR-08] [DES-031] a rate-limited route still answers the 503 envelope with Retry-After; the headers are left out, never the answer', async () => {
    const store = await newPostgres();
    onTestFinished(() => store.close());
    const pgUrl = new URL(process.env.TEST_DATABASE_URL ?? store.url);
    const proxy = await startTcpProxy(`http://${pgUrl.hostname}:${pgUrl.port || 5432}`);
    onTestFinished(() => proxy.close());
    const viaProxy = new URL(pgUrl.toString());
    viaProxy.port = new URL(proxy.url).port;
    const db = openPostgres(viaProxy.toString(), { schema: store.schema });
    onTestFinished(() => db.close());
    const app = await startTestApp({ db });
    onTestFinished(() => app.close());
    const partner = await app.newPartner(['pat']);

    const before = await app.http.get('/v1/pat/venues', { token: partner.token });
    expect(before.status).toBe(200);
    expect(before.headers['ratelimit-remaining']).toMatch(/^\d+$/);

    proxy.down();
    // The limiter keeps an address's count for a second; past it the headers need the database.
    await new Promise((r) => setTimeout(r, 1500));
    for (const token of [partner.token, 'not-a-token']) {
      const res = await app.http.get('/v1/pat/venues', { token });
      expect(res.status, res.text).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(res.body).toEqual({ error: { code: 503, message: expect.stringMatching(/database/), details: null } });
      expect(res.text).not.toMatch(/ECONN|127\.0\.0\.1|statusCode/);
    }
    proxy.up();
  });
});
