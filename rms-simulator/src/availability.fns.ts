// The availability engine, as pure functions of a venue's configuration, its bookings and "now".
// One decision function (`decide`) says whether a party can be booked at an instant; availability
// is computed by asking it, so a slot offered with openSpots > 0 is always bookable (BKG-11), a
// party is only ever put at a table or combination that holds it, never on a table still held by
// another booking (BKG-12), and pacing limits are checked in the same place (BKG-14).

import { toMinor } from '../../pos-simulator/src/money.ts';
import type { BookingStatus, Occupancy, RmsErrorCode, Slot, VenueConfig } from './types.ts';
import { localDateOf, parseHhMm, wallToInstant, weekdayOf } from './zoned.fns.ts';

/** Bookings in these statuses hold their tables and count against pacing. */
export const HOLDING: ReadonlySet<BookingStatus> = new Set(['pending_confirmation', 'requires_payment', 'confirmed', 'seated']);

/** openSpots / totalSpots are counted up to this many parties per slot. */
export const MAX_SPOTS = 50;

export function turnMinutes(venue: VenueConfig, partySize: number): number {
  const entry = [...venue.turnTimes].sort((a, b) => a.maxPartySize - b.maxPartySize).find((t) => partySize <= t.maxPartySize);
  return entry?.minutes ?? venue.defaultTurnMinutes;
}

/**
 * Seating starts of a venue-local date: from each opening period's open time, every
 * slotIntervalMinutes of wall-clock time, while before its close (BKG-13). Wall times that do not
 * exist that day (spring-forward gap) are not slots; wall times the clock shows twice (fall-back)
 * are one slot, at their first occurrence. Sorted, without duplicates.
 */
export function slotStarts(venue: VenueConfig, date: string): number[] {
  const periods = venue.hours[weekdayOf(date)] ?? [];
  const starts = new Set<number>();
  for (const period of periods) {
    const open = parseHhMm(period.open);
    const close = parseHhMm(period.close);
    if (open === null || close === null) continue;
    for (let m = open; m < close; m += venue.slotIntervalMinutes) {
      const t = wallToInstant(venue.timezone, date, m);
      if (t !== null) starts.add(t);
    }
  }
  return [...starts].sort((a, b) => a - b);
}

export interface SeatingOption { tables: string[]; minCovers: number; maxCovers: number }

/**
 * Single tables and joinable combinations, smallest first (then single before joined, then by
 * ids), so a party takes the tightest fit and big tables stay free for big parties. With an area,
 * only tables of that area (and combinations wholly inside it).
 */
export function seatingOptions(venue: VenueConfig, areaId: string | null): SeatingOption[] {
  const inArea = new Set(venue.tables.filter((t) => areaId === null || t.areaId === areaId).map((t) => t.id));
  const options: SeatingOption[] = [
    ...venue.tables.filter((t) => inArea.has(t.id)).map((t) => ({ tables: [t.id], minCovers: t.minCovers, maxCovers: t.maxCovers })),
    ...venue.combinations.filter((c) => c.tables.every((id) => inArea.has(id))).map((c) => ({ tables: [...c.tables], minCovers: c.minCovers, maxCovers: c.maxCovers })),
  ];
  return options.sort((a, b) => a.maxCovers - b.maxCovers || a.tables.length - b.tables.length || a.tables.join(',').localeCompare(b.tables.join(',')));
}

const overlaps = (aStart: number, aEnd: number, bStart: number, bEnd: number) => aStart < bEnd && bStart < aEnd;

/** Tables for the party at [start, end), or null: the first option that holds it with every table free. */
export function findTables(
  venue: VenueConfig, bookings: readonly Occupancy[], partySize: number, start: number, end: number, areaId: string | null,
  options: readonly SeatingOption[] = seatingOptions(venue, areaId),
): string[] | null {
  const busy = new Set<string>();
  for (const b of bookings) {
    if (HOLDING.has(b.status) && overlaps(start, end, b.start, b.end)) for (const t of b.tables) busy.add(t);
  }
  const option = options.find((o) =>
    o.minCovers <= partySize && partySize <= o.maxCovers && o.tables.every((t) => !busy.has(t)));
  return option ? option.tables : null;
}

/** Pacing at one slot start: covers and bookings already starting then, plus this party, within the limits. */
export function pacingAllows(venue: VenueConfig, bookings: readonly Occupancy[], partySize: number, start: number): boolean {
  const same = bookings.filter((b) => HOLDING.has(b.status) && b.start === start);
  const { maxCoversPerSlot, maxBookingsPerSlot } = venue.pacing;
  if (maxBookingsPerSlot !== null && same.length + 1 > maxBookingsPerSlot) return false;
  const covers = same.reduce((sum, b) => sum + b.partySize, 0);
  return maxCoversPerSlot === null || covers + partySize <= maxCoversPerSlot;
}

export interface BookingRequest { partySize: number; start: number; areaId: string | null }
export type Decision = { ok: true; tables: string[]; end: number } | { ok: false; code: RmsErrorCode; reason: string };

export function partySizeInRange(venue: VenueConfig, partySize: number): boolean {
  return partySize >= Math.max(1, venue.minCovers) && partySize <= venue.maxCovers;
}

/**
 * Whether the venue accepts this party at this instant, given its bookings and the time now; the
 * one rule used for creating, changing and offering. The booking being changed is left out of
 * `bookings` by the caller, so it never blocks itself.
 */
export function decide(venue: VenueConfig, bookings: readonly Occupancy[], request: BookingRequest, now: number): Decision {
  if (partySizeInRange(venue, request.partySize) && !slotStarts(venue, localDateOf(venue.timezone, request.start)).includes(request.start)) {
    return { ok: false, code: 'slot_unavailable', reason: 'the venue offers no seating at that time' };
  }
  return decideOnGrid(venue, bookings, request, now);
}

/** `decide` for a start already known to be one of the venue's seating starts. */
function decideOnGrid(
  venue: VenueConfig, bookings: readonly Occupancy[], request: BookingRequest, now: number, options?: readonly SeatingOption[],
): Decision {
  const { partySize, start, areaId } = request;
  if (!partySizeInRange(venue, partySize)) {
    return { ok: false, code: 'party_size_out_of_range', reason: `party size ${partySize} is outside ${venue.minCovers}..${venue.maxCovers}` };
  }
  if (start - now < venue.company.minAdvanceBooking * 1000) {
    return { ok: false, code: 'outside_booking_window', reason: `bookings close ${venue.company.minAdvanceBooking} s before the slot` };
  }
  if (!pacingAllows(venue, bookings, partySize, start)) {
    return { ok: false, code: 'slot_unavailable', reason: 'the slot is fully paced' };
  }
  const end = start + turnMinutes(venue, partySize) * 60_000;
  const tables = findTables(venue, bookings, partySize, start, end, areaId, options);
  if (!tables) return { ok: false, code: 'slot_unavailable', reason: 'no free table or combination holds the party' };
  return { ok: true, tables, end };
}

/**
 * How many more parties of this size a seating start accepts, placing them one after another
 * (<= MAX_SPOTS). The first placement is exactly `decide`, so the count is > 0 iff a booking would
 * be accepted.
 */
export function countSpots(venue: VenueConfig, bookings: readonly Occupancy[], request: BookingRequest, now: number): number {
  const placed: Occupancy[] = [...bookings];
  const options = seatingOptions(venue, request.areaId);
  for (let n = 0; n < MAX_SPOTS; n++) {
    const d = decideOnGrid(venue, placed, request, now, options);
    if (!d.ok) return n;
    placed.push({ id: `hypothetical-${n}`, status: 'confirmed', partySize: request.partySize, start: request.start, end: d.end, tables: d.tables });
  }
  return MAX_SPOTS;
}

/**
 * The most parties of this size an empty venue seats at one start: the largest set of disjoint
 * tables/combinations that each hold the party, within the pacing limits and MAX_SPOTS. Any
 * one-by-one placement after other bookings seats at most this many, so openSpots <= totalSpots.
 * Searched exactly: every fitting single table counts unless a chosen combination uses it, so only
 * the choice of combinations branches (a venue joins few tables).
 */
export function maxSpots(venue: VenueConfig, partySize: number, areaId: string | null): number {
  const fitting = seatingOptions(venue, areaId).filter((o) => o.minCovers <= partySize && partySize <= o.maxCovers);
  const singles = new Set(fitting.filter((o) => o.tables.length === 1).map((o) => o.tables[0]));
  const combos = fitting.filter((o) => o.tables.length > 1);
  const { maxCoversPerSlot, maxBookingsPerSlot } = venue.pacing;
  const cap = Math.min(MAX_SPOTS, maxBookingsPerSlot ?? MAX_SPOTS, maxCoversPerSlot === null ? MAX_SPOTS : Math.floor(maxCoversPerSlot / partySize));
  let best = 0;
  const search = (i: number, used: Set<string>, chosen: number) => {
    const freeSingles = [...singles].filter((t) => !used.has(t)).length;
    best = Math.max(best, chosen + freeSingles);
    if (best >= cap || i === combos.length) return;
    const open = combos.slice(i).filter((c) => c.tables.every((t) => !used.has(t))).length;
    if (chosen + freeSingles + open <= best) return;
    const combo = combos[i];
    if (combo.tables.every((t) => !used.has(t))) search(i + 1, new Set([...used, ...combo.tables]), chosen + 1);
    search(i + 1, used, chosen);
  };
  search(0, new Set(), 0);
  return Math.min(best, cap);
}

export interface PaymentTerms { deposit: boolean; depositAmount: number; requiresCc: boolean }

/** The venue's paymentDefinition as slot fields; the deposit in minor units of its currency (BKG-15). */
export function paymentTerms(venue: VenueConfig): PaymentTerms {
  const { deposit, requireCreditCard } = venue.paymentDefinition;
  const amount = deposit ? toMinor(deposit.amount, venue.currency) ?? 0 : 0;
  return { deposit: amount > 0, depositAmount: amount, requiresCc: requireCreditCard };
}

export interface AvailabilityAnswer { durationSec: number; slots: Slot[] }

/**
 * GET /availability for a venue-local date: every seating start of the day with totalSpots (parties
 * of this size an empty venue would take) and openSpots (how many it takes now). A party size the
 * venue never seats gets no slots. `starts` may be passed when the caller already has the day's
 * seating starts (the feed asks for many party sizes of one day).
 */
export function availability(
  venue: VenueConfig, bookings: readonly Occupancy[], date: string, partySize: number, areaId: string | null, now: number,
  starts: readonly number[] = slotStarts(venue, date),
): AvailabilityAnswer {
  const durationSec = turnMinutes(venue, partySize) * 60;
  if (!partySizeInRange(venue, partySize) || starts.length === 0) return { durationSec, slots: [] };
  const terms = paymentTerms(venue);
  // Capacity of the empty venue ignores "now" (a slot too close to book still has its seats) and
  // is the same at every start, so it is counted once. totalSpots is the most parties the tables
  // can hold at once; placing them one by one (countSpots, what bookings really get) may fit fewer
  // in the empty venue than after another party took a table of a combination (BKG-11), so the
  // empty venue's openSpots is that placement count, not totalSpots.
  const totalSpots = maxSpots(venue, partySize, areaId);
  const emptySpots = countSpots(venue, [], { partySize, start: starts[0], areaId }, Number.NEGATIVE_INFINITY);
  // Only bookings that can touch this day's seatings matter (turn times are at most 12 h); with
  // none, every slot far enough ahead is as open as the empty venue.
  const first = starts[0];
  const last = starts[starts.length - 1];
  const relevant = bookings.filter((b) => HOLDING.has(b.status) && b.end > first && b.start < last + 12 * 3600_000);
  const advanceMs = venue.company.minAdvanceBooking * 1000;
  const slots = starts.map((start) => {
    const request = { partySize, start, areaId };
    const openSpots = relevant.length === 0
      ? (start - now >= advanceMs ? emptySpots : 0)
      : countSpots(venue, relevant, request, now);
    return { startSec: Math.floor(start / 1000), totalSpots, openSpots, ...terms };
  });
  return { durationSec, slots };
}
