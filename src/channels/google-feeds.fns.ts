import { SERVICE_ID } from './google-booking-server.fns.ts';

// Google's merchant, services and availability feeds for a google-v3 channel (DESIGN 8.4c), built
// and checked as pure functions: a feed set is one nonce, every file PROCESS_AS_COMPLETE, the
// availability one record per start x party size, 30 days ahead, sharded by record count.

export const HORIZON_DAYS = 30;
export const DEFAULT_PARTY_SIZES = 10;
export const MAX_PARTY_SIZES = 20;
export const DEFAULT_SHARD_SIZE = 10_000;
/** Google requires a duration; when the RMS gives none, a table is assumed held two hours. */
export const DEFAULT_DURATION_SEC = 7200;

export type FeedKind = 'merchants' | 'services' | 'availability';
export const FEED_KINDS: readonly FeedKind[] = ['merchants', 'services', 'availability'];

export interface FeedMetadata {
  processing_instruction: 'PROCESS_AS_COMPLETE';
  shard_number: number;
  total_shards: number;
  nonce: string;
  generation_timestamp: number;
}

export interface FeedVenue {
  id: string;
  name: string;
  city: string | null;
  countryCode: string | null;
  latitude: number | null;
  longitude: number | null;
  url: string | null;
  maxCovers: number | null;
}

/** One record of a venue's RMS snapshot, as the feeds read it. */
export interface VenueRecord { date: string; partySize: number; duration: number | null; slots: Array<{ startSec: number; totalSpots: number; openSpots: number }> }

export interface VenueRecords {
  venue: FeedVenue;
  records: VenueRecord[];
}

export interface AvailabilityRecord {
  merchant_id: string;
  service_id: string;
  start_sec: number;
  duration_sec: number;
  spots_total: number;
  spots_open: number;
  resources: { party_size: number };
}

/** Party sizes a venue's feed covers: up to 10 unless its maxCovers says otherwise, at most 20. */
export const partySizesOf = (v: FeedVenue) => Math.min(v.maxCovers ?? DEFAULT_PARTY_SIZES, MAX_PARTY_SIZES);

export function merchantOf(v: FeedVenue) {
  return {
    merchant_id: v.id,
    name: v.name,
    category: 'restaurant',
    ...(v.url ? { url: v.url } : {}),
    geo: {
      ...(v.latitude !== null && v.longitude !== null ? { latitude: v.latitude, longitude: v.longitude } : {}),
      address: { locality: v.city ?? '', country: v.countryCode ?? '' },
    },
  };
}

export const serviceOf = (v: FeedVenue) => ({ merchant_id: v.id, service_id: SERVICE_ID, name: 'Table reservation', description: `A table at ${v.name}` });

/** One record per start x party size within the horizon; a slot time is kept once (the first record). */
export function availabilityOf(input: VenueRecords, fromSec: number, toSec: number): AvailabilityRecord[] {
  const out: AvailabilityRecord[] = [];
  const seen = new Set<string>();
  const maxSize = partySizesOf(input.venue);
  for (const r of input.records) {
    if (r.partySize < 1 || r.partySize > maxSize) continue;
    for (const s of r.slots) {
      if (s.startSec < fromSec || s.startSec >= toSec) continue;
      const key = `${s.startSec}|${r.partySize}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const total = Math.max(0, s.totalSpots);
      out.push({
        merchant_id: input.venue.id, service_id: SERVICE_ID, start_sec: s.startSec, duration_sec: r.duration ?? DEFAULT_DURATION_SEC,
        spots_total: total, spots_open: Math.min(Math.max(0, s.openSpots), total), resources: { party_size: r.partySize },
      });
    }
  }
  return out;
}

/** A number as JSON.stringify writes it. */
const jsonNumber = (n: number) => (Number.isFinite(n) ? String(n) : 'null');

/** Adds `n` to the sorted array unless it is there; whether it was added. */
function addSorted(sorted: number[], n: number): boolean {
  if (sorted.length === 0 || n > sorted[sorted.length - 1]!) {
    sorted.push(n);
    return true;
  }
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < n) lo = mid + 1;
    else hi = mid;
  }
  if (sorted[lo] === n) return false;
  sorted.splice(lo, 0, n);
  return true;
}

/**
 * availabilityOf's records of one venue as their JSON text (each exactly JSON.stringify of the
 * record), appended to `out` a snapshot record at a time, with no record object made: the export
 * and the HTTP feed write text straight from the rows they read (bench/bulk.ts: each slot made a
 * record, then a Google record, then text, and that garbage was most of their RSS). It keeps
 * availabilityOf's state (a slot time is kept once, the first), so it is given the venue's records
 * in availabilityOf's order, and one function serves one venue of one feed.
 */
export function recordTexts(venue: FeedVenue, fromSec: number, toSec: number): (record: VenueRecord, out: string[]) => void {
  const head = recordHead(venue.id);
  const maxSize = partySizesOf(venue);
  // Per party size, the slot times written (availabilityOf's `${start}|${size}` keys), as seconds
  // from `fromSec` in a sorted array: small integers, 4 bytes each, appended as a venue's slots come
  // in order (a Set of 11,600 times a venue, rehashed as it grew, was the feed's largest garbage).
  const seen = new Map<number, number[]>();
  return (r, out) => {
    if (r.partySize < 1 || r.partySize > maxSize) return;
    let starts = seen.get(r.partySize);
    if (!starts) seen.set(r.partySize, (starts = []));
    const duration = `,"duration_sec":${jsonNumber(r.duration ?? DEFAULT_DURATION_SEC)},"spots_total":`;
    const tail = `,"resources":{"party_size":${jsonNumber(r.partySize)}}}`;
    for (const s of r.slots) {
      if (s.startSec < fromSec || s.startSec >= toSec || !addSorted(starts, s.startSec - fromSec)) continue;
      const total = Math.max(0, s.totalSpots);
      out.push(`${head}${jsonNumber(s.startSec)}${duration}${jsonNumber(total)},"spots_open":${jsonNumber(Math.min(Math.max(0, s.openSpots), total))}${tail}`);
    }
  };
}

/** The text of a Google availability record up to its start time (recordTexts writes records so). */
export const recordHead = (venueId: string) => `{"merchant_id":${JSON.stringify(venueId)},"service_id":${JSON.stringify(SERVICE_ID)},"start_sec":`;

/** How every record text of the feeds begins when records are written one after the other, each after a comma. */
const RECORD_START = Buffer.from(',{"merchant_id":');

/**
 * Where the `n`th record (from 0) of `bytes[from, to)` begins: records as availabilityBytes writes
 * them, each after a comma (RECORD_START, which no record holds inside: its fields are the merchant
 * id, a uuid, and numbers); `to` when there are n records or fewer.
 */
export function nthRecordAt(bytes: Buffer, from: number, to: number, n: number): number {
  let at = from;
  for (let i = 0; i < n && at !== -1 && at < to; i++) at = bytes.indexOf(RECORD_START, at + 1);
  return at === -1 || at > to ? to : at;
}

/** Bytes laid out in one buffer, reused (grown as needed): a batch of records before it is written. */
export class OutBytes {
  bytes = Buffer.allocUnsafe(1 << 16);
  length = 0;

  /** Room for `n` more bytes. */
  reserve(n: number): Buffer {
    if (this.length + n > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, this.length + n));
      this.bytes.copy(bigger, 0, 0, this.length);
      this.bytes = bigger;
    }
    return this.bytes;
  }
}

const bytesOf = (text: string) => Buffer.from(text, 'latin1');
const DURATION = bytesOf(',"duration_sec":');
const TOTAL = bytesOf(',"spots_total":');
const OPEN = bytesOf(',"spots_open":');
const PARTY = bytesOf(',"resources":{"party_size":');
const END = bytesOf('}}');

/**
 * availabilityOf's records of one venue as their JSON text (exactly recordTexts' text: a test holds
 * them equal), written as bytes into `out`, each after a comma, from the slots PostgreSQL read for
 * them (snapshotVenueBatches: lines `<party size><TAB><duration><TAB><start>,<total>,<open>,…`, of
 * party sizes the venue's feed covers); returns how many. No string or object is made per record:
 * numbers are copied as the snapshot holds them when whole and written unchanged (anything else is
 * written as JSON.stringify would). It keeps availabilityOf's state (a slot time is kept once per
 * party size, the first), so it is given the venue's lines in availabilityOf's order, and one
 * function serves one venue of one feed.
 */
export function availabilityBytes(venue: FeedVenue, fromSec: number, toSec: number): (lines: Buffer, out: OutBytes) => number {
  const head = Buffer.from(`,${recordHead(venue.id)}`);
  // As recordTexts: per party size the start times written, as seconds from fromSec, sorted.
  const seen = new Map<number, number[]>();
  return (lines, out) => {
    let count = 0;
    let o = out.length;
    let b: Buffer = out.bytes;
    // Copies src[from, to) to out; a JavaScript loop: the pieces are a few bytes each.
    const put = (src: Uint8Array, from: number, to: number) => {
      for (let i = from; i < to; i++) b[o++] = src[i]!;
    };
    // The number at lines[from, to): its digits when it is a plain whole number, else as JSON reads it.
    const plain = (from: number, to: number) => {
      let n = 0;
      let i = from;
      for (let c = lines[i]!; i < to && c >= 48 && c <= 57; c = lines[++i]!) n = n * 10 + c - 48;
      return i === to && to > from && to - from <= 15 ? n : Number(lines.toString('latin1', from, to));
    };
    // `n`, which lines[from, to) holds unless a rule changed it: those bytes, else n as JSON.stringify writes it.
    const num = (n: number, from: number, to: number) => {
      if (to - from <= 15 && plain(from, to) === n && (n !== 0 || to - from === 1)) return put(lines, from, to);
      const text = Buffer.from(JSON.stringify(n), 'latin1');
      put(text, 0, text.length);
    };
    for (let at = 0; at < lines.length;) {
      const tab1 = lines.indexOf(9, at);
      const tab2 = lines.indexOf(9, tab1 + 1);
      let eol = lines.indexOf(10, tab2);
      if (eol === -1) eol = lines.length;
      const partySize = plain(at, tab1);
      let starts = seen.get(partySize);
      if (!starts) seen.set(partySize, (starts = []));
      // A record without slots (`\N`) has none to write.
      for (let i = lines[tab2 + 1] === 92 ? eol : tab2 + 1; i < eol;) {
        const c1 = lines.indexOf(44, i);
        const c2 = lines.indexOf(44, c1 + 1);
        let c3 = lines.indexOf(44, c2 + 1);
        if (c3 === -1 || c3 > eol) c3 = eol;
        const start = plain(i, c1);
        if (start >= fromSec && start < toSec && addSorted(starts, start - fromSec)) {
          const total = Math.max(0, plain(c1 + 1, c2));
          const open = Math.min(Math.max(0, plain(c2 + 1, c3)), total);
          // Room for this record: its fixed parts, and its numbers at their longest.
          b = out.reserve(head.length + 256 + (tab2 - at));
          o = out.length;
          put(head, 0, head.length);
          num(start, i, c1);
          put(DURATION, 0, DURATION.length);
          num(plain(tab1 + 1, tab2), tab1 + 1, tab2);
          put(TOTAL, 0, TOTAL.length);
          num(total, c1 + 1, c2);
          put(OPEN, 0, OPEN.length);
          num(open, c2 + 1, c3);
          put(PARTY, 0, PARTY.length);
          num(partySize, at, tab1);
          put(END, 0, END.length);
          out.length = o;
          count++;
        }
        i = c3 + 1;
      }
      at = eol + 1;
    }
    return count;
  };
}

export interface FeedFile { name: string; kind: FeedKind; document: { metadata: FeedMetadata } & Record<string, unknown> }

const FEED_FIELD: Record<FeedKind, string> = { merchants: 'merchant', services: 'service', availability: 'service_availability' };

export function feedMetadata(nonce: string, generation: number, shard: number, total: number): FeedMetadata {
  return { processing_instruction: 'PROCESS_AS_COMPLETE', shard_number: shard, total_shards: total, nonce, generation_timestamp: generation };
}

export const shardName = (kind: FeedKind, i: number, total: number) => `${kind}-${String(i).padStart(5, '0')}-of-${String(total).padStart(5, '0')}.json`;

export const availabilityDocument = (metadata: FeedMetadata, records: AvailabilityRecord[]) => ({ metadata, service_availability: [{ availability: records }] });

/**
 * availabilityDocument's JSON in pieces, for a feed written as its records come: `head`, then the
 * records' texts (recordTexts) separated by commas, then `tail` make exactly `JSON.stringify` of the
 * whole document, without the whole ever being in memory.
 */
export function availabilityFrame(metadata: FeedMetadata): { head: string; tail: string } {
  return { head: `{"metadata":${JSON.stringify(metadata)},"service_availability":[{"availability":[`, tail: ']}]}' };
}

/** The availability window of a feed generated at `now`: [generation, generation + 30 days). */
export function horizonOf(now: Date): { generation: number; from: number; to: number } {
  const generation = Math.floor(now.getTime() / 1000);
  return { generation, from: generation, to: generation + HORIZON_DAYS * 86_400 };
}

/** The merchant and services feeds (one shard each). */
export function catalogueFiles(venues: FeedVenue[], nonce: string, generation: number): FeedFile[] {
  return [
    { name: shardName('merchants', 0, 1), kind: 'merchants', document: { metadata: feedMetadata(nonce, generation, 0, 1), merchant: venues.map(merchantOf) } },
    { name: shardName('services', 0, 1), kind: 'services', document: { metadata: feedMetadata(nonce, generation, 0, 1), service: venues.map(serviceOf) } },
  ];
}

/** A whole feed set in memory (tests of the validator); the export and the HTTP feed stream the same shapes. */
export function buildFeedSet(venues: VenueRecords[], opts: { nonce: string; now: Date; shardSize: number }): FeedFile[] {
  const { generation, from, to } = horizonOf(opts.now);
  const records = venues.flatMap((v) => availabilityOf(v, from, to));
  const shards: AvailabilityRecord[][] = [];
  for (let i = 0; i < records.length; i += opts.shardSize) shards.push(records.slice(i, i + opts.shardSize));
  if (shards.length === 0) shards.push([]);
  return [
    ...catalogueFiles(venues.map((v) => v.venue), opts.nonce, generation),
    ...shards.map((s, i) => ({
      name: shardName('availability', i, shards.length), kind: 'availability' as const,
      document: availabilityDocument(feedMetadata(opts.nonce, generation, i, shards.length), s),
    })),
  ];
}

export interface FeedRuleResult { id: string; title: string; status: 'pass' | 'fail'; detail: string }

/** Which feed a document is, by its records' field; null when it is none of the three. */
export function kindOf(doc: Record<string, unknown>): FeedKind | null {
  for (const kind of FEED_KINDS) if (Array.isArray(doc[FEED_FIELD[kind]])) return kind;
  return null;
}

/** Checks a feed set (file name → parsed JSON): each fault is named, with the file and record it is in. */
export function validateFeedSet(files: Array<{ name: string; document: unknown }>): { ok: boolean; rules: FeedRuleResult[] } {
  const faults: Record<string, string[]> = { metadata: [], shards: [], nonce: [], spots: [], horizon: [], duplicates: [], service: [] };
  const shardsSeen: Record<FeedKind, { total: Set<number>; numbers: Set<number> }> = {
    merchants: { total: new Set(), numbers: new Set() }, services: { total: new Set(), numbers: new Set() }, availability: { total: new Set(), numbers: new Set() },
  };
  const nonces = new Set<string>();
  const services = new Set<string>();
  const keys = new Set<string>();
  for (const f of files) {
    const doc = f.document as Record<string, any>;
    const kind = doc && typeof doc === 'object' ? kindOf(doc) : null;
    if (!kind) { faults.metadata.push(`${f.name}: not a merchant, services or availability feed`); continue; }
    const m = doc.metadata as Partial<FeedMetadata> | undefined;
    if (!m || m.processing_instruction !== 'PROCESS_AS_COMPLETE' || !Number.isInteger(m.shard_number) || !Number.isInteger(m.total_shards) || typeof m.nonce !== 'string' || !Number.isInteger(m.generation_timestamp)) {
      faults.metadata.push(`${f.name}: metadata needs processing_instruction PROCESS_AS_COMPLETE, shard_number, total_shards, nonce and generation_timestamp`);
      continue;
    }
    nonces.add(m.nonce);
    shardsSeen[kind].total.add(m.total_shards!);
    if (shardsSeen[kind].numbers.has(m.shard_number!)) faults.shards.push(`${f.name}: shard ${m.shard_number} of ${kind} appears twice`);
    shardsSeen[kind].numbers.add(m.shard_number!);
    if (kind === 'services') for (const s of doc.service as any[]) services.add(String(s?.service_id));
    if (kind !== 'availability') continue;
    const horizonEnd = m.generation_timestamp! + (HORIZON_DAYS + 1) * 86_400;
    for (const group of doc.service_availability as any[]) {
      for (const [i, r] of ((group?.availability ?? []) as any[]).entries()) {
        const where = `${f.name} record ${i}`;
        services.add(String(r?.service_id));
        const total = Number(r?.spots_total);
        const open = Number(r?.spots_open);
        if (!(Number.isInteger(total) && Number.isInteger(open) && open >= 0 && open <= total)) faults.spots.push(`${where}: spots_open ${r?.spots_open} must be 0..spots_total ${r?.spots_total}`);
        const start = Number(r?.start_sec);
        if (!Number.isInteger(start) || start > horizonEnd || start < m.generation_timestamp! - 86_400) faults.horizon.push(`${where}: start_sec ${r?.start_sec} outside the ${HORIZON_DAYS}-day horizon`);
        const key = `${r?.merchant_id}|${r?.service_id}|${r?.start_sec}|${r?.resources?.party_size}`;
        if (keys.has(key)) faults.duplicates.push(`${where}: duplicate record (merchant ${r?.merchant_id}, start ${r?.start_sec}, party size ${r?.resources?.party_size})`);
        keys.add(key);
      }
    }
  }
  for (const kind of FEED_KINDS) {
    const s = shardsSeen[kind];
    if (s.total.size === 0) { faults.shards.push(`no ${kind} feed`); continue; }
    if (s.total.size > 1) faults.shards.push(`${kind}: shards disagree on total_shards (${[...s.total].join(', ')})`);
    const total = Math.max(...s.total);
    const missing = Array.from({ length: total }, (_, i) => i).filter((i) => !s.numbers.has(i));
    if (missing.length > 0) faults.shards.push(`${kind}: missing shard ${missing.join(', ')} of ${total}`);
  }
  if (nonces.size > 1) faults.nonce.push(`mixed nonces: ${[...nonces].join(', ')}`);
  if (services.size > 1) faults.service.push(`more than one service id: ${[...services].join(', ')}`);
  const rule = (id: string, title: string, list: string[]): FeedRuleResult => ({
    id, title, status: list.length ? 'fail' : 'pass', detail: list.length ? list.slice(0, 20).join('; ') + (list.length > 20 ? ` (and ${list.length - 20} more)` : '') : 'ok',
  });
  const rules = [
    rule('FEED-METADATA', 'every file has PROCESS_AS_COMPLETE metadata', faults.metadata!),
    rule('FEED-SHARDS', 'every shard of every feed is present once', faults.shards!),
    rule('FEED-NONCE', 'one nonce across all shards', faults.nonce!),
    rule('FEED-SPOTS', '0 <= spots_open <= spots_total', faults.spots!),
    rule('FEED-HORIZON', `availability within ${HORIZON_DAYS} days of generation`, faults.horizon!),
    rule('FEED-DUPLICATES', 'one record per merchant, start and party size', faults.duplicates!),
    rule('FEED-SERVICE', 'one service id', faults.service!),
  ];
  return { ok: rules.every((r) => r.status === 'pass'), rules };
}
