import { localDateTimeText } from '../lib/iso/timezones.ts';
import { toWire, type Minor } from '../lib/money.ts';
import type { CreateOrderInput, CreateOrderItem } from '../pos/pos-client.ts';

// The pure rules of seating (DESIGN 8.3c): the spec 4.6 create-order body a seated reservation
// becomes, which requested tables the POS does not have, and when a POS that cannot be reached is
// tried again. Tested without a database (test/pos-mirror/reservation-orders.fns.test.ts).

/** Attempts to reach a POS for a seated guest are at most this far apart (the guest is at the table). */
export const RETRY_EVERY_MS = 15_000;
/** How long a seating keeps trying to reach its POS before it is failed. */
export const GIVE_UP_AFTER_MS = 60 * 60_000;

export interface SeatingRequest {
  /** Tableside's order id, sent as spec 4.6 `id` so a POS that echoes it lets a retry find the order. */
  orderId: string;
  tables: string[];
  partySize: number;
  prepaymentMinor: Minor;
  currency: string;
  /** When the guest sat down: the POS `date`, in the venue's wall-clock time. */
  seatedAt: Date;
  timeZone: string;
  guestName?: string;
  guestEmail?: string;
  guestTelephone?: string;
  items?: CreateOrderItem[];
}

/**
 * The spec 4.6 body: `prepayment` always (0 when none, the decimal as the venue's currency writes
 * it), `date` as 'Y-m-d H:i:s' venue-local, `items` only when there are some, `tables` as given.
 */
export function createOrderBody(r: SeatingRequest): CreateOrderInput {
  const body: CreateOrderInput = {
    id: r.orderId,
    tables: [...r.tables],
    partySize: r.partySize,
    prepayment: toWire(r.prepaymentMinor, r.currency),
    date: localDateTimeText(r.seatedAt, r.timeZone),
  };
  if (r.guestName !== undefined) body.guestName = r.guestName;
  if (r.guestEmail !== undefined) body.guestEmail = r.guestEmail;
  if (r.guestTelephone !== undefined) body.guestTelephone = r.guestTelephone;
  if (r.items && r.items.length > 0) body.items = r.items.map((i) => ({ ...i }));
  return body;
}

/** The same body without the items of the given SKUs (a POS answered 422 unknownSkus). */
export function withoutSkus(body: CreateOrderInput, skus: readonly string[]): CreateOrderInput {
  const items = (body.items ?? []).filter((i) => !skus.includes(i.sku));
  const { items: _dropped, ...rest } = body;
  return items.length > 0 ? { ...rest, items } : rest;
}

/** The requested tables the venue's POS does not have, in the order given, each once. */
export function unknownTables(requested: readonly string[], posTableIds: readonly string[]): string[] {
  const known = new Set(posTableIds);
  return [...new Set(requested.filter((t) => !known.has(t)))];
}

/** Attempts start at most 30 s apart: the pause after one is shorter when an attempt may last longer. */
export function retryDelayMs(posTimeoutMs: number): number {
  return Math.min(RETRY_EVERY_MS, Math.max(1_000, 30_000 - posTimeoutMs));
}

/** When to try a POS again after a failed attempt, or null once the seating's hour is over. */
export function nextAttemptAt(now: Date, deadline: Date, delayMs = RETRY_EVERY_MS): Date | null {
  if (now.getTime() >= deadline.getTime()) return null;
  return new Date(Math.min(now.getTime() + delayMs, deadline.getTime()));
}

// Finding the order an earlier create made (DESIGN 8.8a): the POS's answer was lost or unreadable,
// and spec 2.7 gives an order no field that names the service's id.

/** A create that may have reached the POS is sent again only when two looks this far apart find no order. */
export const LOOK_AGAIN_AFTER_MS = 30_000;
/** How far the POS's clock may be behind ours when "created since the first attempt" is judged. */
export const POS_CLOCK_SKEW_MS = 5 * 60_000;

/** What a seating knows of the order it asked for. */
export interface SeatingLookup {
  /** Tableside's order id, sent as spec 4.6 `id`: a POS that keeps it as its own id answers it. */
  orderId: string;
  /** Ids the POS or the mirror already gave the order: an unreadable 2xx's `{"id"}`, an order the sync linked. */
  knownPosIds: Array<string | null>;
  tables: string[];
  partySize: number;
  /** When the seating was claimed (the first attempt of this claim). */
  seatedAt: Date;
}

/** A POS order as the look needs it. */
export interface SeenPosOrder {
  id: string;
  tables: string[];
  partySize: number | null;
  createdAt: Date;
}

const sameTables = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');

/** The order is one this seating's create could have made: the same tables and party size, created since it was claimed. */
export function couldBeSeatingOrder(s: SeatingLookup, o: SeenPosOrder): boolean {
  return sameTables(s.tables, o.tables) && o.partySize === s.partySize && o.createdAt.getTime() >= s.seatedAt.getTime() - POS_CLOCK_SKEW_MS;
}

/**
 * The seating's order among the POS's open orders: the one with an id it knows (its own id echoed,
 * the POS's), else the one order that could be it; two or more such orders are no answer.
 */
export function findSeatingOrder<O extends SeenPosOrder>(s: SeatingLookup, open: readonly O[]): O | null {
  for (const id of [s.orderId, ...s.knownPosIds]) {
    const known = id ? open.find((o) => o.id === id) : undefined;
    if (known) return known;
  }
  const candidates = open.filter((o) => couldBeSeatingOrder(s, o));
  return candidates.length === 1 ? candidates[0] : null;
}

/** When the next look or create may happen after a look that found nothing; and since when nothing was found. */
export function afterAbsentLook(now: Date, absentSince: Date | null): { absentSince: Date; createAllowed: boolean; nextAt: Date } {
  const since = absentSince ?? now;
  const nextAt = new Date(since.getTime() + LOOK_AGAIN_AFTER_MS);
  return { absentSince: since, createAllowed: absentSince !== null && now.getTime() >= nextAt.getTime(), nextAt };
}
