import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../db/db.ts';
import { scheduleJob, type JobDefinition } from '../db/jobs.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import type { Clock } from '../lib/clock.ts';
import { validationFailed } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { BookingsService } from './bookings.service.ts';
import type { NoticeBody } from './notices.schemas.ts';
import { findByWebhookId, findSameBody, insertNotice, markProcessed, pendingFor } from './notices.repository.ts';
import { RmsError } from './rms-client.ts';

// DESIGN 8.3a: update notices. Receiving one is a short transaction (the notice row and a re-read
// job) answered 202 at once; the job re-reads GET /booking/{id} with no transaction open and
// applies that state, so repeated and out-of-order notices converge on the RMS's current state (an
// older state than the one recorded is never applied: bookings.fns `isNewer`). A re-read covers
// every notice of that booking received before it started, so their own jobs find them processed
// and call nothing; one received during a re-read keeps its job and is re-read after it. A
// repeated webhook-id is absorbed; so is the same body within 24 h while
// the first is still waiting (its re-read covers it). The same body after the first was processed
// is re-read again, because a notice carries no version: two real changes of one booking send the
// same body, and absorbing the second would lose it (docs/decisions.md, issue 10).

export const RMS_NOTICE_JOB = 'rms.notice';
const DAY_MS = 24 * 3600_000;
/** How long a notice about a booking Tableside does not know waits for creates still in flight. */
const IN_FLIGHT_WAIT_MS = 10 * 60_000;

export interface NoticesDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  bookings: BookingsService;
}

export function createNoticesService(deps: NoticesDeps) {
  const { db, clock, log, bookings } = deps;

  return {
    /** Records a notice and schedules its re-read; answers at once (DESIGN 8.3a: 202). */
    async receive(partnerId: string, webhookId: string | null, body: NoticeBody): Promise<{ status: 'accepted' | 'duplicate'; id: string }> {
      const raw = body.entityId ?? body.entity_id;
      if (raw === undefined) throw validationFailed({ entityId: ['is required (entityId or entity_id)'] });
      const entityId = String(raw);
      const bodyHash = createHash('sha256').update(canonicalJson({ ...body, entityId, entity_id: undefined })).digest('hex');
      const now = clock.now();
      return db.kysely.transaction().execute(async (tx) => {
        if (webhookId) {
          const seen = await findByWebhookId(tx, partnerId, webhookId);
          if (seen) return { status: 'duplicate' as const, id: seen };
        }
        const same = await findSameBody(tx, partnerId, bodyHash, new Date(now.getTime() - DAY_MS));
        const duplicateOf = same && !same.processed ? same.id : null;
        const id = uuidv7();
        if (!(await insertNotice(tx, { id, partnerId, webhookId, bodyHash, entityId, action: body.action, duplicateOf }, now))) {
          return { status: 'duplicate' as const, id: (await findByWebhookId(tx, partnerId, webhookId!))! };
        }
        if (duplicateOf) return { status: 'duplicate' as const, id: duplicateOf };
        await scheduleJob(tx, { kind: RMS_NOTICE_JOB, dedupeKey: `${RMS_NOTICE_JOB}:${id}`, payload: { noticeId: id, partnerId, entityId }, runAt: now }, now);
        return { status: 'accepted' as const, id };
      });
    },

    jobs(): Record<string, JobDefinition<{ noticeId: string; partnerId: string; entityId: string }>> {
      return {
        [RMS_NOTICE_JOB]: {
          async run(job) {
            const { noticeId, partnerId, entityId } = job.payload;
            const covered = await pendingFor(db.kysely, partnerId, entityId);
            if (!covered.some((n) => n.id === noticeId)) return; // an earlier re-read covered it
            let outcome: string;
            try {
              // Throws on an RMS that is down or answers garbage: the job is retried until processed.
              outcome = await bookings.refresh(partnerId, entityId, 'update notice from the RMS');
            } catch (err) {
              if (!(err instanceof RmsError && err.kind === 'not_found')) throw err;
              outcome = 'rms_not_found';
            }
            const now = clock.now();
            if (outcome === 'unknown' && covered.length > 0 && now.getTime() - covered[0]!.received_at.getTime() < IN_FLIGHT_WAIT_MS
                && (await bookings.createsInFlight(partnerId))) {
              // A create of ours may not have recorded its RMS id yet: look again shortly.
              return { retryAt: new Date(now.getTime() + 5000) };
            }
            // A re-read that applied something covers every notice waiting before it; one that found
            // nothing to change speaks only for its own notice, since another notice's job may be
            // applying the change at this moment and must keep its outcome.
            const marked = outcome === 'unchanged' ? [noticeId] : covered.map((n) => n.id);
            await markProcessed(db.kysely, marked, outcome === 'unknown' ? 'unknown_booking' : outcome, now);
            log.debug({ partnerId, entityId, outcome, notices: covered.length }, 'update notice processed');
          },
        },
      };
    },
  };
}

export type NoticesService = ReturnType<typeof createNoticesService>;
