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
import type { SeatingRow } from './reservation-orders.repository.ts';
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

  /** The order on the POS that an earlier attempt created but never heard back about (a POS that echoes spec 4.6 `id`). */
  async function findOnPos(cv: ConnectedVenue, orderId: string): Promise<PosOrder | null> {
    const open = await cv.pos.listOrders(cv.connection.pos_venue_id, { status: 'open' });
    return open.find((o) => o.reservationId === orderId) ?? null;
  }

  /** One try at the POS: create (again without unknown SKUs if it names some), no transaction open. */
  async function callPos(row: SeatingRow, cv: ConnectedVenue): Promise<{ created: PosOrder | { id: string }; unknownSkus: string[] } | { refused: string }> {
    const posVenueId = cv.connection.pos_venue_id;
    if (row.attempts > 1) {
      const found = await findOnPos(cv, row.order_id);
      if (found) return { created: found, unknownSkus: row.unknown_skus };
    }
    let body: CreateOrderInput = row.pos_request;
    const unknownSkus: string[] = [];
    for (let round = 0; round < 3; round++) {
      const res = await cv.pos.createOrder(posVenueId, body);
      if (res.ok) return { created: { id: res.id }, unknownSkus };
      const next = withoutSkus(body, res.unknownSkus);
      // A POS naming SKUs we did not send would loop: that is a refusal.
      if ((next.items?.length ?? 0) === (body.items?.length ?? 0)) return { refused: `the POS answered 422: ${res.error}` };
      // Only SKUs of the event are reported (a POS naming others adds nothing a receiver could act on).
      const sent = new Set((body.items ?? []).map((i) => i.sku));
      unknownSkus.push(...res.unknownSkus.filter((s) => sent.has(s) && !unknownSkus.includes(s)));
      body = next;
    }
    return { refused: 'the POS kept refusing the order for unknown SKUs' };
  }

  async function attempt(row: SeatingRow, cv: ConnectedVenue, run: RunInTx, ownsJob: boolean): Promise<Attempt> {
    let outcome: Awaited<ReturnType<typeof callPos>>;
    try {
      outcome = await callPos(row, cv);
    } catch (err) {
      if (!(err instanceof PosError)) throw err;
      if (retriable(err)) {
        const now = clock.now();
        log.warn({ bookingId: row.booking_id, venueId: row.venue_id, err: err.message }, 'seating: the POS could not be reached; retrying');
        await inTx(async (tx) => {
          await repo.markPending(tx, row.id, err.message, now);
          // The job scheduled at the claim waits out the claim's lease; the guest should not.
          if (ownsJob) await rescheduleJob(tx, row.id, nextAttemptAt(now, row.deadline_at, delayMs) ?? row.deadline_at, now);
        });
        return { kind: 'pending' };
      }
      outcome = { refused: err.message };
    }
    if ('refused' in outcome) {
      const reason = outcome.refused;
      await run((tx) => fail(tx, row, reason, ownsJob));
      return { kind: 'failed', reason };
    }
    const { created, unknownSkus } = outcome;
    // The POS's own view of the new order (checks, items, times), so the bill answers at once;
    // without it the order sync brings it.
    let live: PosOrder | null = 'checks' in created ? created : null;
    if (!live) live = await cv.pos.getOrder(cv.connection.pos_venue_id, created.id).catch(() => null);
    let stored: StoredOrder | null = null;
    try {
      stored = live ? fromPosOrder(live, cv.venue.currency) : null;
    } catch {
      // An answer the mirror cannot store is left to the order sync (which reports it); the order exists.
      stored = null;
    }
    const now = clock.now();
    const orderId = await run(async (tx) => {
      const order = await linkSeatedOrder(tx, row.venue_id, cv.venue.currency, {
        orderId: row.order_id,
        bookingId: row.booking_id,
        posOrderId: created.id,
        posTables: row.pos_request.tables,
        partySize: row.party_size,
        reservationDate: row.reservation_date,
        prepaymentMinor: Number(row.prepayment_minor),
        openedAt: now,
      }, now);
      if (stored) await upsertOrder(tx, row.venue_id, cv.venue.currency, stored, now);
      await repo.markOpened(tx, row.id, created.id, order.id, unknownSkus, now);
      if (ownsJob) await cancelJob(tx, seatingJobKey(row.id));
      const data = { ...eventData(row), orderId: order.id, posOrderId: created.id, tables: row.pos_request.tables, partySize: row.party_size };
      await emit(tx, scope(row), { type: 'pos_order.opened', entityId: order.id, data: { ...data, unknownSkus } }, now);
      if (unknownSkus.length > 0) {
        await emit(tx, scope(row), { type: 'pos_order.unknown_skus', entityId: order.id, data: { ...data, unknownSkus } }, now);
      }
      return order.id;
    });
    log.info({ bookingId: row.booking_id, venueId: row.venue_id, orderId }, 'seating: POS order opened');
    return { kind: 'opened', orderId, unknownSkus };
  }

  async function fail(tx: Executor, row: SeatingRow, whole: string, ownsJob: boolean): Promise<void> {
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
      const { cv } = input;
      const venueId = cv.venue.id;
      const record = (tx: Executor, outcome: string) =>
        repo.recordEvent(tx, { partnerId: input.partnerId, venueId, bookingId: input.bookingId, status: 'seated', body: input.event, outcome }, clock.now());

      const existing = await repo.findByBooking(db.kysely, venueId, input.bookingId);
      if (existing && existing.status !== 'failed') {
        await record(db.kysely, `duplicate:${existing.status}`);
        return answerOf(existing);
      }
      const posIds = (await tables.list(cv)).map((t) => t.pos_table_id);
      const unknown = unknownTables(input.tables, posIds);
      if (unknown.length > 0) {
        throw validationFailed(
          { tables: [`not tables of this venue's POS: ${unknown.join(', ')} (GET /v1/rms/venues/{venueId}/pos-tables lists them)`] },
          `Tables ${unknown.join(', ')} are not tables of this venue's POS; nothing was sent to the POS.`,
        );
      }

      const now = clock.now();
      const orderId = existing?.order_id ?? uuidv7();
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
      const claimed = await inTx(async (tx) => {
        const fields = {
          partner_id: input.partnerId, venue_id: venueId, booking_id: input.bookingId, order_id: orderId,
          party_size: input.partySize, prepayment_minor: input.prepaymentMinor, reservation_date: input.reservationDate,
          seated_at: now, pos_request: posRequest, lease_until: leaseFrom(now), deadline_at: new Date(now.getTime() + GIVE_UP_AFTER_MS),
        };
        // A failed seating sent again is tried again, as a new claim of the same row.
        const row = existing ? await repo.relaunch(tx, existing.id, fields, now) : await repo.claim(tx, fields, now);
        if (!row) {
          const winner = await repo.findByBooking(tx, venueId, input.bookingId);
          await record(tx, `duplicate:${winner?.status ?? 'unknown'}`);
          return { row: winner, won: false };
        }
        await record(tx, 'claimed');
        // If this process dies during the POS call, the job takes over once the claim's lease is over.
        await scheduleJob(tx, { kind: SEATING_JOB, runAt: row.lease_until!, dedupeKey: seatingJobKey(row.id), payload: { seatingId: row.id } }, now);
        return { row, won: true };
      });
      if (!claimed.row) throw new Error(`seating of booking ${input.bookingId} vanished`);
      if (!claimed.won) return answerOf(claimed.row);
      return answer(claimed.row, await attempt(claimed.row, cv, inTx, true));
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
            await ctx.transaction((tx) => fail(tx, row, 'the venue has no POS connection any more', false));
            return;
          }
          if (now.getTime() >= row.deadline_at.getTime()) {
            await ctx.transaction((tx) => fail(tx, row, `the POS could not be reached within an hour (${row.last_error ?? 'no answer'})`, false));
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
