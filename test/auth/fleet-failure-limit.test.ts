import pg from 'pg';
import { expect, it } from 'vitest';
import { startCluster } from '../helpers/cluster.ts';
import { describePostgres } from '../helpers/db.ts';
import type { HttpResponse } from '../helpers/http.ts';

// The failed-authentication limit is one limit for the fleet (DES-031, issue 29): failures spread
// over two real `serve` processes on one PostgreSQL reach 429 at the setting, not at twice it, and
// each process's RateLimit headers count the other's failures.

const LIMIT = 6;

describePostgres('the failed-authentication limit across processes', () => {
  it('[DES-031] failures alternating between two processes reach the limit at the setting, and both then answer 429', { timeout: 60_000 }, async () => {
    const c = await startCluster(2, { AUTH_FAILURE_LIMIT_PER_MIN: String(LIMIT) });
    const [a, b] = c.clients;
    const wrong = 'tat_wrongwrongwrongwrongwrongwrong';
    const answers: HttpResponse[] = [];
    for (let i = 0; i < LIMIT; i++) answers.push(await (i % 2 === 0 ? a : b).get('/v1/pat/venues', { token: wrong }));
    expect(answers.map((r) => r.status)).toEqual(Array(LIMIT).fill(401));
    // Each answer, whichever process gave it, counts every failure before it.
    expect(answers.map((r) => Number(r.headers['ratelimit-remaining']))).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));

    for (const [name, client] of [['first', a], ['second', b]] as const) {
      const refused = await client.get('/v1/pat/venues', { token: wrong });
      expect(refused.status, name).toBe(429);
      expect(Number(refused.headers['retry-after']), name).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after']), name).toBeLessThanOrEqual(60);
    }
    // A valid credential is never limited, on either process, and its answer shows the fleet's standing.
    for (const client of [a, b]) {
      const ok = await client.get('/v1/pat/venues', { token: c.token });
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-remaining']).toBe('0');
    }
    // Only the counted failures wrote: neither the 429s nor the valid requests did.
    const db = new pg.Client({ connectionString: c.url });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT coalesce(sum(failures), 0)::int AS n FROM auth_failures');
      expect(rows[0].n).toBe(LIMIT);
    } finally {
      await db.end();
    }
  });
});
