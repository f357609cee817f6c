import type { Db } from '../db/db.ts';
import { retryingDeadlocks } from '../db/errors.ts';
import { runJobNow, scheduleJob } from '../db/jobs.ts';
import type { Sealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound, ProblemList } from '../lib/errors.ts';
import { isUuid, uuidv7 } from '../lib/ids.ts';
import { checkOutboundUrl } from '../lib/outbound-url.ts';
import type { Page } from '../lib/pagination.ts';
import * as deliveries from './deliveries.repository.ts';
import { DELIVER_JOB, deliverJobKey, newSigningSecret, type WebhookDelivery } from './delivery.service.ts';
import * as repo from './endpoints.repository.ts';
import { PREVIOUS_SECRET_MS, subscriptionProblems, type EndpointOwner, TEST_EVENT_TYPE, eventBody, webhookIdOf, type EventType } from './webhooks.fns.ts';
import { RECOVER_LIMIT, type CreateEndpointBody, type Endpoint, type EndpointWithSecret, type RecoverBody, type UpdateEndpointBody } from './webhooks.schemas.ts';

// The endpoints API (DESIGN 8.5): an owner's own endpoints, with its own credential. The owner is a
// partner, or a `tableside` booking channel (8.7a: the same API, subscribing to booking events
// only). Secrets are generated here, answered once, and stored sealed (lib/sealed.ts) because every
// delivery signs with them. Another owner's endpoint is not found, exactly like one that does not exist.

/** Where the key sealing signing secrets is kept when SECRETS_KEY is unset (db/sealing-key.ts). */
export const SIGNING_SECRETS_KEY_SETTING = 'webhooks.sealing_key';

export interface EndpointsServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  sealer: Sealer;
  delivery: Pick<WebhookDelivery, 'enqueue' | 'attemptNow'>;
  allowPrivateTargets: boolean;
  /** Sandbox mode: http://localhost receivers are accepted (lib/outbound-url.ts plainLoopback); false if omitted. */
  sandbox?: boolean;
}

const REASON = { gone: 'answered_410', failing: 'failing_5_days', partner: 'by_partner' } as const;

function view(row: repo.EndpointRow): Endpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    // Stored only after subscriptionProblems() found them all in the catalogue.
    events: row.events as EventType[],
    status: row.status,
    disabledReason: row.disabled_reason ? REASON[row.disabled_reason] : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function createEndpointsService(deps: EndpointsServiceDeps) {
  const { db, clock, sealer, delivery } = deps;
  const ex = db.kysely;

  /** A 400 naming `url` and/or `events` with every problem, before anything is written. */
  async function validate(owner: EndpointOwner, input: { url?: string; events?: string[] }): Promise<void> {
    const problems = new ProblemList();
    if (input.url !== undefined) {
      const check = await checkOutboundUrl(input.url, { allowPrivate: deps.allowPrivateTargets, plainLoopback: deps.sandbox });
      if (!check.ok) problems.add('url', check.problem);
    }
    if (input.events !== undefined) for (const p of subscriptionProblems(input.events, owner.kind)) problems.add('events', p);
    problems.throwIfAny();
  }

  async function own(owner: EndpointOwner, id: string): Promise<repo.EndpointRow> {
    const row = isUuid(id) ? await repo.find(ex, owner, id) : null;
    if (!row) throw notFound(`No webhook endpoint ${id}.`);
    return row;
  }

  return {
    async create(owner: EndpointOwner, body: CreateEndpointBody): Promise<EndpointWithSecret> {
      await validate(owner, body);
      const id = uuidv7();
      const secret = newSigningSecret();
      const row = await repo.insert(ex, owner, { id, url: body.url, description: body.description ?? null, events: body.events, secret_sealed: await sealer.seal(secret) }, clock.now());
      return { ...view(row), secret };
    },

    async list(owner: EndpointOwner, page: Page): Promise<{ total: number; data: Endpoint[] }> {
      const { total, rows } = await repo.list(ex, owner, page.offset, page.limit);
      return { total, data: rows.map(view) };
    },

    get: async (owner: EndpointOwner, id: string): Promise<Endpoint> => view(await own(owner, id)),

    async update(owner: EndpointOwner, id: string, body: UpdateEndpointBody): Promise<Endpoint> {
      await own(owner, id);
      await validate(owner, body);
      const enabled = body.status === undefined ? undefined : body.status === 'enabled';
      return view(await repo.update(ex, id, { url: body.url, events: body.events, description: body.description, enabled }, clock.now()));
    },

    async remove(owner: EndpointOwner, id: string): Promise<void> {
      // The delete cascades over the endpoint's deliveries and attempts, which the sender's batched
      // records lock in their own order while they run: PostgreSQL may end one of the two to break
      // the deadlock, and when it ends this one (nothing deleted), it is asked again (issue 28's
      // bench: a 500 for a DELETE while deliveries to that endpoint were being recorded).
      if (!isUuid(id) || !(await retryingDeadlocks(() => repo.remove(ex, owner, id)))) throw notFound(`No webhook endpoint ${id}.`);
    },

    /** A new secret, answered once; the old one keeps signing beside it for 24 h (two signatures). */
    async rotateSecret(owner: EndpointOwner, id: string): Promise<{ secret: string; previousSecretExpiresAt: string }> {
      const row = await own(owner, id);
      const now = clock.now();
      const secret = newSigningSecret();
      const until = new Date(now.getTime() + PREVIOUS_SECRET_MS);
      await repo.rotate(ex, id, await sealer.seal(secret), row.secret_sealed, until, now);
      return { secret, previousSecretExpiresAt: until.toISOString() };
    },

    async deliveries(owner: EndpointOwner, id: string, page: Page) {
      await own(owner, id);
      const { total, rows } = await deliveries.listAttempts(ex, id, page.offset, page.limit);
      return {
        total,
        data: rows.map((a) => ({
          webhookId: a.webhook_id,
          type: a.type as EventType | typeof TEST_EVENT_TYPE,
          attempt: a.attempt,
          status: a.status,
          responseCode: a.response_code,
          error: a.error,
          durationMs: a.duration_ms,
          at: a.at.toISOString(),
        })),
      };
    },

    /**
     * Re-sends at once every delivery of the window that did not succeed (failed for good, or waiting
     * for a retry) and sends the window's events the endpoint never got (it was disabled, or did not
     * exist yet). A disabled endpoint is enabled again: asking for the events back means it is ready.
     */
    async recover(owner: EndpointOwner, id: string, body: RecoverBody): Promise<{ resent: number; missed: number }> {
      const row = await own(owner, id);
      const now = clock.now();
      const since = new Date(body.since);
      const until = body.until ? new Date(body.until) : now;
      const problems = new ProblemList();
      if (since.getTime() > now.getTime()) problems.add('since', 'must not be in the future');
      if (until.getTime() < since.getTime()) problems.add('until', 'must not be before since');
      problems.throwIfAny();
      return ex.transaction().execute(async (tx) => {
        if (row.status === 'disabled') await repo.update(tx, id, { enabled: true }, now);
        const failed = await deliveries.unsuccessful(tx, id, since, until, RECOVER_LIMIT);
        for (const d of failed) {
          await deliveries.settle(tx, d.id, 'pending', now, now);
          const key = deliverJobKey(d.id, d.attempts + 1);
          // A retry already waiting is brought forward; otherwise a new attempt is scheduled now.
          if (!(await runJobNow(tx, key, now))) {
            await scheduleJob(tx, { kind: DELIVER_JOB, runAt: now, payload: { deliveryId: d.id }, dedupeKey: key }, now);
          }
        }
        let missed = 0;
        for (const event of await deliveries.missedEvents(tx, id, since, until, RECOVER_LIMIT)) {
          missed += await delivery.enqueue(tx, event, [id], now, row.channel_id ? 'channel' : 'partner');
        }
        return { resent: failed.length, missed };
      });
    },

    /** Sends a signed `webhook.test` event now and answers how the endpoint took it. */
    async test(owner: EndpointOwner, id: string) {
      const row = await own(owner, id);
      const now = clock.now();
      const deliveryId = uuidv7();
      const body = eventBody({ type: TEST_EVENT_TYPE, createdAt: now, entityId: id, sequence: null, data: { endpointId: id } });
      const d: deliveries.DeliveryRow = {
        id: deliveryId,
        endpoint_id: id,
        event_id: null,
        webhook_id: webhookIdOf(deliveryId),
        type: TEST_EVENT_TYPE,
        body,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        event_at: now,
      };
      await deliveries.insertDelivery(ex, d, now);
      const result = await delivery.attemptNow(row, d);
      return {
        webhookId: d.webhook_id,
        status: result.succeeded ? ('succeeded' as const) : ('failed' as const),
        responseCode: result.status,
        error: result.error,
        durationMs: result.durationMs,
      };
    },
  };
}

export type EndpointsService = ReturnType<typeof createEndpointsService>;
