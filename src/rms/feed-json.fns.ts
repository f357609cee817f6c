// DESIGN 8.3b: an availability-feed shard read as it arrives (issue 28). A 14 MiB shard parsed at once
// was the body as text plus its object tree, both promoted to V8's old space and kept as garbage until
// a late major GC (service RSS +201 MiB over a 1,000,000-record feed). This reader is fed the body's
// bytes chunk by chunk and hands out each element of the top-level `data` array as soon as it is
// complete, parsed on its own (one record: a few hundred bytes that die young), and every other
// top-level member whole. It only finds where values begin and end; each value's text is parsed by
// JSON.parse, which checks its syntax, so what it accepts is what JSON.parse of the whole body accepts.
// Pure: no I/O.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const BOM = [0xef, 0xbb, 0xbf];

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The body is not JSON (or holds a key Fastify's parser refuses): a 400, as for any other route. */
export class FeedJsonError extends Error {}

/** What the reader hands out, in the body's order. */
export interface FeedJsonSink {
  /**
   * A top-level member other than an array under `data`, parsed (a body that is no object: key
   * null). `escapedNul`: its text holds `\u0000`, so it may hold a NUL (JSON text cannot hold a raw one).
   */
  member(key: string | null, value: unknown, escapedNul: boolean): void;
  /** `data` holds an array: its elements follow (a second `data` starts again, as JSON.parse keeps the last). */
  dataStart(): void;
  /** One element of `data`, parsed, with its index (`escapedNul` as for member). */
  record(value: unknown, index: number, escapedNul: boolean): void;
}

/**
 * JSON.parse with the rule Fastify's body parser (secure-json-parse) applies: no `__proto__` key, no
 * `constructor` key holding a `prototype`; the check only runs when the text names one of them.
 */
export function parseJson(text: string): unknown {
  if (!text.includes('__proto__') && !text.includes('constructor')) return JSON.parse(text);
  return JSON.parse(text, function (key, value) {
    if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype'))) {
      throw new FeedJsonError('forbidden prototype property');
    }
    return value;
  });
}

type State =
  | 'start' // before the first byte that is not whitespace
  | 'root' // the body is not an object: all of it is one value
  | 'key-or-end' // after `{`
  | 'key' // after `,` in the object
  | 'in-key'
  | 'colon'
  | 'value-start'
  | 'value' // a member's value other than data's array
  | 'element-or-end' // after data's `[`
  | 'element'
  | 'after-value'
  | 'done';

export class FeedJsonReader {
  private state: State = 'start';
  /** Pieces of the value being read that began in earlier chunks. */
  private parts: Buffer[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  private key = '';
  private index = 0;
  private bom = 0;
  /** Where, in the chunk being read, the value or key being read began. */
  private start = 0;
  private bytes = 0;
  /** Whether the text last parsed holds `\u0000`. */
  private escapedNul = false;

  constructor(private readonly sink: FeedJsonSink) {}

  /** Reads one chunk; throws FeedJsonError at the first byte that cannot be JSON. */
  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    let i = 0;
    const n = chunk.length;
    // A leading UTF-8 byte order mark is skipped, as secure-json-parse does.
    while (this.state === 'start' && this.bom < 3 && i < n && chunk[i] === BOM[this.bom]) {
      i++;
      this.bom++;
    }
    this.start = i;
    while (i < n) i = this.inValue() ? this.valueBytes(chunk, i, n) : this.structural(chunk, i);
    // A value still open keeps what it has so far (copied: the chunk is not ours to keep).
    if ((this.inValue() || this.state === 'in-key') && this.start < n) this.parts.push(Buffer.from(chunk.subarray(this.start, n)));
  }

  private inValue(): boolean {
    return this.state === 'value' || this.state === 'element' || this.state === 'root';
  }

  /** One byte outside a value; the index of the next one to read. */
  private structural(chunk: Buffer, i: number): number {
    const b = chunk[i]!;
    if (this.state === 'in-key') {
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) {
        this.key = parseJson(this.take(chunk, this.start, i + 1)) as string;
        if (this.key === '__proto__') throw new FeedJsonError('forbidden prototype property');
        this.state = 'colon';
      }
      return i + 1;
    }
    if (isSpace(b)) return i + 1;
    switch (this.state) {
      case 'start':
        this.state = b === OPEN_OBJECT ? 'key-or-end' : 'root';
        this.start = i;
        return b === OPEN_OBJECT ? i + 1 : i;
      case 'key-or-end':
      case 'key':
        if (b === QUOTE) {
          this.state = 'in-key';
          this.escaped = false;
          this.start = i;
        } else if (b === CLOSE_OBJECT && this.state === 'key-or-end') this.state = 'done';
        else throw new FeedJsonError('expected a key');
        return i + 1;
      case 'colon':
        if (b !== COLON) throw new FeedJsonError('expected a colon');
        this.state = 'value-start';
        return i + 1;
      case 'value-start':
        if (this.key === 'data' && b === OPEN_ARRAY) {
          this.state = 'element-or-end';
          this.index = 0;
          this.sink.dataStart();
          return i + 1;
        }
        this.openValue('value', i);
        return i;
      case 'element-or-end':
        if (b === CLOSE_ARRAY) {
          this.state = 'after-value';
          return i + 1;
        }
        this.openValue('element', i);
        return i;
      case 'after-value':
        if (b === COMMA) this.state = 'key';
        else if (b === CLOSE_OBJECT) this.state = 'done';
        else throw new FeedJsonError('expected , or }');
        return i + 1;
      default:
        throw new FeedJsonError('unexpected text after the body');
    }
  }

  /** Bytes of a value from i: the index of the next byte to read (n when the value goes on in the next chunk). */
  private valueBytes(chunk: Buffer, i: number, n: number): number {
    if (this.state === 'root') return n;
    i = this.scan(chunk, i, n);
    if (i === n) return n;
    if (this.state === 'value') {
      this.sink.member(this.key, this.memberValue(chunk, this.start, i), this.escapedNul);
      this.state = 'after-value';
      return i; // its terminator is read as after-value
    }
    this.sink.record(this.parse(chunk, this.start, i), this.index++, this.escapedNul);
    const end = chunk[i]!;
    if (end === CLOSE_OBJECT) throw new FeedJsonError('unexpected } in an array');
    if (end === COMMA) this.openValue('element', i + 1);
    else this.state = 'after-value';
    return i + 1;
  }

  /** The body has ended: throws FeedJsonError if it is not a whole JSON document. */
  end(): void {
    if (this.state === 'root') {
      this.sink.member(null, this.parse(Buffer.alloc(0), 0, 0), this.escapedNul);
      this.state = 'done';
    }
    if (this.state !== 'done') throw new FeedJsonError(this.state === 'start' ? 'empty body' : 'the body ends before its JSON does');
  }

  /** True when no byte was read: Fastify's "empty body" (whitespace alone is "not valid JSON"). */
  get empty(): boolean {
    return this.bytes === 0;
  }

  private openValue(state: 'value' | 'element', at: number): void {
    this.state = state;
    this.start = at;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.parts.length = 0;
  }

  /**
   * From i, the index of the byte that ends the current value (`,`, or the `}`/`]` closing its
   * container, outside strings and nested values), or n if this chunk does not hold it.
   */
  private scan(chunk: Buffer, i: number, n: number): number {
    let { depth, inString, escaped } = this;
    for (; i < n; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        if (depth === 0) break;
        depth--;
      } else if (b === COMMA && depth === 0) break;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return i;
  }

  /** The text of chunk[start, end) with what the value had in earlier chunks. */
  private take(chunk: Buffer, start: number, end: number): string {
    if (this.parts.length === 0) return chunk.toString('utf8', start, end);
    const text = Buffer.concat([...this.parts, chunk.subarray(start, end)]).toString('utf8');
    this.parts.length = 0;
    return text;
  }

  /** A top-level member's value: a `constructor` holding a `prototype` is refused there too. */
  private memberValue(chunk: Buffer, start: number, end: number): unknown {
    const value = this.parse(chunk, start, end);
    if (this.key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) {
      throw new FeedJsonError('forbidden prototype property');
    }
    return value;
  }

  private parse(chunk: Buffer, start: number, end: number): unknown {
    const text = this.take(chunk, start, end);
    this.escapedNul = text.includes('\\u0000');
    try {
      return parseJson(text);
    } catch (err) {
      if (err instanceof SyntaxError || err instanceof FeedJsonError) throw new FeedJsonError(err.message);
      throw err;
    }
  }
}
