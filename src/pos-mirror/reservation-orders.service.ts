import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { cancelJob, scheduleJob, type JobContext, type JobDefinition, type JobResult } from '../db/jobs.ts';
import { emit } from '../db/outbox.ts';
import type { Clock } from '../lib/clock.ts';
import { unprocessable, validationFailed } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { CreateOrderItem } from '../pos/pos-client.ts';
import type { PosOrder } from '../pos/pos.schemas.ts';
import type { ConnectedVenue, ConnectionsService } from './connections.service.ts';
import { fromPosOrder, type StoredOrder } from './orders.fns.ts';
import { linkSeatedOrder, upsertOrder } from './orders.repository.ts';
import { createOrderBody, GIVE_UP_AFTER_MS, nextAttemptAt, retryDelayMs, unknownTables } from './reservation-orders.fns.ts';
import * as repo from './reservation-orders.repository.ts';
import type { NewSeating, SeatingRow } from './reservation-orders.repository.ts';
import { createSeatingAttempt, type KeepClaim, type PosAnswer } from './seating-attempt.service.ts';
import type { TablesService } from './tables.service.ts';

// A seated reservation opens its POS order (DESIGN 8.3c, spec 4.6), exactly once per booking and
// venue: the booking is claimed by inserting its `seatings` row (unique per venue and booking), so
// of two copies of the event racing on two processes one claims it and the other answers
// "unchanged". The POS is called with no transaction open; a POS that cannot be reached leaves the
// seating pending for a durable job whose attempts start at most 30 s apart, for an hour. Every
// outcome is written together with its outbox event (pos_order.opened, pos_order.unknown_skus,
// pos_order.failed) and the mirrored order, which keeps the booking's party size, prepayment and time.

export const SEATING_JOB = 'seating.open';
/** The longest `reason` of a failed seating (recorded, and in pos_order.failed). */
export const MAX_FAILURE_REASON = 1000;
export const seatingJobKey = (seatingId: string) => `seating-open:${seatingId}`;

export interface SeatingServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  connections: Pick<ConnectionsService, 'forVenue'>;
  tables: Pick<TablesService, 'list'>;
  posTimeoutMs: number;
}

export interface SeatInput {
  /** The RMS partner that says the guest is seated (the events' recipient). */
  partnerId: string;
  cv: ConnectedVenue;
  /** The RMS's booking id. */
  bookingId: string;
  partySize: number;
  tables: string[];
  /** The booking's time. */
  reservationDate: Date;
  prepaymentMinor: number;
  guestName?: string;
  guestEmail?: string;
  guestTelephone?: string;
  items?: CreateOrderItem[];
  /** The event as received, recorded. */
  event: Record<string, unknown>;
}

export interface SeatAnswer {
  httpStatus: 200 | 202;
  body: { bookingId: string; orderId: string | null; status: 'opened' | 'unchanged' | 'pending'; unknownSkus: string[] };
}

/**
 * What an attempt recorded; `lost`: its claim was taken over by another attempt (its lease ran
 * out), so it recorded nothing and the seating is as that attempt leaves it.
 */
type Attempt = { kind: 'opened'; orderId: string; unknownSkus: string[] } | { kind: 'pending' } | { kind: 'failed'; reason: string } | { kind: 'lost' };
type RunInTx = <T>(fn: (tx: Executor) => Promise<T>) => Promise<T>;

/** Thrown inside a recording transaction whose claim was taken over: nothing of it may commit. */
class ClaimLost extends Error {}
/** How much of a lease must be left before a POS call: the call itself and the final write. */
const LEASE_MARGIN_MS = 5_000;

export function createSeatingService({ db, clock, log, connections, tables, posTimeoutMs }: SeatingServiceDeps) {
  const delayMs = retryDelayMs(posTimeoutMs);
  // An attempt's lease covers two POS calls and the final write; `keeper` renews it as calls go.
  const leaseMs = posTimeoutMs * 2 + LEASE_MARGIN_MS;
  const leaseFrom = (now: Date) => new Date(now.getTime() + leaseMs);
  const seatingAttempt = createSeatingAttempt({ db, clock, log });
  const inTx: RunInTx = (fn) => db.kysely.transaction().execute(fn);
  const scope = (row: SeatingRow) => ({ partnerId: row.partner_id, venueId: row.venue_id });
  const eventData = (row: SeatingRow) => ({ bookingId: row.booking_id, orderId: row.order_id, venueId: row.venue_id });

  function answerOf(row: SeatingRow): SeatAnswer {
    const body = { bookingId: row.booking_id, orderId: row.order_id, unknownSkus: row.unknown_skus };
    return row.status === 'pending' ? { httpStatus: 202, body: { ...body, status: 'pending' } } : { httpStatus: 200, body: { ...body, status: 'unchanged' } };
  }

  // Claim and validation: what the seated event becomes before the POS is asked.

  /** Every seated event received is kept with what became of it. */
  const recordSeatedEvent = (ex: Executor, input: SeatInput, outcome: string) =>
    repo.recordEvent(ex, { partnerId: input.partnerId, venueId: input.cv.venue.id, bookingId: input.bookingId, status: 'seated', body: input.event, outcome }, clock.now());

  /** Tables the venue's POS does not have: a 400 before anything is claimed or sent. */
  async function checkTables(input: SeatInput): Promise<void> {
    const posIds = (await tables.list(input.cv)).map((t) => t.pos_table_id);
    const unknown = unknownTables(input.tables, posIds);
    if (unknown.length === 0) return;
    throw validationFailed(
      { tables: [`not tables of this venue's POS: ${unknown.join(', ')} (GET /v1/rms/venues/{externalId}/pos-tables lists them)`] },
      `Tables ${unknown.join(', ')} are not tables of this venue's POS; nothing was sent to the POS.`,
    );
  }

  /** The seating as claimed: what will be sent to the POS (spec 4.6), this attempt's lease and the hour of retries. */
  function newSeating(input: SeatInput, orderId: string, now: Date): NewSeating {
    const { cv } = input;
    const posRequest = createOrderBody({
      orderId,
      tables: input.tables,
      partySize: input.partySize,
      prepaymentMinor: input.prepaymentMinor,
      currency: cv.venue.currency,
      seatedAt: now,
      timeZone: cv.venue.timezone ?? 'UTC',
      guestName: input.guestName,
      guestEmail: input.guestEmail,
      guestTelephone: input.guestTelephone,
      items: input.items,
    });
    return {
      partner_id: input.partnerId, venue_id: cv.venue.id, booking_id: input.bookingId, order_id: orderId,
      party_size: input.partySize, prepayment_minor: input.prepaymentMinor, reservation_date: input.reservationDate,
      seated_at: now, pos_request: posRequest, lease_until: leaseFrom(now), deadline_at: new Date(now.getTime() + GIVE_UP_AFTER_MS),
    };
  }

  /**
   * Claims the booking's seating (a failed seating sent again is tried again, as a new claim of the
   * same row); of two copies racing, the one that loses answers the winner's row.
   */
  async function claim(input: SeatInput, existing: SeatingRow | null): Promise<{ row: SeatingRow; won: boolean }> {
    const now = clock.now();
    const fields = newSeating(input, existing?.order_id ?? uuidv7(), now);
    const claimed = await inTx(async (tx) => {
      const row = existing ? await repo.relaunch(tx, existing.id, fields, now) : await repo.claim(tx, fields, now);
      if (!row) {
        const winner = await repo.findByBooking(tx, fields.venue_id, input.bookingId);
        await recordSeatedEvent(tx, input, `duplicate:${winner?.status ?? 'unknown'}`);
        return { row: winner, won: false };
      }
      await recordSeatedEvent(tx, input, 'claimed');
      // If this process dies during the POS call, the job takes over once the claim's lease is over.
      await scheduleJob(tx, { kind: SEATING_JOB, runAt: row.lease_until!, dedupeKey: seatingJobKey(row.id), payload: { seatingId: row.id } }, now);
      return { row, won: true };
    });
    if (!claimed.row) throw new Error(`seating of booking ${input.bookingId} vanished`);
    return { row: claimed.row, won: claimed.won };
  }

  /**
   * The POS's own view of the new order (checks, items, times), so the bill answers at once; null
   * leaves it to the order sync.
   */
  async function mirrorOf(cv: ConnectedVenue, order: PosOrder | { id: string }): Promise<StoredOrder | null> {
    const live = 'checks' in order ? order : await cv.pos.getOrder(cv.connection.pos_venue_id, order.id).catch(() => null);
    if (!live) return null;
    try {
      return fromPosOrder(live, cv.venue.currency);
    } catch {
      // An answer the mirror cannot store is left to the order sync (which reports it); the order exists.
      return null;
    }
  }

  // Recording the outcome: each with its outbox event, in one transaction, fenced on the attempt's
  // claim (a write that finds the claim taken over throws ClaimLost and nothing of it commits).

  /**
   * Keeps an attempt's claim: before each POS call, a lease with less left than that call and the
   * final write is renewed (and the job's claim with it, for the job's attempts); false once another
   * attempt has taken the seating over (BKG-38).
   */
  function keeper(row: SeatingRow, renewJob?: () => Promise<boolean>): KeepClaim {
    let leaseUntil = row.lease_until?.getTime() ?? 0;
    return async () => {
      const now = clock.now();
      if (leaseUntil - now.getTime() >= posTimeoutMs + LEASE_MARGIN_MS) return true;
      const until = leaseFrom(now);
      if (!(await repo.renewLease(db.kysely, row, until, now))) return false;
      leaseUntil = until.getTime();
      return renewJob ? renewJob() : true;
    };
  }

  /** One attempt of a claimed (or leased) seating: what the POS answered, recorded. */
  async function attempt(row: SeatingRow, cv: ConnectedVenue, run: RunInTx, ownsJob: boolean, keep: KeepClaim): Promise<Attempt & { retryAt?: Date | null }> {
    const answer = await seatingAttempt.ask(row, cv, keep);
    try {
      if (answer.kind === 'lost') return answer;
      if (answer.kind === 'pending') {
        await recordPending(row, answer, ownsJob);
        return { kind: 'pending', retryAt: answer.retryAt };
      }
      if (answer.kind === 'refused') {
        await run((tx) => recordFailed(tx, row, answer.reason, ownsJob));
        return { kind: 'failed', reason: answer.reason };
      }
      const orderId = await recordOpened(row, cv, answer, run, ownsJob, keep);
      return { kind: 'opened', orderId, unknownSkus: answer.unknownSkus };
    } catch (err) {
      if (!(err instanceof ClaimLost)) throw err;
      log.warn({ bookingId: row.booking_id, venueId: row.venue_id, outcome: answer.kind }, 'seating: another attempt took the seating over; this one recorded nothing');
      return { kind: 'lost' };
    }
  }

  async function recordPending(row: SeatingRow, p: Extract<PosAnswer, { kind: 'pending' }>, ownsJob: boolean): Promise<void> {
    const now = clock.now();
    log.warn({ bookingId: row.booking_id, venueId: row.venue_id, err: p.error, posOutcome: p.posOutcome }, 'seating: no POS order yet; trying again');
    await inTx(async (tx) => {
      if (!(await repo.markPending(tx, row, p, now))) throw new ClaimLost();
      // The job scheduled at the claim waits out the claim's lease; the guest should not.
      if (ownsJob) await rescheduleJob(tx, row.id, p.retryAt ?? nextAttemptAt(now, row.deadline_at, delayMs) ?? row.deadline_at, now);
    });
  }

  /** The order linked to its booking (party size, prepayment, booking time), mirrored, and announced. */
  async function recordOpened(row: SeatingRow, cv: ConnectedVenue, created: Extract<PosAnswer, { kind: 'created' }>, run: RunInTx, ownsJob: boolean, keep: KeepClaim): Promise<string> {
    const stored = (await keep()) ? await mirrorOf(cv, created.order) : null;
    const posOrderId = created.order.id;
    const now = clock.now();
    const orderId = await run(async (tx) => {
      // First, so that a claim taken over writes nothing: the order id stays the one answered (BKG-39).
      if (!(await repo.markOpened(tx, row, posOrderId, row.order_id, created.unknownSkus, now))) throw new ClaimLost();
      const order = await linkSeatedOrder(tx, row.venue_id, cv.venue.currency, {
        orderId: row.order_id,
        bookingId: row.booking_id,
        posOrderId,
        posTables: row.pos_request.tables,
        partySize: row.party_size,
        reservationDate: row.reservation_date,
        prepaymentMinor: Number(row.prepayment_minor),
        openedAt: now,
      }, now);
      if (order.id !== row.order_id) log.error({ bookingId: row.booking_id, orderId: row.order_id, mirroredAs: order.id }, 'seating: the POS order was mirrored under another id');
      if (stored) await upsertOrder(tx, row.venue_id, cv.venue.currency, stored, now);
      if (ownsJob) await cancelJob(tx, seatingJobKey(row.id));
      await announceOpened(tx, row, row.order_id, posOrderId, created.unknownSkus, now);
      return row.order_id;
    });
    log.info({ bookingId: row.booking_id, venueId: row.venue_id, orderId }, 'seating: POS order opened');
    return orderId;
  }

  async function announceOpened(tx: Executor, row: SeatingRow, orderId: string, posOrderId: string, unknownSkus: string[], now: Date): Promise<void> {
    const data = { ...eventData(row), orderId, posOrderId, tables: row.pos_request.tables, partySize: row.party_size, unknownSkus };
    await emit(tx, scope(row), { type: 'pos_order.opened', entityId: orderId, data }, now);
    if (unknownSkus.length > 0) await emit(tx, scope(row), { type: 'pos_order.unknown_skus', entityId: orderId, data }, now);
  }

  async function recordFailed(tx: Executor, row: SeatingRow, whole: string, ownsJob: boolean): Promise<void> {
    // A POS's own words are in it: bounded, as the pos_order.failed event's schema says.
    const reason = whole.slice(0, MAX_FAILURE_REASON);
    const now = clock.now();
    if (!(await repo.markFailed(tx, row, reason, now))) throw new ClaimLost();
    if (ownsJob) await cancelJob(tx, seatingJobKey(row.id));
    await emit(tx, scope(row), { type: 'pos_order.failed', entityId: row.order_id, data: { ...eventData(row), reason } }, now);
  }

  async function rescheduleJob(tx: Executor, seatingId: string, runAt: Date, now: Date): Promise<void> {
    await cancelJob(tx, seatingJobKey(seatingId));
    await scheduleJob(tx, { kind: SEATING_JOB, runAt, dedupeKey: seatingJobKey(seatingId), payload: { seatingId } }, now);
  }

  /** The job's attempt of a seating it leased; what the job does next. */
  async function jobAttempt(leased: SeatingRow, ctx: JobContext): Promise<JobResult> {
    const retry = (at?: Date | null): JobResult => ({ retryAt: at ?? nextAttemptAt(clock.now(), leased.deadline_at, delayMs) ?? leased.deadline_at });
    const cv = await connections.forVenue(leased.venue_id);
    const lastWords = async (reason: string) => {
      await ctx.transaction((tx) => recordFailed(tx, leased, reason, false)).catch((err) => {
        if (!(err instanceof ClaimLost)) throw err;
      });
    };
    if (!cv) return lastWords('the venue has no POS connection any more');
    if (clock.now().getTime() >= leased.deadline_at.getTime()) {
      return lastWords(`no POS order within an hour (${leased.last_error ?? 'no answer'})`);
    }
    const outcome = await attempt(leased, cv, ctx.transaction, false, keeper(leased, () => ctx.renewLease()));
    if (outcome.kind === 'pending') return retry(outcome.retryAt);
    // Another attempt holds the seating: look again once its lease is over.
    if (outcome.kind === 'lost') {
      const now = await repo.find(db.kysely, leased.id);
      return now && (now.status === 'opening' || now.status === 'pending') ? retry(now.lease_until) : undefined;
    }
  }

  function answer(row: SeatingRow, outcome: Exclude<Attempt, { kind: 'lost' }>): SeatAnswer {
    const base = { bookingId: row.booking_id, orderId: row.order_id };
    if (outcome.kind === 'opened') return { httpStatus: 200, body: { ...base, orderId: outcome.orderId, status: 'opened', unknownSkus: outcome.unknownSkus } };
    if (outcome.kind === 'pending') return { httpStatus: 202, body: { ...base, status: 'pending', unknownSkus: [] } };
    // Recorded and emitted as pos_order.failed already; the RMS may send the event again to retry.
    throw unprocessable(`The POS refused the order: ${outcome.reason}. Recorded as pos_order.failed; send the seated event again to retry.`);
  }

  return {
    /** The venue's POS tables, refreshed from the POS per POS_TABLES_TTL_S. */
    async posTables(cv: ConnectedVenue) {
      return (await tables.list(cv)).map((t) => ({ id: t.pos_table_id, name: t.name, area: null }));
    },

    /**
     * A reservation event whose status is not seated: recorded, nothing sent (spec 4.6 rule 1: an
     * order only once the guest is there). Answers the booking's order id if it was seated before.
     */
    async recordOther(partnerId: string, venueId: string, bookingId: string, status: string, event: Record<string, unknown>): Promise<string | null> {
      const existing = await repo.findByBooking(db.kysely, venueId, bookingId);
      await repo.recordEvent(db.kysely, { partnerId, venueId, bookingId, status, body: event, outcome: 'recorded' }, clock.now());
      return existing?.status === 'opened' ? existing.order_id : null;
    },

    /** A seated reservation: opens its POS order once (DESIGN 8.3c). */
    async seat(input: SeatInput): Promise<SeatAnswer> {
      const existing = await repo.findByBooking(db.kysely, input.cv.venue.id, input.bookingId);
      if (existing && existing.status !== 'failed') {
        await recordSeatedEvent(db.kysely, input, `duplicate:${existing.status}`);
        return answerOf(existing);
      }
      await checkTables(input);
      const claimed = await claim(input, existing);
      if (!claimed.won) return answerOf(claimed.row);
      const outcome = await attempt(claimed.row, input.cv, inTx, true, keeper(claimed.row));
      if (outcome.kind !== 'lost') return answer(claimed.row, outcome);
      // Another attempt took the seating over: the answer is what it records (the same order id).
      return answerOf((await repo.find(db.kysely, claimed.row.id)) ?? claimed.row);
    },

    /** The durable retry of a seating whose POS could not be reached (or whose claimer died). */
    job(): JobDefinition<{ seatingId: string }> {
      return {
        // The job's claim lasts as long as the seating's lease, and is renewed with it.
        leaseMs: leaseMs + LEASE_MARGIN_MS,
        run: async (job, ctx) => {
          const row = await repo.find(db.kysely, job.payload.seatingId);
          if (!row || row.status === 'opened' || row.status === 'failed') return;
          const now = clock.now();
          // Only one attempt of a seating at a time (BKG-38): the job waits out another's lease.
          const leased = await repo.lease(db.kysely, row.id, leaseFrom(now), now);
          if (!leased) return { retryAt: row.lease_until && row.lease_until > now ? row.lease_until : new Date(now.getTime() + delayMs) };
          return jobAttempt(leased, ctx);
        },
      };
    },
  };
}

export type SeatingService = ReturnType<typeof createSeatingService>;
