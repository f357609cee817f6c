import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { cancelJob, scheduleJob, type JobDefinition } from '../db/jobs.ts';
import { emit } from '../db/outbox.ts';
import type { Clock } from '../lib/clock.ts';
import { unprocessable, validationFailed } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import { PosError, type CreateOrderInput, type CreateOrderItem } from '../pos/pos-client.ts';
import type { PosOrder } from '../pos/pos.schemas.ts';
import type { ConnectedVenue, ConnectionsService } from './connections.service.ts';
import { fromPosOrder, type StoredOrder } from './orders.fns.ts';
import { linkSeatedOrder, upsertOrder } from './orders.repository.ts';
import { createOrderBody, GIVE_UP_AFTER_MS, nextAttemptAt, retryDelayMs, unknownTables, withoutSkus } from './reservation-orders.fns.ts';
import * as repo from './reservation-orders.repository.ts';
import type { NewSeating, SeatingRow } from './reservation-orders.repository.ts';
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

/** What the POS answered one attempt. */
type PosAnswer =
  | { kind: 'created'; order: PosOrder | { id: string }; unknownSkus: string[] }
  | { kind: 'refused'; reason: string }
  | { kind: 'unreachable'; error: string };
/** What an attempt recorded. */
type Attempt = { kind: 'opened'; orderId: string; unknownSkus: string[] } | { kind: 'pending' } | { kind: 'failed'; reason: string };
type RunInTx = <T>(fn: (tx: Executor) => Promise<T>) => Promise<T>;

/** Only a POS that did not answer, or answered that it is in trouble, is worth asking again. */
const retriable = (err: PosError) => err.kind !== 'status' || (err.status ?? 0) >= 500 || err.status === 429 || err.status === 408;

export function createSeatingService({ db, clock, log, connections, tables, posTimeoutMs }: SeatingServiceDeps) {
  const delayMs = retryDelayMs(posTimeoutMs);
  const leaseFrom = (now: Date) => new Date(now.getTime() + posTimeoutMs * 2 + 5_000);
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

  // Talking to the POS: no transaction open.

  /** The order on the POS that an earlier attempt created but never heard back about (a POS that echoes spec 4.6 `id`). */
  async function findOnPos(cv: ConnectedVenue, orderId: string): Promise<PosOrder | null> {
    const open = await cv.pos.listOrders(cv.connection.pos_venue_id, { status: 'open' });
    return open.find((o) => o.reservationId === orderId) ?? null;
  }

  /** The spec 4.6 create; a 422 naming unknown SKUs: created again without them (the guest is seated all the same). */
  async function createWithoutUnknownSkus(cv: ConnectedVenue, request: CreateOrderInput): Promise<PosAnswer> {
    let body = request;
    const unknownSkus: string[] = [];
    for (let round = 0; round < 3; round++) {
      const res = await cv.pos.createOrder(cv.connection.pos_venue_id, body);
      if (res.ok) return { kind: 'created', order: { id: res.id }, unknownSkus };
      const next = withoutSkus(body, res.unknownSkus);
      // A POS naming SKUs we did not send would loop: that is a refusal.
      if ((next.items?.length ?? 0) === (body.items?.length ?? 0)) return { kind: 'refused', reason: `the POS answered 422: ${res.error}` };
      // Only SKUs of the event are reported (a POS naming others adds nothing a receiver could act on).
      const sent = new Set((body.items ?? []).map((i) => i.sku));
      unknownSkus.push(...res.unknownSkus.filter((s) => sent.has(s) && !unknownSkus.includes(s)));
      body = next;
    }
    return { kind: 'refused', reason: 'the POS kept refusing the order for unknown SKUs' };
  }

  /** One try at the POS: a later attempt first looks for the order an earlier one may have created, else creates it. */
  async function askPos(row: SeatingRow, cv: ConnectedVenue): Promise<PosAnswer> {
    try {
      if (row.attempts > 1) {
        const found = await findOnPos(cv, row.order_id);
        if (found) return { kind: 'created', order: found, unknownSkus: row.unknown_skus };
      }
      return await createWithoutUnknownSkus(cv, row.pos_request);
    } catch (err) {
      if (!(err instanceof PosError)) throw err;
      return retriable(err) ? { kind: 'unreachable', error: err.message } : { kind: 'refused', reason: err.message };
    }
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

  // Recording the outcome: each with its outbox event, in one transaction.

  /** One attempt of a claimed (or leased) seating: what the POS answered, recorded. */
  async function attempt(row: SeatingRow, cv: ConnectedVenue, run: RunInTx, ownsJob: boolean): Promise<Attempt> {
    const answer = await askPos(row, cv);
    if (answer.kind === 'unreachable') {
      await recordPending(row, answer.error, ownsJob);
      return { kind: 'pending' };
    }
    if (answer.kind === 'refused') {
      await run((tx) => recordFailed(tx, row, answer.reason, ownsJob));
      return { kind: 'failed', reason: answer.reason };
    }
    const orderId = await recordOpened(row, cv, answer, run, ownsJob);
    return { kind: 'opened', orderId, unknownSkus: answer.unknownSkus };
  }

  async function recordPending(row: SeatingRow, error: string, ownsJob: boolean): Promise<void> {
    const now = clock.now();
    log.warn({ bookingId: row.booking_id, venueId: row.venue_id, err: error }, 'seating: the POS could not be reached; retrying');
    await inTx(async (tx) => {
      await repo.markPending(tx, row.id, error, now);
      // The job scheduled at the claim waits out the claim's lease; the guest should not.
      if (ownsJob) await rescheduleJob(tx, row.id, nextAttemptAt(now, row.deadline_at, delayMs) ?? row.deadline_at, now);
    });
  }

  /** The order linked to its booking (party size, prepayment, booking time), mirrored, and announced. */
  async function recordOpened(row: SeatingRow, cv: ConnectedVenue, created: Extract<PosAnswer, { kind: 'created' }>, run: RunInTx, ownsJob: boolean): Promise<string> {
    const stored = await mirrorOf(cv, created.order);
    const posOrderId = created.order.id;
    const now = clock.now();
    const orderId = await run(async (tx) => {
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
      if (stored) await upsertOrder(tx, row.venue_id, cv.venue.currency, stored, now);
      await repo.markOpened(tx, row.id, posOrderId, order.id, created.unknownSkus, now);
      if (ownsJob) await cancelJob(tx, seatingJobKey(row.id));
      await announceOpened(tx, row, order.id, posOrderId, created.unknownSkus, now);
      return order.id;
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
    await repo.markFailed(tx, row.id, reason, now);
    if (ownsJob) await cancelJob(tx, seatingJobKey(row.id));
    await emit(tx, scope(row), { type: 'pos_order.failed', entityId: row.order_id, data: { ...eventData(row), reason } }, now);
  }

  async function rescheduleJob(tx: Executor, seatingId: string, runAt: Date, now: Date): Promise<void> {
    await cancelJob(tx, seatingJobKey(seatingId));
    await scheduleJob(tx, { kind: SEATING_JOB, runAt, dedupeKey: seatingJobKey(seatingId), payload: { seatingId } }, now);
  }

  function answer(row: SeatingRow, outcome: Attempt): SeatAnswer {
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
      return answer(claimed.row, await attempt(claimed.row, input.cv, inTx, true));
    },

    /** The durable retry of a seating whose POS could not be reached (or whose claimer died). */
    job(): JobDefinition<{ seatingId: string }> {
      return {
        run: async (job, ctx) => {
          const row = await repo.find(db.kysely, job.payload.seatingId);
          if (!row || row.status === 'opened' || row.status === 'failed') return;
          const now = clock.now();
          const cv = await connections.forVenue(row.venue_id);
          if (!cv) {
            await ctx.transaction((tx) => recordFailed(tx, row, 'the venue has no POS connection any more', false));
            return;
          }
          if (now.getTime() >= row.deadline_at.getTime()) {
            await ctx.transaction((tx) => recordFailed(tx, row, `the POS could not be reached within an hour (${row.last_error ?? 'no answer'})`, false));
            return;
          }
          const leased = await repo.lease(db.kysely, row.id, leaseFrom(now), now);
          if (!leased) return { retryAt: row.lease_until && row.lease_until > now ? row.lease_until : new Date(now.getTime() + delayMs) };
          const outcome = await attempt(leased, cv, ctx.transaction, false);
          if (outcome.kind === 'pending') return { retryAt: nextAttemptAt(clock.now(), row.deadline_at, delayMs) ?? row.deadline_at };
        },
      };
    },
  };
}

export type SeatingService = ReturnType<typeof createSeatingService>;
