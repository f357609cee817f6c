import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { cancelJob, scheduleJob, type JobDefinition, type JobResult } from '../db/jobs.ts';
import type { Sealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { conflict } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import { localDateText } from '../lib/iso/timezones.ts';
import {
  bookingView, createIsPastDeadline, fieldsOf, isLostCreate, lookingIsOver, nextCreateAttempt, nextLookFor, type BookingView, type ChangedBy, type RmsFields,
} from './bookings.fns.ts';
import {
  addChange, findBooking, findByIdempotencyKey, insertCreating, knownRmsIds, markCreated, markFoundCanceled, markGivenUp, markRefused,
  type StoredBooking,
} from './bookings.repository.ts';
import { INVALID_REQUEST, RmsError, type CreateBookingRequest, type RmsClient } from './rms-client.ts';
import type { RmsBooking, RmsContact } from './rms-client.fns.ts';
import { findRmsVenue } from './venues.service.ts';

// Creating a booking at the RMS (DESIGN 8.2, 8.8b). The create is recorded before the RMS is asked
// (with its own Idempotency-Key, `tableside-<id>`), the RMS is called with no transaction open, and
// its answer is recorded in a second short transaction. An answer that settles nothing (timeout,
// network, 5xx, garbage, 408, 429, 401, 403) leaves the create in flight: it is sent again under the
// same key and body, by the channel's retry or by the `rms.booking.create` job (backoff), for 15
// minutes from its record; then it is given up (recorded failed: the same channel key answers that
// failure from then on) and, for the next hour, the `rms.booking.look-for` job searches the RMS for
// a booking it made anyway and cancels it there (`cancelActor: "system"`), so no table is held for
// a guest who was told it failed. The channel's paymentToken is sealed apart from the body and
// dropped once the create is settled.

export const RMS_CREATE_JOB = 'rms.booking.create';
export const RMS_LOOK_FOR_JOB = 'rms.booking.look-for';

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
   * The caller's checks of a new booking (the venue still linked to the channel, the booking notice).
   * A repeat of an earlier key skips them and answers what the first request got, even once the
   * venue is unlinked or the slot too close to book anew (idempotency first).
   */
  admit?: () => void | Promise<void>;
}

export interface CreateResult {
  booking: BookingView;
  /** true: the RMS has not answered yet; the create is being sent again and booking.created follows. */
  pending: boolean;
  /** true: the outcome stayed unknown for 15 minutes and Tableside gave up (DESIGN 8.8b): nothing is booked. */
  failed: boolean;
  /** true: the idempotency key was seen before; this answers that request, nothing new was sent (X-Idempotent-Replay). */
  replay?: boolean;
}

/** What the bookings service lends the creates: one RMS client per partner, and its one announcer. */
export interface BookingCreatesDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  rmsTimeoutMs: number;
  /** Seals the channel's paymentToken while the create may be sent again (the RMS partners' key). */
  sealer: Sealer;
  clientFor(partnerId: string): Promise<RmsClient>;
  announce(tx: Executor, before: StoredBooking | null, after: StoredBooking, type: string, changedBy: ChangedBy, now: Date): Promise<void>;
}

type InTx = <T>(fn: (tx: Executor) => Promise<T>) => Promise<T>;

export function createBookingCreates(deps: BookingCreatesDeps) {
  const { db, clock, log, clientFor, announce } = deps;
  const rmsKey = (b: Pick<StoredBooking, 'id'>) => `tableside-${b.id}`;
  const jobKey = (id: string) => `${RMS_CREATE_JOB}:${id}`;
  const ownTx: InTx = (fn) => db.kysely.transaction().execute(fn);

  /** Best effort: the RMS's full state after a create; null if it cannot be read now. */
  async function readBack(client: RmsClient, rmsId: string): Promise<RmsBooking | null> {
    return client.getBooking(rmsId).catch((err) => {
      log.warn({ err, rmsBookingId: rmsId }, 'could not read a booking back from the RMS; a notice or the next change will');
      return null;
    });
  }

  /** The very body of the first send: the recorded request, and the paymentToken opened from its seal. */
  async function bodyOf(b: StoredBooking): Promise<CreateBookingRequest> {
    if (!b.paymentTokenSealed) return b.request;
    return { ...b.request, paymentToken: await deps.sealer.open(b.paymentTokenSealed) };
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
   * Gives the create up (its 15 minutes are over): recorded failed, the retry job gone, and the
   * hour of looking for it at the RMS begins now.
   */
  async function giveUp(tx: Executor, b: StoredBooking, fromJob: boolean): Promise<void> {
    const now = clock.now();
    if (!(await markGivenUp(tx, b.id, now))) return;
    await addChange(tx, b.id, 'given up: the RMS did not settle the create within 15 minutes', { sync: { from: 'creating', to: 'failed' } }, now);
    if (!fromJob) await cancelJob(tx, jobKey(b.id));
    await scheduleJob(tx, { kind: RMS_LOOK_FOR_JOB, dedupeKey: `${RMS_LOOK_FOR_JOB}:${b.id}`, payload: { bookingId: b.id }, runAt: now }, now);
    log.warn({ bookingId: b.id }, 'booking create given up after 15 minutes without an answer; looking for it at the RMS for an hour');
  }

  /** One create attempt with the booking's own key and body; records whatever is definite. */
  async function attemptCreate(b: StoredBooking, inTx: InTx, fromJob: boolean): Promise<void> {
    const client = await clientFor(b.partnerId);
    let ack;
    try {
      ack = await client.createBooking(rmsKey(b), await bodyOf(b));
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

  /** A repeat of a create under the same key: the same booking, unless the request differs (409). */
  function sameRequest(seen: StoredBooking, input: CreateBookingInput): StoredBooking {
    if (input.requestHash && seen.requestHash && seen.requestHash !== input.requestHash) {
      throw conflict('This Idempotency-Key was already used with a different request; use a new key for a new booking.');
    }
    return seen;
  }

  const settled = (b: StoredBooking): CreateResult => ({ booking: bookingView(b), pending: false, failed: b.gaveUpAt !== null });

  /** Drives a recorded create to an answer: created, refused (throws the refusal), given up, or still pending. */
  async function resume(b: StoredBooking): Promise<CreateResult> {
    if (b.sync === 'created' || b.gaveUpAt) return settled(b);
    if (b.sync === 'refused' && b.refusalCode === INVALID_REQUEST) throw new RmsError('invalid', 'The RMS refused this booking request as invalid', 400, INVALID_REQUEST);
    if (b.sync === 'refused') throw new RmsError('refused', `The RMS refused this booking: ${b.refusalCode}`, 402, b.refusalCode ?? undefined);
    if (createIsPastDeadline(b.createdAt, clock.now())) {
      // Nobody resolved it in time (the job's processes were down): never sent again from here on.
      await ownTx((tx) => giveUp(tx, b, false));
    } else {
      try {
        await attemptCreate(b, ownTx, false);
      } catch (err) {
        if (err instanceof RmsError && err.definite) throw err;
        log.warn({ err, bookingId: b.id }, 'booking create outcome unknown; it is sent again under the same key');
      }
    }
    const now = (await findBooking(db.kysely, b.id))!;
    if (now.sync === 'refused' && !now.gaveUpAt) return resume(now);
    return { ...settled(now), pending: now.sync === 'creating' };
  }

  async function create(input: CreateBookingInput): Promise<CreateResult> {
    if (input.idempotencyKey) {
      const seen = await findByIdempotencyKey(db.kysely, input.idempotencyKey);
      if (seen) return { ...(await resume(sameRequest(seen, input))), replay: true };
    }
    await input.admit?.();
    const venue = await findRmsVenue(db.kysely, input.venueId);
    await clientFor(venue.partnerId); // refuse before recording anything when no RMS is connected
    const id = uuidv7();
    // The body sent (and sent again) is this, plus the paymentToken, which is kept sealed apart.
    const request: CreateBookingRequest = {
      venueId: venue.rmsVenueId,
      bookingChannel: input.channel,
      partySize: input.partySize,
      date: input.date.toISOString(),
      ...(input.areaId ? { areaId: input.areaId } : {}),
      contact: input.contact,
      ...(input.notes ? { notes: input.notes } : {}),
    };
    const paymentTokenSealed = input.paymentToken ? await deps.sealer.seal(input.paymentToken) : null;
    const now = clock.now();
    try {
      await ownTx(async (tx) => {
        await insertCreating(tx, {
          id, partnerId: venue.partnerId, venueId: venue.id, rmsVenueId: venue.rmsVenueId, idempotencyKey: input.idempotencyKey ?? id,
          channel: input.channel, partySize: input.partySize, start: input.date, areaId: input.areaId ?? null,
          contact: input.contact, notes: input.notes ?? null, request, requestHash: input.requestHash ?? null, paymentTokenSealed,
        }, now);
        // Scheduled with the record, so a process that dies mid-call still gets the create resolved.
        await scheduleJob(tx, { kind: RMS_CREATE_JOB, dedupeKey: jobKey(id), payload: { bookingId: id }, runAt: new Date(now.getTime() + deps.rmsTimeoutMs + 5000) }, now);
      });
    } catch (err) {
      // The same key arrived at once elsewhere (another process): the unique key decided; answer its booking.
      if (!input.idempotencyKey || !isUniqueViolation(err, 'bookings_idempotency_key_key')) throw err;
      const seen = await findByIdempotencyKey(db.kysely, input.idempotencyKey);
      if (!seen) throw err;
      return { ...(await resume(sameRequest(seen, input))), replay: true };
    }
    return resume((await findBooking(db.kysely, id))!);
  }

  /** The RMS's booking made by a given-up create, if it holds one now (`GET /bookings/search`). */
  async function lookFor(client: RmsClient, b: StoredBooking): Promise<RmsBooking | null> {
    const day = localDateText(b.start, b.venueTimezone ?? 'UTC');
    const found = await client.searchBookings({ venueId: b.rmsVenueId, startDate: day, endDate: day, email: b.contact.email });
    const known = await knownRmsIds(db.kysely, b.partnerId, found.data.map((r) => r.id));
    return found.data.find((r) => isLostCreate(r, b, known)) ?? null;
  }

  /** One look for a given-up create at the RMS; a booking found is cancelled there and recorded (changedBy "system"). */
  async function lookForAndCancel(b: StoredBooking, inTx: InTx): Promise<'canceled' | 'not_found'> {
    const client = await clientFor(b.partnerId);
    const found = await lookFor(client, b);
    if (!found) return 'not_found';
    try {
      await client.cancelBooking(found.id, { cancelActor: 'system', cancelReason: 'Tableside gave this booking up: the channel was told it failed.' });
    } catch (err) {
      if (!(err instanceof RmsError && err.code === 'booking_already_cancelled')) throw err;
    }
    await inTx(async (tx) => {
      const now = clock.now();
      const before = (await findBooking(tx, b.id, true))!;
      if (!(await markFoundCanceled(tx, b.id, now))) return;
      await addChange(tx, b.id, 'a booking of the given-up create found at the RMS and cancelled (system)', { rmsBookingId: found.id, status: { from: null, to: 'canceled' } }, now);
      await announce(tx, before, (await findBooking(tx, b.id))!, 'booking.canceled', 'system', now);
    });
    log.warn({ bookingId: b.id, rmsBookingId: found.id }, 'cancelled at the RMS a booking of a create Tableside had given up');
    return 'canceled';
  }

  const jobs = (): Record<string, JobDefinition<{ bookingId: string }>> => ({
    /** The durable resend of a create whose outcome is unknown, for 15 minutes; then given up. */
    [RMS_CREATE_JOB]: {
      async run(job, ctx): Promise<JobResult> {
        const b = await findBooking(db.kysely, job.payload.bookingId);
        if (!b || b.sync !== 'creating') return;
        if (createIsPastDeadline(b.createdAt, clock.now())) return ctx.transaction((tx) => giveUp(tx, b, true));
        try {
          await attemptCreate(b, ctx.transaction, true);
        } catch (err) {
          if (err instanceof RmsError && err.definite) return; // recorded as refused, job removed with it
          log.warn({ err, bookingId: b.id, attempts: job.attempts }, 'booking create outcome still unknown; sending it again later under the same key');
          // Never past the deadline: the run at the deadline gives it up.
          return { retryAt: nextCreateAttempt(b.createdAt, clock.now(), job.attempts) };
        }
      },
    },
    /** For an hour after a create was given up: look for a booking of it at the RMS and cancel it. */
    [RMS_LOOK_FOR_JOB]: {
      async run(job, ctx): Promise<JobResult> {
        const b = await findBooking(db.kysely, job.payload.bookingId);
        if (!b?.gaveUpAt || b.status !== null || lookingIsOver(b.gaveUpAt, clock.now())) return;
        try {
          if ((await lookForAndCancel(b, ctx.transaction)) === 'canceled') return;
        } catch (err) {
          log.warn({ err, bookingId: b.id }, 'could not look for a given-up booking create at the RMS; trying again');
        }
        const next = nextLookFor(b.gaveUpAt, clock.now());
        return next ? { retryAt: next } : undefined;
      },
    },
  });

  return { create, resume, jobs };
}
