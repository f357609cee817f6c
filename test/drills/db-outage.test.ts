import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import { openPostgres } from '../../src/db/db.ts';
import { describePostgres, newPostgres } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import type { HttpResponse } from '../helpers/http.ts';
import { POS, startPatWorld } from '../helpers/pat.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

// The database-outage drill (issue 15, ERR-08): the service reaches PostgreSQL through a TCP proxy;
// cutting the proxy is what a PostgreSQL restart looks like from the service (every connection
// dropped, new ones refused). Under load, while the database is gone, every answer is a 503 with
// Retry-After in the envelope (never a 500); once it is back the service serves again by itself,
// and every payment a partner retried with the same externalReference exists once.
// `npm run drill:db-outage` runs this file alone; DRILL_OUTAGES sets how many outages (default 1).

const OUTAGES = Number(process.env.DRILL_OUTAGES ?? 1);

describePostgres('database outage under load', () => {
  it('[ERR-08] [DES-097] while PostgreSQL is unreachable: 503 + Retry-After, never 500; recovers without a restart; retried payments recorded once', async () => {
    const store = await newPostgres();
    onTestFinished(() => store.close());
    const pgUrl = new URL(process.env.TEST_DATABASE_URL ?? store.url);
    const proxy = await startTcpProxy(`http://${pgUrl.hostname}:${pgUrl.port || 5432}`);
    onTestFinished(() => proxy.close());
    const viaProxy = new URL(pgUrl.toString());
    viaProxy.port = new URL(proxy.url).port;
    const db = openPostgres(viaProxy.toString(), { schema: store.schema });
    const w = await startPatWorld({ db, startJobs: true, env: { JOB_POLL_MS: '200' } });
    onTestFinished(() => db.close());
    const v = await w.connectVenue({ posType: POS.noForwarding });
    const tables = ['1', '2', '3'];
    const orders: string[] = [];
    for (const t of tables) {
      await w.openOrder(v.posVenueId, { tables: [t], checks: [{ items: [{ sku: 'BURGER', quantity: 100 }] }] });
      orders.push((await w.bill(v, t)).body.orderId);
    }

    const seen: HttpResponse[] = [];
    let unavailable = 0;
    let okSinceUp = new Set<number>();
    let stop = false;
    const settledRefs: string[] = [];
    const note = (res: HttpResponse, worker: number, up: boolean) => {
      seen.push(res);
      if (res.status === 503) unavailable++;
      else if (up && res.status === 200) okSinceUp.add(worker);
    };
    let isUp = true;
    const worker = async (i: number) => {
      for (let n = 0; !stop; n++) {
        note(await w.bill(v, tables[i]), i, isUp);
        const ref = `outage-${i}-${n}`;
        // A partner retries a 503 with the same externalReference until it gets an answer.
        for (;;) {
          const res = await w.pay(v, orders[i], { externalReference: ref, amount: 1, type: 'partial' });
          note(res, i, isUp);
          if (res.status !== 503) {
            expect(res.status).toBe(200);
            settledRefs.push(ref);
            break;
          }
        }
      }
    };
    const running = tables.map((_, i) => worker(i));
    for (let outage = 0; outage < OUTAGES; outage++) {
      await eventually(() => settledRefs.length > (outage + 1) * 6, { what: 'payments to flow before the outage' });
      const before = unavailable;
      isUp = false;
      proxy.down();
      await eventually(() => unavailable >= before + 6, { what: 'the service to answer 503 while the database is gone' });
      okSinceUp = new Set();
      isUp = true;
      proxy.up();
      await eventually(() => okSinceUp.size === tables.length, { timeoutMs: 60_000, what: 'every worker to be served again after the database is back' });
    }
    stop = true;
    await Promise.all(running);

    expect(seen.filter((r) => r.status >= 500 && r.status !== 503).map((r) => `${r.status} ${r.text}`)).toEqual([]);
    for (const r of seen.filter((x) => x.status === 503)) {
      expect(r.headers['retry-after']).toMatch(/^\d+$/);
      expect(r.body).toEqual({ error: { code: 503, message: expect.stringMatching(/retry/i), details: null } });
      expect(r.text).not.toMatch(/ECONN|terminated|SELECT|INSERT|at .*\.ts/);
    }
    const check = openPostgres(store.url);
    onTestFinished(() => check.close());
    const { rows } = await sql<{ external_reference: string; n: number }>`
      SELECT external_reference, count(*)::int AS n FROM payments GROUP BY external_reference`.execute(check.kysely);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(rows.map((r) => r.external_reference).sort()).toEqual([...settledRefs].sort());
    for (const [i, t] of tables.entries()) {
      const paid = settledRefs.filter((r) => r.startsWith(`outage-${i}-`)).length;
      expect((await w.bill(v, t)).body.totals.paid).toBe(paid);
    }
  });
});
