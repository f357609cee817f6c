import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { localDateText } from '../lib/iso/timezones.ts';
import type { FeedService } from '../rms/availability-feed.service.ts';
import type { AvailabilityService } from '../rms/availability.service.ts';
import type { BookingsService } from '../rms/bookings.service.ts';
import { RmsError } from '../rms/rms-client.ts';
import { rmsOf } from '../rms/venues.service.ts';
import { HORIZON_DAYS, partySizesOf, type VenueRecords } from './google-feeds.fns.ts';
import {
  changedFields, dayEntries, dayHash, daysOfRecords, googleFieldsOf, notificationOf, readDayTarget, type GoogleBookingFields,
} from './google-rtu.fns.ts';
import { dayHashes, linkedVenue, saveDayHashes, type AttemptRow, type TargetKind, type TargetRow } from './google-rtu.repository.ts';
import { MapsBookingError, type MapsBookingClient } from './maps-booking-client.ts';
import { batchAvailability, type AvailabilityEntry } from './maps-booking-client.fns.ts';

// What each kind of RTU target sends when its job runs (google-rtu.service.ts runs them): a
// booking's notification, a venue's local day read live from the RMS, a venue's changed days from
// its completed feed. Each records its calls in the log; a MapsBookingError it throws is the job's
// to retry or record. They answer what Google now accepts of a booking (null for availability).

export interface RtuSenderDeps {
  db: Db;
  clock: Clock;
  bookings: Pick<BookingsService, 'get'>;
  availability: Pick<AvailabilityService, 'forVenue'>;
  feed: Pick<FeedService, 'snapshotVenue'>;
  attempt(channelId: string, a: Omit<AttemptRow, 'at'>): Promise<void>;
}

type Sender = (client: MapsBookingClient, t: TargetRow) => Promise<GoogleBookingFields | null>;

export function createRtuSenders(deps: RtuSenderDeps): Record<TargetKind, Sender> {
  const { db, clock, attempt } = deps;

  /**
   * Entries in calls of at most 1,000 records; `onSent` hears the days whose every entry Google has
   * taken (a day split over two calls counts once both went; a refused call's days never count).
   */
  async function replace(client: MapsBookingClient, t: TargetRow, entries: Array<AvailabilityEntry & { day: string }>, onSent: (days: string[]) => Promise<void>) {
    const left = new Map<string, number>();
    for (const e of entries) left.set(e.day, (left.get(e.day) ?? 0) + 1);
    for (const batch of batchAvailability(entries)) {
      const records = batch.reduce((n, e) => n + e.slots.length, 0);
      const days = [...new Set(batch.map((e) => e.day))];
      const what = `${batch.length} entries, ${records} records (${days[0]}${days.length > 1 ? ` .. ${days[days.length - 1]}` : ''})`;
      try {
        await client.replaceAvailability(batch);
      } catch (err) {
        // Another 4xx refuses this call only: recorded, and the other calls still go.
        if (!(err instanceof MapsBookingError) || err.kind !== 'rejected') throw err;
        await attempt(t.channelId, { kind: t.kind, target: t.target, status: 'failed', responseCode: err.status ?? null, answer: `${what}: ${err.message}` });
        for (const d of days) left.set(d, Number.POSITIVE_INFINITY);
        continue;
      }
      await attempt(t.channelId, { kind: t.kind, target: t.target, status: 'sent', responseCode: 200, answer: what });
      for (const e of batch) left.set(e.day, left.get(e.day)! - 1);
      await onSent(days.filter((d) => left.get(d) === 0));
    }
  }

  const withDay = (byDay: Map<string, AvailabilityEntry[]>, days: readonly string[]) =>
    days.flatMap((day) => (byDay.get(day) ?? []).map((e) => ({ ...e, day })));

  return {
    async booking(client, t) {
      let b;
      try {
        b = await deps.bookings.get(t.target);
      } catch (err) {
        if (err instanceof AppError) return t.accepted; // gone: nothing to tell
        throw err;
      }
      const now = googleFieldsOf({ status: b.status, start: b.date, partySize: b.partySize });
      const fields = changedFields(t.accepted, now);
      if (fields.length === 0) return t.accepted; // a re-read that changed nothing Google holds
      await client.notifyBooking(b.id, notificationOf(b.venueId, now, fields), fields);
      await attempt(t.channelId, { kind: 'booking', target: t.target, status: 'sent', responseCode: 200, answer: `updateMask=${fields.join(',')}` });
      return now;
    },

    async day(client, t) {
      const { venueId, day } = readDayTarget(t.target);
      const venue = await linkedVenue(db.kysely, t.channelId, venueId);
      if (!venue) return null;
      const records: VenueRecords['records'] = [];
      for (let size = 1; size <= partySizesOf(venue); size++) {
        const live = await deps.availability.forVenue(venueId, day, size).catch((err: unknown) => {
          if (!(err instanceof RmsError)) throw err;
          // A refusal (say, a party size the venue does not take) is an answer: no slots for that size.
          return err.kind === 'refused' ? { source: 'live' as const, duration: null, slots: [] } : null;
        });
        if (!live || live.source !== 'live') {
          // DESIGN 8.7b: the RMS did not answer; nothing is sent for this trigger, the next feed corrects it.
          await attempt(t.channelId, { kind: 'day', target: t.target, status: 'skipped', responseCode: null, answer: 'the RMS did not answer live; the next feed corrects this day' });
          return null;
        }
        records.push({ date: day, partySize: size, duration: live.duration, slots: live.slots.map((s) => ({ startSec: s.start.getTime() / 1000, totalSpots: s.totalSpots, openSpots: s.openSpots })) });
      }
      const byDay = dayEntries({ venue, records }, venue.timezone ?? 'UTC', [day]);
      await replace(client, t, withDay(byDay, [day]), () => saveDayHashes(db.kysely, t.channelId, venueId, [{ day, hash: dayHash(byDay.get(day)!) }], clock.now()));
      return null;
    },

    async feed(client, t) {
      const venue = await linkedVenue(db.kysely, t.channelId, t.target);
      const rms = venue && rmsOf(venue);
      if (!venue || !rms) return null;
      const tz = venue.timezone ?? 'UTC';
      const now = clock.now();
      const first = localDateText(now, tz);
      const last = localDateText(new Date(now.getTime() + HORIZON_DAYS * 86_400_000), tz);
      const snap = await deps.feed.snapshotVenue(rms.partnerId, rms.rmsVenueId, first, last);
      if (!snap) return null;
      const input: VenueRecords = { venue, records: snap.records };
      const days = daysOfRecords(input).filter((d) => d >= first && d <= last);
      const byDay = dayEntries(input, tz, days);
      const known = await dayHashes(db.kysely, t.channelId, venue.id);
      const hashes = new Map(days.map((d) => [d, dayHash(byDay.get(d)!)]));
      const changed = days.filter((d) => known.get(d) !== hashes.get(d));
      if (changed.length === 0) return null;
      await replace(client, t, withDay(byDay, changed), (sent) =>
        saveDayHashes(db.kysely, t.channelId, venue.id, sent.map((day) => ({ day, hash: hashes.get(day)! })), clock.now()));
      return null;
    },
  };
}
