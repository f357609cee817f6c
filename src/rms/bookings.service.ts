import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { cancelJob, scheduleJob, type JobDefinition } from '../db/jobs.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { emit } from '../db/outbox.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, notFound } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { BookingServicesService } from './booking-services.service.ts';
import {
  bookingView, diff, eventTypeOf, fieldsOf, isNewer, type BookingView, type ChangedBy, type RecordedBookingChange, type RmsFields,
} from './bookings.fns.ts';
import {
  addChange, applyFields, claimReread, findBooking, findByIdempotencyKey, findByRmsId, hasCreatesInFlight, insertCreating, listChanges,
  markCreated, markRefused, releaseReread, type BookingChange, type StoredBooking,
} from './bookings.repository.ts';
import { RmsError, type CreateBookingRequest, type RmsClient } from './rms-client.ts';
import type { RmsBooking, RmsContact } from './rms-client.fns.ts';
import { findRmsVenue } from './venues.service.ts';

// Bookings made through Tableside (DESIGN 8): each is recorded before the RMS is asked, the RMS is
// called with no transaction open, and its answer is recorded in a second short transaction that
// also writes the history entry and the outbox event (booking.created / updated / canceled). A
// create whose outcome is unknown (timeout, 5xx, garbage) is retried durably under the same
// Idempotency-Key until the RMS answers, so it is neither lost nor made twice.

export const RMS_CREATE_JOB = 'rms.booking.create';

export interface CreateBookingInput {
  /** Tableside's (content) venue id; the RMS is its owner's, the RMS venue its externalId. */
  venueId: string;
  channel: { id: string; name: string };
  partySize: number;
  date: Date;
  areaId?: string | null;
  contact: RmsContact;
  notes?: string | null;
  paymentToken?: string;
  /** The caller's idempotency key, already scoped by the caller: a repeat answers the same booking. */
  idempotencyKey?: string;
  /** The fingerprint of the caller's request: the same key with another fingerprint is a 409. */
  requestHash?: string;
  /**
   * The caller's checks of a new booking (e.g. the booking notice). A repeat of an earlier key skips
   * them and answers what the first request got, even once the slot is too close to book anew.
   */
  admit?: () => void;
}

export interface CreateResult {
  booking: BookingView;
  /** true: the RMS has not answered yet; the create is being retried and booking.created follows. */
  pending: boolean;
}

/**
 * What a re-read came to. `busy`: another re-read of the booking is running (nothing read: read
 * again after it); `superseded`: this one outlived its lease and a later re-read took over (what it
 * read is not applied: the later read wins).
 */
export type RefreshOutcome = 'unknown' | 'unchanged' | 'updated' | 'stale' | 'busy' | 'superseded';

/**
 * Hears every recorded change of a booking, in the transaction that records it, so what it writes
 * (an event for a channel, an update for Google) exists exactly when the change commits. It must not
 * call out: it writes rows and jobs only.
 */
export type BookingChangeListener = (tx: Executor, change: RecordedBookingChange) => Promise<void>;

export interface BookingsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  bookingServices: BookingServicesService;
  rmsTimeoutMs: number;
}

export function createBookingsService(deps: BookingsDeps) {
  const { db, clock, log, bookingServices } = deps;
  const rmsKey = (b: Pick<StoredBooking, 'id'>) => `tableside-${b.id}`;
  const jobKey = (id: string) => `${RMS_CREATE_JOB}:${id}`;
  const listeners: BookingChangeListener[] = [];
  /** A re-read's claim covers its one RMS read with room to spare; past it, its write is fenced off. */
  const rereadLeaseMs = 2 * deps.rmsTimeoutMs + 5000;

  async function clientFor(partnerId: string): Promise<RmsClient> {
    const client = await bookingServices.client(partnerId);
    if (!client) throw new RmsError('not_connected', 'The RMS partner has not connected its booking services (PUT /v1/rms/booking-services).');
    return client;
  }

  async function load(id: string): Promise<StoredBooking> {
    const b = await findBooking(db.kysely, id);
    if (!b) throw notFound(`Booking ${id} not found.`);
    return b;
  }

  /** Best effort: the RMS's full state after a write (tables, deposit, updatedAt); null if it cannot be read now. */
  async function readBack(client: RmsClient, rmsId: string): Promise<RmsBooking | null> {
    return client.getBooking(rmsId).catch((err) => {
      log.warn({ err, rmsBookingId: rmsId }, 'could not read a booking back from the RMS; a notice or the next change will');
      return null;
    });
  }

  /** Records the RMS's acceptance of a create (once, whoever gets there first: the call or the retry job). */
  async function recordCreated(tx: Executor, b: StoredBooking, rmsId: string, state: RmsFields, rmsUpdatedAt: Date | null, fromJob: boolean): Promise<void> {
    const now = clock.now();
    if (!(await markCreated(tx, b.id, rmsId, state, rmsUpdatedAt, now))) return;
    await addChange(tx, b.id, 'created', { rmsBookingId: rmsId, status: state.status }, now);
    // The retry job removes itself with its own transaction; from the inline call it is cancelled here.
    if (!fromJob) await cancelJob(tx, jobKey(b.id));
    // Resolved by the retry job, the booking is news to the channel too (DESIGN 8.8b: "system").
    await announce(tx, null, (await findBooking(tx, b.id))!, 'booking.created', fromJob ? 'system' : 'channel', now);
  }

  /**
   * The one place a recorded change of a booking is announced, in the transaction that records it:
   * every audience of booking events hears of it from here: the RMS partner's endpoints (DESIGN 8.5)
   * and the listeners the composition root registers (the booking's channel, 8.7).
   */
  async function announce(tx: Executor, before: StoredBooking | null, after: StoredBooking, type: string, changedBy: ChangedBy, now: Date): Promise<void> {
    await emit(tx, { partnerId: after.partnerId, venueId: after.venueId }, { type, entityId: after.id, data: bookingView(after) }, now);
    for (const listener of listeners) await listener(tx, { before, after, type, changedBy, at: now });
  }

  /** One create attempt with the booking's own key and body; records whatever is definite. */
  async function attemptCreate(b: StoredBooking, inTx: <T>(fn: (tx: Executor) => Promise<T>) => Promise<T>, fromJob: boolean): Promise<void> {
    const client = await clientFor(b.partnerId);
    let ack;
    try {
      ack = await client.createBooking(rmsKey(b), b.request);
    } catch (err) {
      if (err instanceof RmsError && err.definite) {
        await inTx(async (tx) => {
          await markRefused(tx, b.id, err.code ?? `rms_${err.kind}`, clock.now());
          if (!fromJob) await cancelJob(tx, jobKey(b.id));
        });
      }
      throw err;
    }
    const full = await readBack(client, ack.id);
    const state: RmsFields = full
      ? fieldsOf(full)
      : { status: ack.status, partySize: b.partySize, start: b.start, areaId: b.areaId, tables: null, notes: b.notes, deposit: null };
    await inTx((tx) => recordCreated(tx, b, ack.id, state, full?.updatedAt ?? null, fromJob));
  }

  const ownTx = <T>(fn: (tx: Executor) => Promise<T>) => db.kysely.transaction().execute(fn);

  /** Applies an RMS state read outside any transaction; converges whatever order reads finish in. */
  async function apply(tx: Executor, partnerId: string, rms: RmsBooking, cause: string, changedBy: ChangedBy): Promise<RefreshOutcome> {
    const b = await findByRmsId(tx, partnerId, rms.id, true);
    if (!b) return 'unknown';
    if (!isNewer(b.rmsUpdatedAt, rms.updatedAt)) return 'stale';
    const next = fieldsOf(rms);
    const changes = diff(b, next);
    if (Object.keys(changes).length === 0) return 'unchanged';
    const now = clock.now();
    await applyFields(tx, b.id, next, rms.updatedAt, now);
    await addChange(tx, b.id, cause, changes, now);
    await announce(tx, b, (await findBooking(tx, b.id))!, eventTypeOf(changes), changedBy, now);
    return 'updated';
  }

  /** A repeat of a create under the same key: the same booking, unless the request differs (409). */
  function sameRequest(seen: StoredBooking, input: CreateBookingInput): StoredBooking {
    if (input.requestHash && seen.requestHash && seen.requestHash !== input.requestHash) {
      throw conflict('This Idempotency-Key was already used with a different request; use a new key for a new booking.');
    }
    return seen;
  }

  const service = {
    /** Registers a listener of every recorded change (the composition root wires the channels' ones). */
    onChange(listener: BookingChangeListener): void {
      listeners.push(listener);
    },

    async create(input: CreateBookingInput): Promise<CreateResult> {
      if (input.idempotencyKey) {
        const seen = await findByIdempotencyKey(db.kysely, input.idempotencyKey);
        if (seen) return service.resume(sameRequest(seen, input));
      }
      input.admit?.();
      const venue = await findRmsVenue(db.kysely, input.venueId);
      const partnerId = venue.partnerId;
      await clientFor(partnerId); // refuse before recording anything when no RMS is connected
      const id = uuidv7();
      const request: CreateBookingRequest = {
        venueId: venue.rmsVenueId,
        bookingChannel: input.channel,
        partySize: input.partySize,
        date: input.date.toISOString(),
        ...(input.areaId ? { areaId: input.areaId } : {}),
        contact: input.contact,
        ...(input.notes ? { notes: input.notes } : {}),
        ...(input.paymentToken ? { paymentToken: input.paymentToken } : {}),
      };
      const now = clock.now();
      try {
        await ownTx(async (tx) => {
          await insertCreating(tx, {
            id, partnerId, venueId: venue.id, rmsVenueId: venue.rmsVenueId, idempotencyKey: input.idempotencyKey ?? id,
            channel: input.channel, partySize: input.partySize, start: input.date, areaId: input.areaId ?? null,
            contact: input.contact, notes: input.notes ?? null, request, requestHash: input.requestHash ?? null,
          }, now);
          // Scheduled with the record, so a process that dies mid-call still gets the create resolved.
          await scheduleJob(tx, { kind: RMS_CREATE_JOB, dedupeKey: jobKey(id), payload: { bookingId: id }, runAt: new Date(now.getTime() + deps.rmsTimeoutMs + 5000) }, now);
        });
      } catch (err) {
        // The same key arrived at once elsewhere (another process): the unique key decided; answer its booking.
        if (!input.idempotencyKey || !isUniqueViolation(err, 'bookings_idempotency_key_key')) throw err;
        const seen = await findByIdempotencyKey(db.kysely, input.idempotencyKey);
        if (!seen) throw err;
        return service.resume(sameRequest(seen, input));
      }
      return service.resume((await findBooking(db.kysely, id))!);
    },

    /** Drives a recorded create to an answer: created, refused (throws the refusal), or still pending. */
    async resume(b: StoredBooking): Promise<CreateResult> {
      if (b.sync === 'created') return { booking: bookingView(b), pending: false };
      if (b.sync === 'refused') throw new RmsError('refused', `The RMS refused this booking: ${b.refusalCode}`, 402, b.refusalCode ?? undefined);
      try {
        await attemptCreate(b, ownTx, false);
      } catch (err) {
        if (err instanceof RmsError && err.definite) throw err;
        log.warn({ err, bookingId: b.id }, 'booking create outcome unknown; the retry job will resolve it');
      }
      const now = (await findBooking(db.kysely, b.id))!;
      return { booking: bookingView(now), pending: now.sync === 'creating' };
    },

    async get(id: string): Promise<BookingView> {
      return bookingView(await load(id));
    },

    async history(id: string): Promise<BookingChange[]> {
      await load(id);
      return listChanges(db.kysely, id);
    },

    /** PUT /booking/{id} at the RMS, then its state recorded (booking.updated). A 402 changes nothing. */
    async change(id: string, change: { partySize?: number; date?: Date }): Promise<BookingView> {
      const b = await load(id);
      if (b.sync !== 'created' || !b.rmsBookingId) throw new AppError('conflict', `Booking ${id} has not been created at the RMS (yet).`);
      const client = await clientFor(b.partnerId);
      const ack = await client.updateBooking(b.rmsBookingId, {
        ...(change.partySize !== undefined ? { partySize: change.partySize } : {}),
        ...(change.date !== undefined ? { date: change.date.toISOString() } : {}),
      });
      const full = await readBack(client, b.rmsBookingId);
      const state: RmsBooking = full ?? {
        id: b.rmsBookingId, venueId: b.rmsVenueId, status: ack.status, partySize: change.partySize ?? b.partySize,
        date: change.date ?? b.start, areaId: b.areaId, tables: b.tables, contact: b.contact, notes: b.notes,
        deposit: b.deposit, createdAt: null, updatedAt: null,
      };
      await ownTx((tx) => apply(tx, b.partnerId, state, 'changed through Tableside', 'channel'));
      return service.get(id);
    },

    /** PUT /booking/{id}/cancel at the RMS, then recorded (booking.canceled). */
    async cancel(id: string, body: { cancelActor?: string; cancelReason?: string } = {}): Promise<BookingView> {
      const b = await load(id);
      if (b.sync !== 'created' || !b.rmsBookingId) throw new AppError('conflict', `Booking ${id} has not been created at the RMS (yet).`);
      const client = await clientFor(b.partnerId);
      try {
        await client.cancelBooking(b.rmsBookingId, body);
      } catch (err) {
        // Already cancelled at the RMS: what the caller wanted; record it if Tableside missed it.
        if (!(err instanceof RmsError && err.code === 'booking_already_cancelled')) throw err;
      }
      const full = await readBack(client, b.rmsBookingId);
      const state: RmsBooking = full ?? {
        id: b.rmsBookingId, venueId: b.rmsVenueId, status: 'canceled', partySize: b.partySize, date: b.start, areaId: b.areaId,
        tables: b.tables, contact: b.contact, notes: b.notes, deposit: b.deposit, createdAt: null, updatedAt: null,
      };
      await ownTx((tx) => apply(tx, b.partnerId, { ...state, status: 'canceled' }, `canceled through Tableside${body.cancelActor ? ` (${body.cancelActor})` : ''}`, 'channel'));
      return service.get(id);
    },

    /**
     * Re-reads a booking from the RMS (no transaction open) and applies that state. Re-reads of one
     * booking run one at a time (DESIGN 8.8c): each claims the booking's re-read first, so one that
     * starts after another ended reads a state at least as new, and applying what it read is right
     * whatever the RMS's `updatedAt` precision (equal or missing times included). The claim is a
     * lease (a process may die mid-read) and the write is fenced on it. `onStart` runs in the
     * claim's transaction (the notices it answers). `unknown`: not a booking made through Tableside;
     * `stale`: a state older than the one recorded (a lagging RMS); `busy` and `superseded` above.
     */
    async refresh(partnerId: string, rmsBookingId: string, cause: string, onStart?: (tx: Executor) => Promise<void>): Promise<RefreshOutcome> {
      const known = await findByRmsId(db.kysely, partnerId, rmsBookingId);
      if (!known) return 'unknown';
      const client = await clientFor(partnerId);
      const claim = uuidv7();
      const claimed = await ownTx(async (tx) => {
        if (!(await claimReread(tx, known.id, claim, rereadLeaseMs))) return false;
        await onStart?.(tx);
        return true;
      });
      if (!claimed) return 'busy';
      let rms: RmsBooking;
      try {
        rms = await client.getBooking(rmsBookingId);
      } catch (err) {
        await releaseReread(db.kysely, known.id, claim);
        throw err;
      }
      return ownTx(async (tx) => {
        if (!(await releaseReread(tx, known.id, claim))) return 'superseded';
        return apply(tx, partnerId, rms, cause, 'venue');
      });
    },

    /** Whether the partner has creates whose RMS answer is not recorded yet. */
    createsInFlight: (partnerId: string) => hasCreatesInFlight(db.kysely, partnerId),

    /** The durable retry of creates whose outcome was unknown. */
    jobs(): Record<string, JobDefinition<{ bookingId: string }>> {
      return {
        [RMS_CREATE_JOB]: {
          async run(job, ctx) {
            const b = await findBooking(db.kysely, job.payload.bookingId);
            if (!b || b.sync !== 'creating') return;
            try {
              await attemptCreate(b, ctx.transaction, true);
            } catch (err) {
              if (err instanceof RmsError && err.definite) return; // recorded as refused, job removed with it
              throw err; // retried with backoff, same key
            }
          },
        },
      };
    },
  };
  return service;
}

export type BookingsService = ReturnType<typeof createBookingsService>;
