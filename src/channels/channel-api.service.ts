import type { CredentialCache } from '../auth/credential-cache.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, forbidden } from '../lib/errors.ts';
import { localDateText } from '../lib/iso/timezones.ts';
import type { Page } from '../lib/pagination.ts';
import type { AvailabilityService } from '../rms/availability.service.ts';
import type { BookingView } from '../rms/bookings.fns.ts';
import type { BookingsService } from '../rms/bookings.service.ts';
import { RmsError } from '../rms/rms-client.ts';
import type { ChannelIdentity } from './access.repository.ts';
import {
  bookableSlots, fromRmsContact, hasNotice, notesFor, offerable, requestFingerprint, scopedKey, slotView, toRmsContact, type ChannelContact,
} from './channel-api.fns.ts';
import { bookableVenue, countLinkedVenues, listLinkedVenues, type BookableVenue } from './channel-api.repository.ts';

// The channel API (DESIGN 8.4a) over the bookings and availability services of src/rms. A channel
// sees Tableside's ids only (the content venue id, Tableside's booking id), books only venues linked
// to it, and sees only its own bookings. Tableside enforces the company's minAdvanceBooking and
// minAdvanceBookingCancelling itself, before anything reaches the RMS. Every business failure is a
// 402 whose slug is in error.details.code; an RMS failure is never a 5xx of ours.

export interface ChannelBookingBody {
  venueId: string;
  partySize: number;
  start: string;
  contact: ChannelContact;
  notes?: string;
  areaId?: string;
  paymentToken?: string;
}

const MESSAGES: Record<string, string> = {
  rms_not_connected: "The venue's reservation system has not connected its booking services; it cannot take bookings yet.",
  rms_unavailable: "The venue's reservation system did not answer in time; retry later with the same Idempotency-Key.",
  rms_unavailable_final:
    "The venue's reservation system did not answer for 15 minutes: this booking was not made and will not be (a booking of it found at the " +
    'reservation system is cancelled). Book again with a new Idempotency-Key.',
  no_currency: 'This venue has no currency set, so it cannot take a deposit through Tableside: book a slot that needs none, without a paymentToken, or ask the venue to set its currency.',
  outside_booking_window: "The slot starts sooner than the venue's minimum booking notice.",
  outside_cancellation_window: "The booking starts sooner than the venue's minimum cancellation notice; it can no longer be cancelled online.",
  booking_already_cancelled: 'The booking is already cancelled.',
};

/** A business failure: 402 in the envelope, the slug in details.code (CHN-27). */
export function channelFailure(code: string, message = MESSAGES[code] ?? `The reservation system refused: ${code}.`, extra: Record<string, unknown> = {}): AppError {
  return new AppError('payment_required', message, { code, ...extra });
}

/** What an RMS failure means to a channel. */
export function fromRmsError(err: unknown): unknown {
  if (!(err instanceof RmsError)) return err;
  if (err.kind === 'not_connected') return channelFailure('rms_not_connected');
  if (err.kind === 'refused') return channelFailure(err.code ?? 'rms_unavailable', `The reservation system refused: ${err.code}. ${err.message}`.trim());
  if (err.kind === 'conflict') return new AppError('conflict', 'The reservation system saw this request before with a different body.');
  // The request itself is wrong by the reservation system's contract: the caller's to fix, never a
  // retry promise (issue 30). The RMS's own words say what.
  if (err.kind === 'invalid') return new AppError('bad_request', `The venue's reservation system refused the request as invalid: ${err.message}`);
  return channelFailure('rms_unavailable');
}

const notBookable = () => forbidden('This venue is not bookable through your channel (it is not linked to it).');

export function bookingOut(b: BookingView) {
  return {
    id: b.id,
    venueId: b.venueId,
    channelId: b.channel?.id ?? null,
    status: b.status,
    partySize: b.partySize,
    start: b.date,
    contact: fromRmsContact(b.contact),
    notes: b.notes,
    deposit: b.deposit,
    createdAt: b.createdAt,
    updatedAt: b.updatedAt,
  };
}
export type ChannelBooking = ReturnType<typeof bookingOut>;

const UNCACHED: Pick<CredentialCache, 'lookup'> = { lookup: (_kind, _key, load) => load() };

export interface ChannelApiDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  bookings: Pick<BookingsService, 'create' | 'get' | 'change' | 'cancel'>;
  availability: Pick<AvailabilityService, 'forRmsVenue'>;
  /** Where the venues read for channels are kept between requests (none: every request reads its venue). */
  credentials?: Pick<CredentialCache, 'lookup'>;
}

export function createChannelApiService({ db, clock, bookings, availability, credentials = UNCACHED }: ChannelApiDeps) {
  /**
   * The venue as the channel sees it (null when there is none). Kept in the credential cache (issue
   * 28: at 16 lookups in flight this statement was CPU the two cores lacked), under its lease and
   * epoch: an unlink, a link, and a change of any column of the row bump the epoch by trigger
   * (migration 027) and return once every process has dropped what it held, as a revoke does.
   */
  function venueOf(channel: ChannelIdentity, venueId: string): Promise<BookableVenue | null> {
    return credentials.lookup('channel-venue', `${channel.id}:${venueId.toLowerCase()}`, () => bookableVenue(db.kysely, channel.id, venueId));
  }

  /** The venue, if linked to the channel; 403 otherwise (an unknown id too: topology is not leaked). */
  async function linkedVenue(channel: ChannelIdentity, venueId: string): Promise<BookableVenue> {
    const v = await venueOf(channel, venueId);
    if (!v || !v.linked) throw notBookable();
    return v;
  }

  async function ownBooking(channel: ChannelIdentity, id: string): Promise<BookingView> {
    const b = await bookings.get(id);
    if (b.channel?.id !== channel.id) throw forbidden('This booking was not made through your channel.');
    return b;
  }

  /**
   * Whether the RMS offers this start with a deposit (asked only for a venue without a currency, which
   * cannot take one); when the RMS cannot say now, the create goes on and the RMS decides.
   */
  async function needsDeposit(venue: BookableVenue, start: Date, partySize: number): Promise<boolean> {
    const a = await availability.forRmsVenue(venue, localDateText(start, venue.timezone ?? 'UTC'), partySize).catch(() => null);
    return !!a?.slots.some((s) => s.start.getTime() === start.getTime() && s.deposit);
  }

  const rethrow = (err: unknown): never => {
    throw fromRmsError(err);
  };

  return {
    /** The venue as the channel sees it, from memory while no write has changed it (null: no such venue). */
    venue: venueOf,

    async venues(channel: ChannelIdentity, page: Page) {
      const [total, data] = await Promise.all([countLinkedVenues(db.kysely, channel.id), listLinkedVenues(db.kysely, channel.id, page)]);
      return { total, data };
    },

    /** `arrivedAt`: when the request arrived (ms since the epoch): the live call's 1 s counts from there. */
    async availability(channel: ChannelIdentity, venueId: string, date: string, partySize: number, arrivedAt = Date.now()) {
      const venue = await linkedVenue(channel, venueId);
      // The venue just read with its link carries its RMS: the RMS is asked next, nothing read in between.
      const a = await availability.forRmsVenue(venue, date, partySize, null, arrivedAt).catch(rethrow);
      // A venue without a currency cannot take a deposit (its amount could be stated in no currency):
      // its slots that need one are not offered, never shown in a guessed currency.
      const slots = bookableSlots(a.slots, clock.now(), venue.minAdvanceBooking).filter((s) => offerable(s, venue.currency));
      return { venueId: venue.id, date, partySize, source: a.source, slots: slots.map((s) => slotView(s, a.duration, venue.currency)) };
    },

    /** The booking, and whether this answers an earlier request with the same key (`replay`: the X-Idempotent-Replay header). */
    async create(channel: ChannelIdentity, idempotencyKey: string, body: ChannelBookingBody): Promise<{ booking: ChannelBooking; replay: boolean }> {
      // Idempotency first: a repeat of a key answers what the first request got, even once the venue
      // is unlinked; only a new booking meets the link, currency and notice checks (in `admit`).
      const venue = await venueOf(channel, body.venueId);
      const start = new Date(body.start);
      const result = await bookings.create({
        admit: async () => {
          if (!venue?.linked) throw notBookable();
          if (!venue.currency && (body.paymentToken || (await needsDeposit(venue, start, body.partySize)))) {
            throw new AppError('unprocessable', MESSAGES.no_currency!, { code: 'no_currency' });
          }
          if (!hasNotice(start, clock.now(), venue.minAdvanceBooking)) throw channelFailure('outside_booking_window');
        },
        venueId: body.venueId,
        channel: { id: channel.id, name: channel.name },
        partySize: body.partySize,
        date: start,
        areaId: body.areaId ?? null,
        contact: toRmsContact(body.contact),
        notes: notesFor(body.notes, channel.name, venue?.includeSourceInNotes ?? false),
        ...(body.paymentToken ? { paymentToken: body.paymentToken } : {}),
        idempotencyKey: scopedKey(channel.id, idempotencyKey),
        requestHash: requestFingerprint(body),
      }).catch(rethrow);
      // Given up after 15 minutes without an answer (DESIGN 8.8b): that failure, from now on.
      if (result.failed) throw channelFailure('rms_unavailable', MESSAGES.rms_unavailable_final, { bookingId: result.booking.id, final: true });
      // Outcome unknown: the create is sent again under the same key; a retry of this request with
      // the same Idempotency-Key answers the booking once the RMS has (it cannot book twice).
      if (result.pending) throw channelFailure('rms_unavailable', undefined, { bookingId: result.booking.id });
      return { booking: bookingOut(result.booking), replay: result.replay === true };
    },

    async get(channel: ChannelIdentity, id: string): Promise<ChannelBooking> {
      return bookingOut(await ownBooking(channel, id));
    },

    async change(channel: ChannelIdentity, id: string, change: { partySize?: number; start?: string }): Promise<ChannelBooking> {
      const b = await ownBooking(channel, id);
      if (b.status === 'canceled') throw channelFailure('booking_not_modifiable', 'The booking is cancelled; it cannot be changed.');
      const venue = await linkedVenue(channel, b.venueId);
      const start = change.start === undefined ? undefined : new Date(change.start);
      if (start && !hasNotice(start, clock.now(), venue.minAdvanceBooking)) throw channelFailure('outside_booking_window');
      return bookingOut(await bookings.change(id, { partySize: change.partySize, date: start }).catch(rethrow));
    },

    async cancel(channel: ChannelIdentity, id: string): Promise<ChannelBooking> {
      const b = await ownBooking(channel, id);
      if (b.status === 'canceled') throw channelFailure('booking_already_cancelled');
      const venue = await venueOf(channel, b.venueId);
      if (!hasNotice(new Date(b.date), clock.now(), venue?.minAdvanceBookingCancelling ?? 0)) throw channelFailure('outside_cancellation_window');
      return bookingOut(await bookings.cancel(id, { cancelReason: `Cancelled through ${channel.name}` }).catch(rethrow));
    },
  };
}

export type ChannelApiService = ReturnType<typeof createChannelApiService>;
