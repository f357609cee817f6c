import { Webhook } from 'standardwebhooks';
import { emit, type OutboxScope } from '../../src/db/outbox.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp, type TestAppOptions, type TestPartner } from '../helpers/app.ts';
import type { StoreKind } from '../helpers/db.ts';
import { testCertFile } from '../helpers/http.ts';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

// A service with webhooks on a manual clock (started at the real time, so Standard Webhooks'
// 5-minute timestamp tolerance holds until a test moves it far), a real HTTPS receiver, and small
// builders: an endpoint at a receiver path, an event emitted through the outbox.

export interface WebhookWorld {
  app: TestApp;
  clock: ManualClock;
  receiver: WebhookReceiver;
  endpoint(partner: TestPartner, events: string[], path: string): Promise<{ id: string; secret: string }>;
  emitEvent(scope: OutboxScope, type: string, entityId: string, data?: Record<string, unknown>): Promise<string>;
  /** Runs every due job (fan-out and deliveries) until none is due. */
  run(): Promise<number>;
  attempts(partner: TestPartner, endpointId: string): Promise<any[]>;
  close(): Promise<void>;
}

export async function startWebhookWorld(store: StoreKind, opts: TestAppOptions = {}): Promise<WebhookWorld> {
  process.env.NODE_EXTRA_CA_CERTS = testCertFile();
  const clock = new ManualClock(Date.now());
  const receiver = await startWebhookReceiver();
  const app = await startTestApp({ store, clock, env: { ALLOW_PRIVATE_TARGETS: '1' }, ...opts });
  const tokenOf = (p: TestPartner) => (p.token || p.apiKey)!;
  return {
    app,
    clock,
    receiver,
    async endpoint(partner, events, path) {
      const res = await app.http.request('POST', '/v1/webhooks/endpoints', { token: tokenOf(partner), body: { url: receiver.url + path, events } });
      if (res.status !== 200) throw new Error(`endpoint not created: ${res.status} ${res.text}`);
      return { id: res.body.id, secret: res.body.secret };
    },
    emitEvent: (scope, type, entityId, data = {}) =>
      app.db.kysely.transaction().execute((tx) => emit(tx, scope, { type, entityId, data }, clock.now())),
    run: () => app.service.runner.runDue(),
    async attempts(partner, endpointId) {
      const res = await app.http.request('GET', `/v1/webhooks/endpoints/${endpointId}/deliveries`, { token: tokenOf(partner), query: { limit: 50 } });
      return res.body.data;
    },
    async close() {
      await app.close();
      await receiver.close();
    },
  };
}

/** Verifies a received delivery with a secret (Standard Webhooks); returns the parsed body or throws. */
export const verify = (secret: string, r: Received): any => new Webhook(secret).verify(r.body, r.headers);
