import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, badRequest, forbidden } from '../lib/errors.ts';
import { localDatesText } from '../lib/iso/timezones.ts';
import type { AvailabilityService } from '../rms/availability.service.ts';
import type { Slot } from '../rms/rms-client.fns.ts';
import type { ChannelIdentity } from './access.repository.ts';
import { bookingIdsByKeyPrefix, bookingKey, type BookableVenue } from './channel-api.repository.ts';
import { fromRmsError, type ChannelApiService, type ChannelBooking } from './channel-api.service.ts';
import { causeOf, echoSlotTime, int64, isAvailable, SERVICE_ID, userOfKey, v3Key, v3Status, v3UserPrefix } from './google-booking-server.fns.ts';
import { LIST_BOOKINGS_LIMIT, type BatchAvailabilityLookupRequest, type CreateBookingRequest, type UpdateBookingRequest } from './google-booking-server.schemas.ts';

// Google's Booking Server API v3 (DESIGN 8.4b) over the channel API service: the same link checks,
// notice periods, idempotency and RMS calls as /v1/bc, in Google's messages. A business failure is
// HTTP 200 with booking_failure (DES-110); an RMS that cannot be reached is an HTTP 503 (Google
// retries with the same idempotency_token, which cannot book twice).

/** BatchAvailabilityLookup answers within this whatever the RMS does (DESIGN: <= 1.5 s). */
export const LOOKUP_BUDGET_MS = 1400;

export interface V3Deps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  api: ChannelApiService;
  availability: Pick<AvailabilityService, 'forRmsVenue'>;
}

const UUID = /^[0-9a-f-]{36}$/i;

type Outcome<T> = { ok: true; value: T } | { ok: false; cause: string; description: string };

export function createV3Service({ db, clock, api, availability }: V3Deps) {
  async function merchant(channel: ChannelIdentity, merchantId: string): Promise<BookableVenue> {
    // The channel API's venue read: from memory under the credential cache's epoch, like /v1/bc's.
    const v = UUID.test(merchantId) ? await api.venue(channel, merchantId) : null;
    if (!v || !v.linked) throw forbidden('This merchant_id is not bookable through your channel.');
    return v;
  }

  /** A channel-API call, its business failures as a cause; infrastructure failures thrown as HTTP errors. */
  async function outcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
    try {
      return { ok: true, value: await call() };
    } catch (raw) {
      const err = fromRmsError(raw);
      if (err instanceof AppError && err.kind === 'payment_required') {
        const code = String(err.details?.code ?? '');
        if (code !== 'rms_unavailable' && code !== 'rms_not_connected') return { ok: false, cause: causeOf(code), description: `${code}: ${err.message}` };
        throw new AppError('unavailable', `${err.message} (${code})`, null, { 'retry-after': '5' });
      }
      throw err;
    }
  }

  async function userOf(channel: ChannelIdentity, bookingId: string): Promise<string> {
    return userOfKey((await bookingKey(db.kysely, channel.id, bookingId)) ?? '') ?? '';
  }

  function bookingOut(b: ChannelBooking, userId: string, durationSec?: string | number) {
    return {
      booking_id: b.id,
      slot: {
        merchant_id: b.venueId,
        service_id: SERVICE_ID,
        start_sec: String(Math.floor(new Date(b.start).getTime() / 1000)),
        ...(durationSec !== undefined ? { duration_sec: String(durationSec) } : {}),
        resources: { party_size: b.partySize },
      },
      user_information: {
        user_id: userId, given_name: b.contact.firstName, family_name: b.contact.lastName, telephone: b.contact.phone, email: b.contact.email,
      },
      status: v3Status(b.status),
      payment_information: { prepayment_status: b.deposit?.paid ? ('PREPAYMENT_PROVIDED' as const) : ('PREPAYMENT_NOT_PROVIDED' as const) },
    };
  }

  const answer = (o: Outcome<ReturnType<typeof bookingOut>>) =>
    o.ok ? { booking: o.value } : { booking_failure: { cause: o.cause, description: o.description } };

  return {
    /** `arrivedAt`: when the request arrived (ms since the epoch): LOOKUP_BUDGET_MS and the live calls' 1 s count from there. */
    async batchAvailabilityLookup(channel: ChannelIdentity, req: BatchAvailabilityLookupRequest, arrivedAt = Date.now()) {
      const venue = await merchant(channel, req.merchant_id);
      const tz = venue.timezone ?? 'UTC';
      const now = clock.now();
      const found = new Map<string, Slot[]>();
      // Each slot time's local date once, the zone's offset found once per day of them: the time-zone
      // conversion was ~3% of the service's CPU in a profile of 50-slot lookups (issue 28), then
      // ~6% of the serve's busy time in the healthy bench with one Intl call per slot time.
      const dates = localDatesText(req.slot_time.map((st) => int64(st.start_sec) * 1000), tz);
      const keys = req.slot_time.map((st, i) => `${dates[i]}|${st.resource_ids?.party_size ?? 2}`);
      const groups = [...new Set(keys)];
      const lookups = groups.map(async (g) => {
        const [date, size] = g.split('|');
        try {
          found.set(g, (await availability.forRmsVenue(venue, date!, Number(size), null, arrivedAt)).slots);
        } catch {
          found.set(g, []); // no answer and no snapshot: nothing is offered as available
        }
      });
      // Whatever the RMS does, the answer leaves within the budget: groups still asking are unavailable.
      let timer: NodeJS.Timeout | undefined;
      const left = Math.max(50, LOOKUP_BUDGET_MS - (Date.now() - arrivedAt));
      await Promise.race([Promise.all(lookups), new Promise<void>((resolve) => { timer = setTimeout(resolve, left); })]);
      clearTimeout(timer);
      return {
        slot_time_availability: req.slot_time.map((st, i) => {
          const slots = found.get(keys[i]!);
          const ok = st.service_id !== undefined && st.service_id !== SERVICE_ID ? false : !!slots && isAvailable(slots, int64(st.start_sec), now, venue.minAdvanceBooking);
          return { slot_time: echoSlotTime(st), available: ok };
        }),
      };
    },

    async createBooking(channel: ChannelIdentity, req: CreateBookingRequest) {
      // The link is checked by the channel API for a new booking only: a token already used answers
      // its booking even once the merchant is unlinked (idempotency first).
      if (!UUID.test(req.slot.merchant_id)) throw forbidden('This merchant_id is not bookable through your channel.');
      // service_id, party_size and the guest's names are the schema's rules (a 400 naming the field).
      const partySize = req.slot.resources.party_size;
      const u = req.user_information;
      const token = req.idempotency_token ?? crypto.randomUUID();
      const body = {
        venueId: req.slot.merchant_id,
        partySize,
        start: new Date(int64(req.slot.start_sec) * 1000).toISOString(),
        contact: { firstName: u.given_name, lastName: u.family_name, email: u.email ?? '', phone: u.telephone ?? '', ...(u.language_code ? { locale: u.language_code } : {}) },
        ...(req.additional_request ? { notes: req.additional_request } : {}),
      };
      const o = await outcome(async () => (await api.create(channel, v3Key(u.user_id, token), body)).booking);
      return answer(o.ok ? { ok: true, value: bookingOut(o.value, u.user_id, req.slot.duration_sec) } : o);
    },

    async updateBooking(channel: ChannelIdentity, req: UpdateBookingRequest) {
      const id = req.booking.booking_id;
      const current = await api.get(channel, id);
      const user = await userOf(channel, id);
      const slot = req.booking.slot;
      let o: Outcome<ChannelBooking>;
      if (req.booking.status === 'CANCELED') {
        o = await outcome(() => api.cancel(channel, id));
      } else if (slot?.start_sec !== undefined || slot?.resources?.party_size !== undefined) {
        o = await outcome(() => api.change(channel, id, {
          ...(slot.resources?.party_size !== undefined ? { partySize: slot.resources.party_size } : {}),
          ...(slot.start_sec !== undefined ? { start: new Date(int64(slot.start_sec) * 1000).toISOString() } : {}),
        }));
      } else if (req.booking.status !== undefined && v3Status(current.status) !== req.booking.status) {
        throw badRequest('booking.status may only be set to CANCELED');
      } else {
        o = { ok: true, value: current };
      }
      return answer(o.ok ? { ok: true, value: bookingOut(o.value, user, slot?.duration_sec) } : o);
    },

    async getBookingStatus(channel: ChannelIdentity, bookingId: string) {
      const b = await api.get(channel, bookingId);
      return { booking_id: b.id, booking_status: v3Status(b.status), prepayment_status: bookingOut(b, '').payment_information.prepayment_status };
    },

    async listBookings(channel: ChannelIdentity, userId: string) {
      const ids = await bookingIdsByKeyPrefix(db.kysely, channel.id, `channel:${channel.id}:${v3UserPrefix(userId)}`, LIST_BOOKINGS_LIMIT);
      const bookings = await Promise.all(ids.map((id) => api.get(channel, id)));
      return { bookings: bookings.map((b) => bookingOut(b, userId)) };
    },
  };
}

export type V3Service = ReturnType<typeof createV3Service>;
