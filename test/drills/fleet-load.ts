import type { HttpResponse } from '../helpers/http.ts';
import type { Fleet } from './fleet-world.ts';

// The fleet drill's load: an open-loop generator (an operation started on a timer, whatever the
// ones before are doing) cycling through the request kinds, each request timed and kept, and the
// retries the contract allows: a 503 after its Retry-After, a transport failure or the load
// balancer's 502/504 (a replica died with the request) with the same key (externalReference,
// Idempotency-Key, idempotency_token, webhook-id, the feed's nonce and shard, the booking id of a
// seated event), never a new one.

export type Phase = 'calm' | 'kills';

export interface Sample {
  kind: string;
  phase: Phase;
  at: number;
  ms: number;
  /** 0: no HTTP answer (the connection failed or was cut). */
  status: number;
  retryAfter?: string;
  /** Answered by the service (x-request-id), not by HAProxy. */
  service: boolean;
  text: string;
}

export class Recorder {
  samples: Sample[] = [];
  retries = new Map<string, number>();
  phase: Phase = 'calm';

  async send(kind: string, fn: () => Promise<HttpResponse>): Promise<HttpResponse | null> {
    const at = Date.now();
    try {
      const res = await fn();
      this.samples.push({ kind, phase: this.phase, at, ms: Date.now() - at, status: res.status, retryAfter: res.headers['retry-after'], service: res.headers['x-request-id'] !== undefined, text: res.text.slice(0, 300) });
      return res;
    } catch (err) {
      this.samples.push({ kind, phase: this.phase, at, ms: Date.now() - at, status: 0, service: false, text: String(err).slice(0, 300) });
      return null;
    }
  }

  /** Sends until an answer the contract does not say to retry; counts the retries. */
  async withRetries(kind: string, fn: () => Promise<HttpResponse>, { posFailure = false } = {}): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(kind, fn);
      const byLb = res !== null && res.headers['x-request-id'] === undefined;
      // A payment the POS failed to take is answered 502 and not recorded; the contract lets the
      // partner send it again with the same reference (the same paymentId goes to the POS).
      const retry = res === null || res.status === 503 || ((res.status === 502 || res.status === 504) && (byLb || posFailure));
      if (!retry) return res;
      if (attempt >= 60) throw new Error(`${kind}: still unanswered after ${attempt} retries`);
      this.retries.set(kind, (this.retries.get(kind) ?? 0) + 1);
      const after = Number(res?.headers['retry-after'] ?? 0);
      await new Promise((r) => setTimeout(r, Math.min(Math.max(after * 1000, 250), 5000)));
    }
  }
}

const pick = <T>(rnd: () => number, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

export interface LoadState {
  payments: Array<{ venue: 'live' | 'deferred'; ref: string; orderId: string; status: number }>;
  bookings: Array<{ id: string; canceled: boolean }>;
  seated: Array<{ bookingId: string; table: string; answers: HttpResponse[] }>;
  notices: number;
  feeds: number;
  rmsBookingIds: string[];
}

export function newLoadState(): LoadState {
  return { payments: [], bookings: [], seated: [], notices: 0, feeds: 0, rmsBookingIds: [] };
}

/** The kinds and their share of the cycle (a kind listed twice runs twice as often). */
export const CYCLE = [
  'bill.live', 'bill.stored', 'pay.immediate', 'google.lookup', 'bc.create', 'bill.live', 'pay.deferred', 'seated',
  'bill.stored', 'rms.notice', 'google.create', 'bc.cancel', 'pay.immediate', 'google.lookup', 'rms.feed', 'bill.live',
] as const;

/** One operation of a kind: its requests, retried as the contract allows. */
export function operation(f: Fleet, rec: Recorder, st: LoadState, rnd: () => number, n: number, kind: (typeof CYCLE)[number]): Promise<unknown> {
  const { venues: v, client } = f;
  const table = () => `T${1 + Math.floor(rnd() * 8)}`;
  const day = 1 + (n % 80);
  const startSec = (offsetMin: number) => Math.floor(Date.parse(`${dateIn(day)}T18:00:00Z`) / 1000) + offsetMin * 60;
  switch (kind) {
    case 'bill.live':
    case 'bill.stored': {
      const venue = kind === 'bill.live' ? v.live : v.stored;
      return rec.withRetries(kind, () => client.get(`/v1/pat/venue/${venue.venueId}/table/${venue.tableId(table())}/bill`, { token: f.patToken }));
    }
    case 'pay.immediate':
    case 'pay.deferred':
      return pay(f, rec, st, kind === 'pay.immediate' ? 'live' : 'deferred', table(), `fleet-${n}`);
    case 'bc.create':
      return rec.withRetries(kind, () => client.post('/v1/bc/bookings', {
        headers: { authorization: f.bcAuth, 'idempotency-key': `fleet-bc-${n}` },
        body: { venueId: v.rmsVenueId, partySize: 2, start: new Date(startSec(15 * (n % 14)) * 1000).toISOString(), contact: contact(n) },
      })).then((res) => {
        if (res.status < 300) st.bookings.push({ id: res.body.id, canceled: false });
      });
    case 'bc.cancel': {
      const open = st.bookings.filter((b) => !b.canceled);
      if (open.length === 0) return Promise.resolve();
      const b = pick(rnd, open);
      b.canceled = true;
      return rec.withRetries(kind, () => client.put(`/v1/bc/bookings/${b.id}/cancel`, { headers: { authorization: f.bcAuth } }));
    }
    case 'google.lookup':
      return rec.withRetries(kind, () => client.post('/v3/BatchAvailabilityLookup', {
        headers: { authorization: f.googleAuth },
        body: { merchant_id: v.rmsVenueId, slot_time: [0, 30, 60].map((m) => ({ service_id: 'dining', start_sec: String(startSec(m)), duration_sec: '5400', resource_ids: { party_size: 2 } })) },
      }));
    case 'google.create':
      return rec.withRetries(kind, () => client.post('/v3/CreateBooking', {
        headers: { authorization: f.googleAuth },
        body: {
          slot: { merchant_id: v.rmsVenueId, service_id: 'dining', start_sec: String(startSec(15 * (n % 14))), duration_sec: '5400', resources: { party_size: 2 } },
          user_information: { user_id: `u${n}`, given_name: 'Ada', family_name: `Fleet${n}`, telephone: '+44 20 7946 0001', email: `ada${n}@example.com` },
          idempotency_token: `fleet-g-${n}`,
        },
      }));
    case 'seated': {
      const s = { bookingId: `fleet-seat-${n}`, table: String(st.seated.length + 1), answers: [] as HttpResponse[] };
      st.seated.push(s);
      const event = { bookingId: s.bookingId, venueId: v.seating.externalId, status: 'seated', partySize: 2, tables: [s.table], date: `${dateIn(0)}T20:00:00+01:00` };
      return rec.withRetries(kind, () => client.post('/v1/rms/pos/reservations', { token: f.rmsKey, body: event })).then((res) => s.answers.push(res));
    }
    case 'rms.notice': {
      if (st.rmsBookingIds.length === 0) return Promise.resolve();
      const entityId = pick(rnd, st.rmsBookingIds);
      st.notices++;
      return rec.withRetries(kind, () => client.post('/v1/rms/notifications', { token: f.rmsKey, headers: { 'webhook-id': `msg_fleet_${n}` }, body: { entity: 'booking', entityId, action: 'update' } }));
    }
    case 'rms.feed':
      st.feeds++;
      return feed(f, rec, `fleet-feed-${n}`, day);
  }
}

async function pay(f: Fleet, rec: Recorder, st: LoadState, venue: 'live' | 'deferred', table: string, ref: string): Promise<void> {
  const v = f.venues[venue];
  const kind = venue === 'live' ? 'pay.immediate' : 'pay.deferred';
  const bill = await rec.withRetries(`bill.${venue === 'live' ? 'live' : 'deferred'}`, () => f.client.get(`/v1/pat/venue/${v.venueId}/table/${v.tableId(table)}/bill`, { token: f.patToken }));
  if (bill.status !== 200) return;
  const orderId: string = bill.body.orderId;
  const res = await rec.withRetries(kind, () => f.client.post(`/v1/pat/venue/${v.venueId}/order/${orderId}/payment`, { token: f.patToken, body: { externalReference: ref, amount: 1, type: 'partial' } }), { posFailure: true });
  st.payments.push({ venue, ref, orderId, status: res.status });
}

async function feed(f: Fleet, rec: Recorder, nonce: string, day: number): Promise<void> {
  const shard = (i: number) => Array.from({ length: 20 }, (_, r) => ({
    venueId: 'rms-venue-1', date: dateIn(day + i), partySize: 1 + (r % 10),
    slotData: [{ startSec: Math.floor(Date.parse(`${dateIn(day + i)}T18:00:00Z`) / 1000) + (r >= 10 ? 3600 : 0), totalSpots: 4, openSpots: 2, deposit: false, depositAmount: 0, requiresCc: false }],
  }));
  for (let i = 0; i < 2; i++) {
    await rec.withRetries('rms.feed', () => f.client.post('/v1/rms/availability-feed', { token: f.rmsKey, body: { metadata: { total_shards: 2, shard_number: i, nonce }, data: shard(i) } }));
  }
}

const contact = (n: number) => ({ firstName: 'Grace', lastName: `Fleet${n}`, email: `grace${n}@example.com`, phone: '+44 20 7946 0002' });

/** The UTC date `days` from today, YYYY-MM-DD. */
export const dateIn = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** p-th percentile (nearest rank) of the durations. */
export function percentile(ms: number[], p: number): number {
  if (ms.length === 0) return NaN;
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The latency table: per kind, the calm phase beside the phase with kills, and the retries. */
export function latencyTable(rec: Recorder): string {
  const kinds = [...new Set(rec.samples.map((s) => s.kind))].sort();
  const rows = [['kind', 'calm n', 'p50 ms', 'p99 ms', 'kills n', 'p50 ms', 'p99 ms', 'retries']];
  for (const kind of kinds) {
    const of = (phase: Phase) => rec.samples.filter((s) => s.kind === kind && s.phase === phase).map((s) => s.ms);
    const calm = of('calm');
    const kills = of('kills');
    rows.push([kind, String(calm.length), String(percentile(calm, 50)), String(percentile(calm, 99)), String(kills.length), String(percentile(kills, 50)), String(percentile(kills, 99)), String(rec.retries.get(kind) ?? 0)]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => `| ${r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`).join('\n');
}
