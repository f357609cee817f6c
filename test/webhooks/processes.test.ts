import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import { createAuthService } from '../../src/auth/auth.service.ts';
import { openPostgres } from '../../src/db/db.ts';
import { emit } from '../../src/db/outbox.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { startServe } from '../helpers/cli.ts';
import { createSchema, describePostgres, dropSchema, newSchemaName, postgresUrl, urlWithSchema } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';
import { HttpClient, testCertFile } from '../helpers/http.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

// Two `tableside serve` processes on one PostgreSQL database share the delivery work through the
// durable job table (FOR UPDATE SKIP LOCKED): every event is sent once per attempt, never twice.

describePostgres('webhook delivery across processes', () => {
  it('[DES-114] two servers on one PostgreSQL deliver each event exactly once per attempt (first attempt failed, retry succeeded)', async () => {
    const schema = newSchemaName();
    await createSchema(schema);
    onTestFinished(() => dropSchema(schema));
    const url = urlWithSchema(postgresUrl()!, schema);
    const receiver = await startWebhookReceiver();
    onTestFinished(() => receiver.close());
    const seen = new Map<string, number>();
    receiver.behave((r) => {
      const n = (seen.get(r.headers['webhook-id']!) ?? 0) + 1;
      seen.set(r.headers['webhook-id']!, n);
      return n === 1 ? { status: 500 } : { status: 204 };
    });

    const env = {
      DATABASE_URL: url,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: testCertFile(),
      JOB_POLL_MS: '50',
    };
    const dirs = [mkdtempSync(join(tmpdir(), 'tableside-wh1-')), mkdtempSync(join(tmpdir(), 'tableside-wh2-'))];
    const servers = await Promise.all(dirs.map((dir) => startServe({ ...env, TABLESIDE_DATA: dir })));
    onTestFinished(async () => {
      for (const s of servers) await s.stop();
    });

    const db = openPostgres(url);
    onTestFinished(() => db.close());
    const auth = createAuthService({ db, clock: systemClock, accessTokenTtlS: 3600 });
    const partner = await auth.createPartner({ name: 'P', access: ['pat'] });
    const { accessToken } = await auth.issueToken(partner.partnerId);
    const venueId = uuidv7();
    await sql`INSERT INTO venues (id, name, currency, created_at, updated_at) VALUES (${venueId}, 'V', 'EUR', now(), now())`.execute(db.kysely);
    await auth.grantVenue(partner.partnerId, venueId);
    const client = new HttpClient(servers[0]!.url, readFileSync(join(dirs[0]!, 'tls.crt'), 'utf8'));
    onTestFinished(() => client.close());
    const created = await client.request('POST', '/v1/webhooks/endpoints', { token: accessToken, body: { url: `${receiver.url}/multi`, events: ['order.closed'] } });
    expect(created.status).toBe(200);

    const COUNT = 40;
    for (let i = 0; i < COUNT; i++) {
      await db.kysely.transaction().execute((tx) => emit(tx, { venueId }, { type: 'order.closed', entityId: `order-${i}`, data: { i } }, systemClock.now()));
    }
    await eventually(() => [...seen.values()].filter((n) => n >= 2).length === COUNT, { timeoutMs: 60_000, what: 'every event delivered on its retry' });
    // Every webhook-id was received exactly twice (attempt 1 failed, attempt 2 succeeded), and recorded so.
    await eventually(async () => {
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM jobs WHERE kind LIKE 'webhooks.%' OR kind = 'outbox.event'`.execute(db.kysely);
      return Number(rows[0]!.n) === 0;
    }, { what: 'no delivery job left' });
    expect(seen.size).toBe(COUNT);
    expect([...seen.values()].every((n) => n === 2)).toBe(true);
    const { rows } = await sql<{ attempt: number; status: string; n: string }>`
      SELECT attempt, status, count(*) AS n FROM webhook_attempts GROUP BY attempt, status ORDER BY attempt`.execute(db.kysely);
    expect(rows.map((r) => [r.attempt, r.status, Number(r.n)])).toEqual([[1, 'failed', COUNT], [2, 'succeeded', COUNT]]);
  }, 120_000);
});
