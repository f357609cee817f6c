import type { Logger } from 'pino';
import type { Executor } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { PosCreatedUnread, PosError, type CreateOrderInput } from '../pos/pos-client.ts';
import type { PosOrder } from '../pos/pos.schemas.ts';
import type { ConnectedVenue } from './connections.fns.ts';
import { linkedPosOrders } from './orders.repository.ts';
import { afterAbsentLook, findSeatingOrder, withoutSkus } from './reservation-orders.fns.ts';
import type { PosOutcome, SeatingRow } from './reservation-orders.repository.ts';

// One attempt of a seating at the POS (DESIGN 8.8a): what it asks the POS and what each answer
// means; it writes nothing but the lease its `keep` renews. A 2xx means the order exists, whatever
// its body: it is looked for, never created again. An attempt that may have reached the POS (a
// timeout after sending, a 5xx, an attempt that died mid-call) leaves `pos_outcome` 'unknown', and
// the next attempt looks for the order on the POS's open orders before it creates; it creates again
// only after two looks 30 s apart found nothing. One that surely did not reach it (refused, DNS,
// TLS, connect timeout), a 429 or a 408, is simply tried again.

/** What the POS answered one attempt. */
export type PosAnswer =
  | { kind: 'created'; order: PosOrder | { id: string }; unknownSkus: string[] }
  | { kind: 'refused'; reason: string }
  | { kind: 'pending'; error: string; posOutcome: PosOutcome | null; absentSince: Date | null; posHint: string | null; unknownSkus: string[]; retryAt: Date | null }
  /** The attempt's claim was taken over (its lease ran out): it stops and writes nothing. */
  | { kind: 'lost' };

/** Renews the attempt's lease when it may not cover the next POS call; false when the claim was lost. */
export type KeepClaim = () => Promise<boolean>;

export interface SeatingAttemptDeps {
  db: { kysely: Executor };
  clock: Clock;
  log: Logger;
}

/** 429 and 408: the POS did not take the request in; anything else under 500 is its refusal. */
const notTakenIn = (err: PosError) => err.status === 429 || err.status === 408;

export function createSeatingAttempt({ db, clock, log }: SeatingAttemptDeps) {
  /** The seating's order among the POS's open orders, or null (DESIGN 8.8a: by an id known, else the one order it could be). */
  async function lookFor(row: SeatingRow, cv: ConnectedVenue, posHint: string | null): Promise<PosOrder | null> {
    const open = (await cv.pos.listOrders(cv.connection.pos_venue_id, { status: 'open' })).filter((o) => o.status === 'open');
    const linked = await linkedPosOrders(db.kysely, row.venue_id, row.order_id, open.map((o) => o.id));
    const seen = open
      .filter((o) => !linked.otherBookings.has(o.id))
      .map((o) => ({ ...o, partySize: o.partySize ?? null, createdAt: new Date(o.createdAt) }));
    const found = findSeatingOrder({
      orderId: row.order_id, knownPosIds: [posHint, linked.mirroredAs], tables: row.pos_request.tables,
      partySize: row.party_size, seatedAt: row.seated_at,
    }, seen);
    return found ? open.find((o) => o.id === found.id)! : null;
  }

  /** The spec 4.6 create; a 422 naming unknown SKUs: created again without them (the guest is seated all the same). */
  async function create(row: SeatingRow, cv: ConnectedVenue, keep: KeepClaim): Promise<PosAnswer> {
    let body: CreateOrderInput = row.pos_request;
    const unknownSkus: string[] = [];
    const pending = (error: string, posOutcome: PosOutcome | null, posHint: string | null = row.pos_hint): PosAnswer =>
      // Only this create's outcome: an earlier one's was settled by the looks before it.
      ({ kind: 'pending', error, posOutcome, absentSince: null, posHint, unknownSkus, retryAt: null });
    for (let round = 0; round < 3; round++) {
      if (!(await keep())) return { kind: 'lost' };
      let res;
      try {
        res = await cv.pos.createOrder(cv.connection.pos_venue_id, body);
      } catch (err) {
        if (err instanceof PosCreatedUnread) return createdUnread(row, cv, keep, err, unknownSkus);
        if (!(err instanceof PosError)) throw err;
        if (err.kind === 'status' && err.status! < 500 && !notTakenIn(err)) return { kind: 'refused', reason: err.message };
        // A 5xx, or no answer after sending: the order may exist.
        return pending(err.message, err.neverSent || (err.kind === 'status' && notTakenIn(err)) ? null : 'unknown');
      }
      if (res.ok) return { kind: 'created', order: { id: res.id }, unknownSkus };
      const next = withoutSkus(body, res.unknownSkus);
      // A POS naming SKUs we did not send would loop: that is a refusal.
      if ((next.items?.length ?? 0) === (body.items?.length ?? 0)) return { kind: 'refused', reason: `the POS answered 422: ${res.error}` };
      // Only SKUs of the event are reported (a POS naming others adds nothing a receiver could act on).
      const sent = new Set((body.items ?? []).map((i) => i.sku));
      unknownSkus.push(...res.unknownSkus.filter((s) => sent.has(s) && !unknownSkus.includes(s)));
      body = next;
    }
    return { kind: 'refused', reason: 'the POS kept refusing the order for unknown SKUs' };
  }

  /** A 2xx whose body was not the contract's: the order exists; its id is learnt from the POS's open orders. */
  async function createdUnread(row: SeatingRow, cv: ConnectedVenue, keep: KeepClaim, err: PosCreatedUnread, unknownSkus: string[]): Promise<PosAnswer> {
    log.warn({ bookingId: row.booking_id, venueId: row.venue_id, err: err.message }, 'seating: the POS created the order with an unreadable answer; looking for it');
    const posHint = err.posOrderId ?? row.pos_hint;
    const stillLooking: PosAnswer = { kind: 'pending', error: `created, not found yet: ${err.message}`, posOutcome: 'created', absentSince: null, posHint, unknownSkus, retryAt: null };
    if (!(await keep())) return { kind: 'lost' };
    try {
      const found = await lookFor(row, cv, posHint);
      return found ? { kind: 'created', order: found, unknownSkus } : stillLooking;
    } catch (e) {
      if (!(e instanceof PosError)) throw e;
      return stillLooking;
    }
  }

  /** Before creating again after an attempt that may have reached the POS: look for its order. */
  async function lookFirst(row: SeatingRow, cv: ConnectedVenue): Promise<PosAnswer | 'create'> {
    const found = await lookFor(row, cv, row.pos_hint);
    if (found) return { kind: 'created', order: found, unknownSkus: row.unknown_skus };
    const base = { kind: 'pending' as const, posOutcome: row.pos_outcome, posHint: row.pos_hint, unknownSkus: row.unknown_skus };
    // The POS said it created it: keep looking, never create again.
    if (row.pos_outcome === 'created') return { ...base, error: 'the POS created the order; not found among its open orders yet', absentSince: row.absent_since, retryAt: null };
    const look = afterAbsentLook(clock.now(), row.absent_since);
    if (look.createAllowed) return 'create';
    return { ...base, error: 'an earlier create may have reached the POS; its order is not among the open orders (looking again)', absentSince: look.absentSince, retryAt: look.nextAt };
  }

  return {
    /** One try at the POS: look first when an earlier attempt may have created the order, else create. */
    async ask(row: SeatingRow, cv: ConnectedVenue, keep: KeepClaim): Promise<PosAnswer> {
      try {
        if (row.pos_outcome !== null) {
          if (!(await keep())) return { kind: 'lost' };
          const looked = await lookFirst(row, cv);
          if (looked !== 'create') return looked;
        }
        return await create(row, cv, keep);
      } catch (err) {
        // A look that failed: nothing more is known than before.
        if (!(err instanceof PosError)) throw err;
        if (err.kind === 'status' && err.status! < 500 && !notTakenIn(err)) return { kind: 'refused', reason: err.message };
        return { kind: 'pending', error: err.message, posOutcome: row.pos_outcome, absentSince: row.absent_since, posHint: row.pos_hint, unknownSkus: row.unknown_skus, retryAt: null };
      }
    },
  };
}

export type SeatingAttempt = ReturnType<typeof createSeatingAttempt>;
