import type { FieldProblems } from '../lib/errors.ts';
import { NUL_PROBLEM, nulFields } from '../server/input-guards.ts';
import { MAX_PROBLEMS, readRecord, type FeedRecord } from './availability-feed.fns.ts';
import type { FeedJsonSink } from './feed-json.fns.ts';

// DESIGN 8.3b: what a shard's body comes to as it is read (feed-json.fns.ts hands its parts here).
// Every record is checked as it arrives, with the rules and the problems a body parsed whole had:
// NULs anywhere (the input guard's 400, ERR-06), the body's schema on what is left once `data` is
// set aside, and each record by readRecord (at most MAX_PROBLEMS named). While every record is
// valid, each is written at once as its COPY text and kept as bytes outside V8's heap (a batch of
// `batch` records a view of one of the shard's chunks), so nothing of the parsed body outlives its
// record. Pure.

/** A shard's first chunk of COPY text: a shard of up to ~800 records needs no other. */
const FIRST_CHUNK = 256 * 1024;
/**
 * The next ones: over glibc's largest mmap threshold (32 MiB on 64-bit), so each is a mapping of its
 * own, whose pages count in the RSS only once written and go back to the system once it is freed.
 * A Buffer per batch (~145 KiB at 500 records) came from the malloc heap, which kept the freed ones'
 * pages: after a 1,000,000-record feed the serve held ~17 MiB more than a fresh one, under every
 * later request (bench/bulk.ts, the GET feed's peak RSS).
 */
export const BIG_CHUNK = 32 * 1024 * 1024 + 64 * 1024;

/**
 * Where a collector's chunks come from, and go back to once nothing can read them (release): the
 * service keeps the last big one for the next shard (availability-feed.service.ts).
 */
export interface ChunkSource {
  take(size: number): Buffer;
  give(chunk: Buffer): void;
}

/**
 * Frees a chunk at once, rather than at V8's next full collection (a chunk lives long enough to be in
 * its old generation): its memory is moved to a new ArrayBuffer nothing holds, freed at the next
 * scavenge. `chunk` (and every view of it) is empty after.
 */
export function detach(chunk: Buffer): void {
  structuredClone(chunk.buffer, { transfer: [chunk.buffer] });
}

/** Every chunk new (Buffer.allocUnsafeSlow: its own memory, not a slice of Node's pool), freed when given back. */
export const newChunks: ChunkSource = { take: (size) => Buffer.allocUnsafeSlow(size), give: detach };

/** A body read through: its top-level members but `data` (an array set aside as []), and its records. */
export interface ReadShard {
  /** The body with `data` as [] when it was an array: what the body's schema checks. */
  skeleton: unknown;
  /** Records in `data` (0 when it is not an array). */
  count: number;
  /** Fields holding a NUL, anywhere in the body (the input guard's 400). */
  nul: FieldProblems;
  /** The records' problems, at most MAX_PROBLEMS; null when every record is valid. */
  problems: FieldProblems | null;
  /** Every record's COPY text, a batch a Buffer (views of the shard's chunks); empty when a record is invalid. */
  batches: Buffer[];
  /** What every line of `batches` begins with: the shard's own columns as the metadata read before `data` gave them, or ''. */
  prefix: string;
}

export class ShardCollector implements FeedJsonSink {
  private skeleton: Record<string, unknown> = {};
  private root: { value: unknown } | null = null;
  private count = 0;
  private nul: FieldProblems = {};
  private problems: FieldProblems = {};
  private problemCount = 0;
  private batches: Buffer[] = [];
  /** What `batches` are views of, and how much of the last one is written. */
  private chunks: Buffer[] = [];
  private used = 0;
  private text = '';
  private inBatch = 0;
  /** The prefix the latest `metadata` gives, and the one the lines being made begin with. */
  private guess = '';
  private prefix = '';

  /**
   * `line`: a valid record's COPY text; `prefixOf`: the shard's own columns the lines begin with, for
   * a `metadata` member (as sent, not yet checked: '' when it cannot say); `batch`: records per Buffer.
   * A body whose `metadata` comes before `data` (as every RMS sends it) has its lines made whole.
   */
  constructor(
    private readonly line: (r: FeedRecord) => string,
    private readonly prefixOf: (metadata: unknown) => string,
    private readonly batch: number,
    private readonly source: ChunkSource = newChunks,
  ) {}

  member(key: string | null, value: unknown, escapedNul: boolean): void {
    if (key?.includes('\u0000')) this.nul[key] = [NUL_PROBLEM];
    if (escapedNul) this.noteNuls(value, key ?? '');
    if (key === null) {
      this.root = { value };
      return;
    }
    if (key === 'data') this.restart();
    if (key === 'metadata') this.guess = this.prefixOf(value);
    this.skeleton[key] = value;
  }

  dataStart(): void {
    this.restart();
    this.prefix = this.guess;
    this.skeleton.data = [];
  }

  record(value: unknown, index: number, escapedNul: boolean): void {
    this.count++;
    if (escapedNul) this.noteNuls(value, `data[${index}]`);
    if (this.problemCount >= MAX_PROBLEMS) return;
    const r = readRecord(value, index);
    if (Array.isArray(r)) {
      (this.problems[r[0]] ??= []).push(r[1]);
      this.problemCount++;
      this.dropText();
      return;
    }
    if (this.problemCount > 0) return;
    this.text += this.prefix + this.line(r);
    if (++this.inBatch === this.batch) this.flush();
  }

  /**
   * Gives the chunks back to their source (which frees them at once, or keeps one for the next shard).
   * Only once nothing can still read them: never while a write of a batch may be in flight (the
   * caller's COPY ended, or never began); the batches must not be read after.
   */
  release(): void {
    for (const chunk of this.chunks) this.source.give(chunk);
    this.chunks = [];
    this.batches = [];
    this.used = 0;
  }

  /** What the body came to, once it has ended. */
  result(): ReadShard {
    this.flush();
    return {
      skeleton: this.root ? this.root.value : this.skeleton,
      count: this.count,
      nul: this.nul,
      problems: this.problemCount > 0 ? this.problems : null,
      batches: this.batches,
      prefix: this.prefix,
    };
  }

  /** A second `data` replaces the first, as JSON.parse keeps the last of a repeated key. */
  private restart(): void {
    this.count = 0;
    this.problems = {};
    this.problemCount = 0;
    this.dropText();
    this.inBatch = 0;
    for (const field of Object.keys(this.nul)) if (field.startsWith('data[') || field === 'data') delete this.nul[field];
  }

  private flush(): void {
    if (this.text !== '') this.batches.push(this.bytesOf(this.text));
    this.text = '';
    this.inBatch = 0;
  }

  /** The text written into the shard's chunks (a new one when it does not fit in the last): a view of it. */
  private bytesOf(text: string): Buffer {
    const length = Buffer.byteLength(text);
    let chunk = this.chunks.at(-1);
    if (!chunk || chunk.length - this.used < length) {
      chunk = this.source.take(Math.max(length, this.chunks.length === 0 ? FIRST_CHUNK : BIG_CHUNK));
      this.chunks.push(chunk);
      this.used = 0;
    }
    const start = this.used;
    this.used += chunk.write(text, start);
    return chunk.subarray(start, this.used);
  }

  /** The COPY text so far, forgotten (a record was invalid, or a second `data` begins): nothing was written anywhere. */
  private dropText(): void {
    this.release();
    this.text = '';
  }

  /** Only for a value whose text holds `\u0000` (the walk over every record cost as much as parsing it). */
  private noteNuls(value: unknown, path: string): void {
    for (const field of nulFields(value, path)) this.nul[field] = [NUL_PROBLEM];
  }
}
