// What the RMS sends Tableside (DESIGN 8.3) once a target is configured: update notices when its
// bookings change, the availability feed on request, and seated events. Deliveries never throw
// into the simulator: a failure is recorded in the outbound log and retried a few times (the same
// webhook-id on every attempt, so Tableside can absorb duplicates), then given up.

import { randomUUID } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { fromMinor } from '../../pos-simulator/src/money.ts';
import { isoInZone } from '../../pos-simulator/src/time.ts';
import type { BookingEvents } from './bookings.service.ts';
import type { FeedPushInput, SeatInput } from './control.schemas.ts';
import { feedRecords, shardRecords } from './feed.fns.ts';
import type { RmsStore } from './store.ts';
import type { BookingState, TablesideTarget, VenueConfig } from './types.ts';

export type OutboundKind = 'notice' | 'feed' | 'seated';

export interface OutboundAttempt { at: string; status?: number; error?: string; response?: string }

export interface OutboundEntry {
  /** The webhook-id header, the same on every attempt. */
  id: string;
  kind: OutboundKind;
  url: string;
  body: unknown;
  attempts: OutboundAttempt[];
  state: 'pending' | 'delivered' | 'failed';
}

export interface FeedPushResult {
  nonce: string;
  totalShards: number;
  records: number;
  /** The first attempt of each shard sent, in send order; failed ones are retried like any delivery. */
  shards: Array<{ shardNumber: number; records: number; webhookId: string; status?: number; error?: string }>;
}

export interface OutboundOptions {
  /** Waits before the 2nd, 3rd, … attempt (real time). Default [500, 2000, 5000]. */
  retryDelaysMs?: number[];
  /** Per attempt. Default 10 s. */
  timeoutMs?: number;
}

/** Most recent entries kept (a long-running sandbox stays bounded). */
const MAX_ENTRIES = 2000;

export function createOutbound(store: RmsStore, opts: OutboundOptions = {}) {
  const retryDelays = opts.retryDelaysMs ?? [500, 2000, 5000];
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const entries: OutboundEntry[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let agent: { key: string; agent: Agent } | null = null;
  let closed = false;

  function dispatcher(target: TablesideTarget): Agent {
    const key = target.ca ?? '';
    if (agent?.key !== key) {
      void agent?.agent.close().catch(() => undefined);
      // Setting `ca` replaces Node's list, so the bundled roots go along with the given certificate.
      agent = { key, agent: new Agent({ connect: { timeout: timeoutMs, ...(target.ca ? { ca: [...rootCertificates, target.ca] } : {}) }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }) };
    }
    return agent.agent;
  }

  async function attempt(entry: OutboundEntry, target: TablesideTarget): Promise<OutboundAttempt> {
    const record: OutboundAttempt = { at: new Date(store.now()).toISOString() };
    entry.attempts.push(record);
    try {
      const res = await request(entry.url, {
        method: 'POST',
        dispatcher: dispatcher(target),
        headers: {
          authorization: `Bearer ${target.apiKey}`,
          'content-type': 'application/json',
          'webhook-id': entry.id,
          // Real time, not the simulator clock: it is transport metadata a receiver may check for freshness.
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'user-agent': 'tableside-rms-simulator',
        },
        body: JSON.stringify(entry.body),
      });
      const text = await res.body.text();
      record.status = res.statusCode;
      record.response = text.length > 500 ? `${text.slice(0, 500)}…` : text;
    } catch (err) {
      const e = err as Error & { code?: string };
      record.error = [e.code, e.message].filter(Boolean).join(': ');
    }
    const ok = record.status !== undefined && record.status >= 200 && record.status < 300;
    if (ok) entry.state = 'delivered';
    else scheduleRetry(entry, target);
    return record;
  }

  function scheduleRetry(entry: OutboundEntry, target: TablesideTarget): void {
    const delay = retryDelays[entry.attempts.length - 1];
    if (delay === undefined || closed) {
      entry.state = 'failed';
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      void attempt(entry, target);
    }, delay);
    timers.add(timer);
  }

  function enqueue(kind: OutboundKind, path: string, body: unknown): { entry: OutboundEntry; first: Promise<OutboundAttempt> } | null {
    const target = store.target;
    if (!target || closed) return null;
    const entry: OutboundEntry = {
      id: `msg_${randomUUID()}`, kind, url: `${target.tablesideUrl.replace(/\/+$/, '')}${path}`, body, attempts: [], state: 'pending',
    };
    entries.push(entry);
    if (entries.length > MAX_ENTRIES) entries.splice(0, entries.length - MAX_ENTRIES);
    return { entry, first: attempt(entry, target) };
  }

  /** DESIGN 8.3c: POS table ids given by staff, else the posTableId of every table of the booking. */
  function posTables(booking: BookingState, venue: VenueConfig, seat: SeatInput): string[] | null {
    if (seat.posTableIds) return seat.posTableIds;
    const mapped = booking.tables.map((id) => venue.tables.find((t) => t.id === id)?.posTableId ?? null);
    return mapped.length > 0 && mapped.every((t) => t !== null) ? (mapped as string[]) : null;
  }

  const events: BookingEvents = {
    changed(booking, action) {
      enqueue('notice', '/v1/rms/notifications', { entity: 'booking', entityId: booking.id, action });
    },
    seated(booking, venue, seat) {
      const tables = posTables(booking, venue, seat);
      if (!tables) return;
      const paid = booking.deposit?.paid ? booking.deposit.amount : 0;
      enqueue('seated', '/v1/rms/pos/reservations', {
        bookingId: booking.id,
        venueId: venue.id,
        status: 'seated',
        partySize: booking.partySize,
        tables,
        date: isoInZone(booking.start, venue.timezone),
        ...(paid > 0 ? { prepayment: fromMinor(paid, venue.currency) } : {}),
        guestName: `${booking.contact.firstname} ${booking.contact.lastname}`,
        ...(booking.contact.email ? { guestEmail: booking.contact.email } : {}),
        ...(booking.contact.telephone ? { guestTelephone: booking.contact.telephone } : {}),
        ...(seat.items ? { items: seat.items } : {}),
      });
    },
  };

  /** Sends one notice now, e.g. to replay or reorder notices in a test. */
  function notify(booking: BookingState, action: 'update' | 'cancel'): OutboundEntry | null {
    return enqueue('notice', '/v1/rms/notifications', { entity: 'booking', entityId: booking.id, action })?.entry ?? null;
  }

  /** Builds the feed for the venues asked and sends its shards one after another (DESIGN 8.3b). */
  async function pushFeed(input: FeedPushInput): Promise<FeedPushResult> {
    if (!store.target) throw new Error('no Tableside target is configured (PUT /_control/tableside)');
    const venues = input.venueIds ? store.venues().filter((v) => input.venueIds?.includes(v.id)) : store.venues();
    const now = store.now();
    const records = feedRecords(venues, store.bookings(), { startDate: input.startDate, days: input.days ?? 7, partySizes: input.partySizes }, now);
    const shards = shardRecords(records, input.shardSize ?? 500);
    const nonce = randomUUID();
    let numbers = shards.map((_, i) => i);
    if (input.order === 'desc') numbers.reverse();
    if (input.onlyShards) numbers = numbers.filter((n) => input.onlyShards?.includes(n));
    const result: FeedPushResult = { nonce, totalShards: shards.length, records: records.length, shards: [] };
    for (const n of numbers) {
      const sent = enqueue('feed', '/v1/rms/availability-feed', {
        metadata: { total_shards: shards.length, shard_number: n, nonce, date: new Date(now).toISOString() },
        data: shards[n],
      });
      if (!sent) break;
      const first = await sent.first;
      result.shards.push({ shardNumber: n, records: shards[n].length, webhookId: sent.entry.id, status: first.status, error: first.error });
    }
    return result;
  }

  return {
    events,
    notify,
    pushFeed,
    log: (): OutboundEntry[] => entries.map((e) => ({ ...e, attempts: [...e.attempts] })),
    clear: () => { entries.length = 0; },
    async close(): Promise<void> {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const e of entries) if (e.state === 'pending') e.state = 'failed';
      // destroy, not close: a Tableside that never answers must not hold the simulator open.
      await agent?.agent.destroy().catch(() => undefined);
    },
  };
}

export type Outbound = ReturnType<typeof createOutbound>;
