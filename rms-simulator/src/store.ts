// The reference RMS's whole state, its clock and its optional persistence. With a state file every
// change is written to a temp file and renamed over the old one, so a crash mid-write leaves the
// previous complete state. Writes are synchronous on purpose: the state is small, and ordering of
// writes then needs no queue.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { StateFile } from '../../pos-simulator/src/json-file.ts';
import { SimClock, type ClockState } from '../../pos-simulator/src/time.ts';
import { isBrokenMode, type BrokenMode } from './broken.ts';
import type { BookingState, FailureKnobs, TablesideTarget, VenueConfig } from './types.ts';

/** A create answered under an Idempotency-Key, replayed for the same key and body. */
export interface IdempotencyRecord {
  key: string;
  /** Canonical JSON of the request body. */
  body: string;
  statusCode: number;
  /** The booking created, whose current status a replay answers; null when the create was refused. */
  bookingId: string | null;
  /** The refusal answered (402), replayed as is. */
  answer: unknown;
}

export interface RmsState {
  version: 1;
  apiKey: string;
  clock: ClockState;
  broken: BrokenMode | null;
  venues: VenueConfig[];
  bookings: BookingState[];
  idempotency: IdempotencyRecord[];
  failures: { global: FailureKnobs | null; venues: Record<string, FailureKnobs> };
  target: TablesideTarget | null;
}

export function emptyState(apiKey: string): RmsState {
  return {
    version: 1, apiKey, clock: { offsetMs: 0, frozenAt: null }, broken: null, venues: [], bookings: [], idempotency: [],
    failures: { global: null, venues: {} }, target: null,
  };
}

export function randomApiKey(): string {
  return `rms_${randomBytes(24).toString('base64url')}`;
}

/** Reads a state file written by an earlier run; null when it does not exist yet. */
export function loadStateFile(file: string): RmsState | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<RmsState>;
  if (parsed.version !== 1 || typeof parsed.apiKey !== 'string' || !Array.isArray(parsed.venues) || !Array.isArray(parsed.bookings)) {
    throw new Error(`RMS simulator state file ${file} is not a version-1 RMS simulator state`);
  }
  return {
    ...emptyState(parsed.apiKey),
    ...(parsed as RmsState),
    broken: isBrokenMode(parsed.broken) ? parsed.broken : null,
  };
}

export class RmsStore {
  readonly clock: SimClock;
  private readonly file: StateFile;

  constructor(
    private state: RmsState,
    stateFile?: string,
  ) {
    this.clock = new SimClock(state.clock);
    this.file = new StateFile(stateFile, () => {
      this.state.clock = this.clock.snapshot();
      return this.state;
    });
  }

  get apiKey(): string { return this.state.apiKey; }
  get broken(): BrokenMode | null { return this.state.broken; }
  now(): number { return this.clock.now(); }

  setBroken(mode: BrokenMode | null): void {
    this.state.broken = mode;
    this.save();
  }

  venues(): VenueConfig[] { return this.state.venues; }
  venue(id: string): VenueConfig | undefined { return this.state.venues.find((v) => v.id === id); }

  /** Replaces the venue's configuration (or adds it); configurations are never mutated in place. */
  putVenue(venue: VenueConfig): void {
    const i = this.state.venues.findIndex((v) => v.id === venue.id);
    if (i >= 0) this.state.venues[i] = venue;
    else this.state.venues.push(venue);
    this.save();
  }

  bookings(venueId?: string): BookingState[] {
    return venueId === undefined ? this.state.bookings : this.state.bookings.filter((b) => b.venueId === venueId);
  }

  booking(id: string): BookingState | undefined { return this.state.bookings.find((b) => b.id === id); }

  addBooking(booking: BookingState): void {
    this.state.bookings.push(booking);
    this.save();
  }

  idempotency(key: string): IdempotencyRecord | undefined { return this.state.idempotency.find((r) => r.key === key); }

  addIdempotency(record: IdempotencyRecord): void {
    this.state.idempotency.push(record);
    this.save();
  }

  get failures(): RmsState['failures'] { return this.state.failures; }
  get target(): TablesideTarget | null { return this.state.target; }

  setTarget(target: TablesideTarget | null): void {
    this.state.target = target;
    this.save();
  }

  /** Drops venues, bookings, keys, knobs, target, clock and broken mode; keeps the API key. */
  reset(): void {
    this.state = emptyState(this.state.apiKey);
    this.clock.restore(this.state.clock);
    this.save();
  }

  /** Runs `change` with the saves it asks for made once, at its end (the demo's seeding, before the simulator listens). */
  savingOnce(change: () => Promise<void>): Promise<void> {
    return this.file.once(change);
  }

  /** Persists the current state, when a state file was given. Call after every change. */
  save(): void {
    this.file.write();
  }
}
