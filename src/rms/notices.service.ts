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
import { beginReread, findByWebhookId, findSameBody, insertNotice, markProcessed, pendingFor } from './notices.repository.ts';
import { RmsError } from './rms-client.ts';

// DESIGN 8.3a, 8.8c: update notices. Receiving one is a short transaction (the notice row and a
// re-read job) answered 202 at once; the job re-reads GET /booking/{id} with no transaction open and
// applies that state, so repeated and out-of-order notices converge on the RMS's current state.
// Re-reads of one booking run one at a time (bookings `refresh` claims the booking's re-read): a job
// that finds another re-read running tries again after it. A re-read answers every notice of that
// booking waiting when it began (marked in the claim's transaction), so their own jobs find them
// processed and call nothing; a notice received once it began is a change it may have missed, so it
// keeps its job and is re-read after it. A repeated webhook-id is absorbed; so is the same body
// within 24 h while the first's re-read has not begun (that re-read covers it). The same body once
// that re-read began is re-read again, because a notice carries no version: two real changes of one
// booking send the same body, and absorbing the second would lose it (docs/decisions.md, issues 10, 26).

export const RMS_NOTICE_JOB = 'rms.notice';
const DAY_MS = 24 * 3600_000;
/** How long a notice about a booking Tableside does not know waits for creates still in flight. */
const IN_FLIGHT_WAIT_MS = 10 * 60_000;
/** How soon a notice whose booking is being re-read by another job tries again. */
const BUSY_RETRY_MS = 1000;

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
        const duplicateOf = same?.waiting ? same.id : null;
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
            const pending = await pendingFor(db.kysely, partnerId, entityId);
            if (!pending.some((n) => n.id === noticeId)) return; // an earlier re-read covered it
            // The notices this re-read answers: those waiting when it begins (the unknown booking's: all pending).
            let covered = pending.map((n) => n.id);
            let outcome: string;
            try {
              // Throws on an RMS that is down or answers garbage: the job is retried until processed.
              outcome = await bookings.refresh(partnerId, entityId, 'update notice from the RMS', async (tx) => {
                covered = await beginReread(tx, partnerId, entityId, clock.now());
              });
            } catch (err) {
              if (!(err instanceof RmsError && err.kind === 'not_found')) throw err;
              outcome = 'rms_not_found';
            }
            const now = clock.now();
            // Another re-read of this booking is running: this notice may be newer than what it reads.
            if (outcome === 'busy') return { retryAt: new Date(now.getTime() + BUSY_RETRY_MS) };
            // This re-read outlived its lease; the one that took over answers these notices.
            if (outcome === 'superseded') return;
            if (outcome === 'unknown' && now.getTime() - pending[0]!.received_at.getTime() < IN_FLIGHT_WAIT_MS
                && (await bookings.createsInFlight(partnerId))) {
              // A create of ours may not have recorded its RMS id yet: look again shortly.
              return { retryAt: new Date(now.getTime() + 5000) };
            }
            await markProcessed(db.kysely, covered, outcome === 'unknown' ? 'unknown_booking' : outcome, now);
            log.debug({ partnerId, entityId, outcome, notices: covered.length }, 'update notice processed');
          },
        },
      };
    },
  };
}

export type NoticesService = ReturnType<typeof createNoticesService>;
