import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import type { JobDefinition } from '../db/jobs.ts';
import { emit } from '../db/outbox.ts';
import { createSealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, notFound } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import { createBookingCreates } from './booking-creates.ts';
import { RMS_SEALING_KEY_SETTING, type BookingServicesService } from './booking-services.service.ts';
import { bookingView, diff, eventTypeOf, fieldsOf, isNewer, type BookingView, type ChangedBy, type RecordedBookingChange } from './bookings.fns.ts';
import {
  addChange, applyFields, claimCancel, claimReread, findBooking, findByRmsId, hasCreatesInFlight, releaseCancel, releaseReread,
  type StoredBooking,
} from './bookings.repository.ts';
import { RmsError, type RmsClient } from './rms-client.ts';
import type { RmsBooking } from './rms-client.fns.ts';

export { RMS_CREATE_JOB, RMS_LOOK_FOR_JOB, type CreateBookingInput, type CreateResult } from './booking-creates.ts';

// Bookings made through Tableside (DESIGN 8): each is recorded before the RMS is asked, the RMS is
// called with no transaction open, and its answer is recorded in a second short transaction that
// also writes the history entry and the outbox event (booking.created / updated / canceled). The
// create, and what happens when its outcome is unknown (DESIGN 8.8b), is booking-creates.ts's.

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
  /** SECRETS_KEY: the channel's paymentToken is sealed under it while a create needs it. */
  secretsKey?: Buffer | null;
}

const alreadyCancelled = (id: string) =>
  new RmsError('refused', `Booking ${id} is already cancelled (or being cancelled by another request).`, 402, 'booking_already_cancelled');

export function createBookingsService(deps: BookingsDeps) {
  const { db, clock, log, bookingServices } = deps;
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

  /**
   * The one place a recorded change of a booking is announced, in the transaction that records it:
   * every audience of booking events hears of it from here: the RMS partner's endpoints (DESIGN 8.5)
   * and the listeners the composition root registers (the booking's channel, 8.7).
   */
  async function announce(tx: Executor, before: StoredBooking | null, after: StoredBooking, type: string, changedBy: ChangedBy, now: Date): Promise<void> {
    const eventId = await emit(tx, { partnerId: after.partnerId, venueId: after.venueId }, { type, entityId: after.id, data: bookingView(after) }, now);
    for (const listener of listeners) await listener(tx, { before, after, type, changedBy, at: now, eventId });
  }

  /** The RMS's cancelled state recorded, and the cancel's claim released with it. */
  async function recordCanceled(client: RmsClient, b: StoredBooking, cause: string, changedBy: ChangedBy): Promise<void> {
    const rmsId = b.rmsBookingId!;
    const full = await readBack(client, rmsId);
    const state: RmsBooking = full ?? {
      id: rmsId, venueId: b.rmsVenueId, status: 'canceled', partySize: b.partySize, date: b.start, areaId: b.areaId,
      tables: b.tables, contact: b.contact, notes: b.notes, deposit: b.deposit, createdAt: null, updatedAt: null,
    };
    await ownTx(async (tx) => {
      await apply(tx, b.partnerId, { ...state, status: 'canceled' }, cause, changedBy);
      await releaseCancel(tx, b.id);
    });
  }

  const ownTx = <T>(fn: (tx: Executor) => Promise<T>) => db.kysely.transaction().execute(fn);
  const creates = createBookingCreates({
    db, clock, log, rmsTimeoutMs: deps.rmsTimeoutMs, clientFor, announce,
    sealer: createSealer({ db, clock, secretsKey: deps.secretsKey ?? null, setting: RMS_SEALING_KEY_SETTING }),
  });

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

  const service = {
    /** Registers a listener of every recorded change (the composition root wires the channels' ones). */
    onChange(listener: BookingChangeListener): void {
      listeners.push(listener);
    },

    /** A booking through the RMS, or what the same key got before (booking-creates.ts). */
    create: creates.create,
    resume: creates.resume,

    async get(id: string): Promise<BookingView> {
      return bookingView(await load(id));
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
    /**
     * PUT /booking/{id}/cancel at the RMS, then recorded (booking.canceled). One cancel of a booking at
     * a time (DESIGN 8.4a): of two at once, or a cancel of a cancelled booking, only one is the
     * cancel; the other is the RMS's 402 booking_already_cancelled, never a second success.
     */
    async cancel(id: string, body: { cancelActor?: string; cancelReason?: string } = {}): Promise<BookingView> {
      const b = await load(id);
      if (b.sync !== 'created' || !b.rmsBookingId) throw new AppError('conflict', `Booking ${id} has not been created at the RMS (yet).`);
      const rmsId = b.rmsBookingId;
      const client = await clientFor(b.partnerId);
      if (!(await claimCancel(db.kysely, id, deps.rmsTimeoutMs + 5000))) throw alreadyCancelled(id);
      try {
        await client.cancelBooking(rmsId, body);
      } catch (err) {
        if (err instanceof RmsError && err.code === 'booking_already_cancelled') {
          // Cancelled by someone else first (the venue): record it if Tableside missed it, and say so.
          await recordCanceled(client, b, 'canceled at the RMS (found when cancelling through Tableside)', 'venue');
          throw err;
        }
        await releaseCancel(db.kysely, id);
        throw err;
      }
      await recordCanceled(client, b, `canceled through Tableside${body.cancelActor ? ` (${body.cancelActor})` : ''}`, 'channel');
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

    /** The durable resend of creates whose outcome is unknown, and the look for given-up ones (DESIGN 8.8b). */
    jobs(): Record<string, JobDefinition<{ bookingId: string }>> {
      return creates.jobs();
    },
  };
  return service;
}

export type BookingsService = ReturnType<typeof createBookingsService>;
