// The availability feed the RMS pushes to Tableside (DESIGN 8.3b): one record per venue x
// venue-local date x party size, holding that day's 8.2 slots, split into shards numbered from 0.

import { availability, slotStarts } from './availability.fns.ts';
import type { Occupancy, Slot, VenueConfig } from './types.ts';
import { addDays, localDateOf } from './zoned.fns.ts';

export interface FeedRecord { venueId: string; date: string; partySize: number; duration: number; slotData: Slot[] }

export interface FeedPlan {
  /** First venue-local date; default each venue's today. */
  startDate?: string;
  days: number;
  /** Default: minCovers .. min(maxCovers, 10) of each venue. */
  partySizes?: number[];
}

export function defaultPartySizes(venue: VenueConfig): number[] {
  const sizes: number[] = [];
  for (let p = Math.max(1, venue.minCovers); p <= Math.min(venue.maxCovers, 10); p++) sizes.push(p);
  return sizes;
}

export function feedRecords(venues: readonly VenueConfig[], bookings: readonly (Occupancy & { venueId: string })[], plan: FeedPlan, now: number): FeedRecord[] {
  const records: FeedRecord[] = [];
  for (const venue of venues) {
    const own = bookings.filter((b) => b.venueId === venue.id);
    const first = plan.startDate ?? localDateOf(venue.timezone, now);
    for (let i = 0; i < plan.days; i++) {
      const date = addDays(first, i);
      const starts = slotStarts(venue, date);
      for (const partySize of plan.partySizes ?? defaultPartySizes(venue)) {
        const a = availability(venue, own, date, partySize, null, now, starts);
        records.push({ venueId: venue.id, date, partySize, duration: a.durationSec, slotData: a.slots });
      }
    }
  }
  return records;
}

/** Consecutive shards of at most `size` records; an empty feed is one empty shard (it still replaces the snapshot). */
export function shardRecords<T>(records: readonly T[], size: number): T[][] {
  if (records.length === 0) return [[]];
  const shards: T[][] = [];
  for (let i = 0; i < records.length; i += size) shards.push(records.slice(i, i + size));
  return shards;
}
