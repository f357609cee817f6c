import { readSlots, ShapeError, type Slot } from './rms-client.fns.ts';

// DESIGN 8.3b: checking an availability-feed shard's records. Pure; every bad record is named by
// its index and field (`data[12].partySize`), so the RMS can fix and resend the shard.

export interface FeedRecord {
  venueId: string;
  date: string;
  partySize: number;
  areaId: string | null;
  duration: number | null;
  /** Slots as sent, normalised to the 8.2 spelling (the snapshot answers them as a live RMS would). */
  slots: Slot[];
}

/** Problems reported at most, so a shard of 50,000 bad records still gets a readable 400. */
export const MAX_PROBLEMS = 100;

const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The last date found valid: a feed's records come a day at a time, and the check (a Date, its ISO text) showed in the ingest's profile. */
let lastValidDate = '';

function validDate(s: string): boolean {
  if (s === lastValidDate) return true;
  if (!LOCAL_DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s) return false;
  lastValidDate = s;
  return true;
}

/** One record, or the problem with it as [field, sentence]. */
export function readRecord(raw: unknown, index: number): FeedRecord | [string, string] {
  const at = `data[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [at, 'must be an object'];
  const o = raw as Record<string, unknown>;
  const venueId = o.venueId ?? o.venue_id;
  if (!(typeof venueId === 'string' && venueId.length > 0 && venueId.length <= 200) && !(typeof venueId === 'number' && Number.isSafeInteger(venueId))) {
    return [`${at}.venueId`, 'must be a non-empty string'];
  }
  if (typeof o.date !== 'string' || !validDate(o.date)) return [`${at}.date`, 'must be a date YYYY-MM-DD'];
  if (typeof o.partySize !== 'number' || !Number.isSafeInteger(o.partySize) || o.partySize < 1 || o.partySize > 9999) {
    return [`${at}.partySize`, 'must be an integer from 1 to 9999'];
  }
  if (o.areaId !== undefined && o.areaId !== null && (typeof o.areaId !== 'string' || o.areaId.length === 0 || o.areaId.length > 200)) {
    return [`${at}.areaId`, 'must be a non-empty string or null'];
  }
  if (o.duration !== undefined && o.duration !== null && (typeof o.duration !== 'number' || !Number.isSafeInteger(o.duration) || o.duration < 0 || o.duration > 2_147_483_647)) {
    return [`${at}.duration`, 'must be a non-negative integer (seconds)'];
  }
  let slots: Slot[];
  try {
    slots = readSlots(o.slotData ?? o.slot_data, `${at}.slotData`);
  } catch (err) {
    if (err instanceof ShapeError) return [err.field, err.message.slice(err.field.length + 1)];
    throw err;
  }
  return {
    venueId: String(venueId), date: o.date, partySize: o.partySize, areaId: (o.areaId as string | null | undefined) ?? null,
    duration: (o.duration as number | null | undefined) ?? null, slots,
  };
}

/** The slot as the 8.2 contract spells it (what the snapshot stores and answers). */
export function slotWire(s: Slot) {
  return { startSec: Math.floor(s.start.getTime() / 1000), totalSpots: s.totalSpots, openSpots: s.openSpots, deposit: s.deposit, depositAmount: s.depositAmount, requiresCc: s.requiresCc };
}

/** When a feed was generated and when its first shard arrived (Tableside's clock). */
export interface FeedAge {
  feedDate: Date | null;
  firstReceivedAt: Date | null;
}

/**
 * Whether a feed completing now is older than the current snapshot's, so it must not replace it
 * (a late feed never steps back). Two dated feeds compare their `metadata.date`; when either has
 * none, the time its first shard arrived stands for it (both on Tableside's clock). Unknown (a
 * snapshot from before migration 020 without a date): not older, as before.
 */
export function isOlderFeed(completing: FeedAge, current: FeedAge): boolean {
  if (completing.feedDate && current.feedDate) return completing.feedDate < current.feedDate;
  if (completing.firstReceivedAt && current.firstReceivedAt) return completing.firstReceivedAt < current.firstReceivedAt;
  return false;
}
