// The simulator's whole state, its clock and its persistence (DES-089).
// With a state file every change is written with a temp file + rename, so a crash mid-write leaves
// the previous complete state and a restart never reads half a file. Writes are synchronous on
// purpose: the state is small, and ordering of writes then needs no queue.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isBrokenMode } from './broken.ts';
import { StateFile } from './json-file.ts';
import { RETENTION_MS, isRetained } from './orders.fns.ts';
import { SimClock } from './time.ts';
import type { OrderState, PaymentState, SimState, VenueState } from './types.ts';

export function emptyState(apiKey: string): SimState {
  return { version: 1, apiKey, clock: { offsetMs: 0, frozenAt: null }, broken: null, venues: [], orders: [], payments: [] };
}

export function randomApiKey(): string {
  return `sim_${randomBytes(24).toString('base64url')}`;
}

/** Reads a state file written by an earlier run; null when it does not exist yet. */
export function loadStateFile(file: string): SimState | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<SimState>;
  if (parsed.version !== 1 || !Array.isArray(parsed.venues) || !Array.isArray(parsed.orders) || typeof parsed.apiKey !== 'string') {
    throw new Error(`POS simulator state file ${file} is not a version-1 simulator state`);
  }
  return {
    ...(parsed as SimState),
    payments: Array.isArray(parsed.payments) ? parsed.payments : [],
    broken: isBrokenMode(parsed.broken) ? parsed.broken : null,
  };
}

export class SimStore {
  readonly clock: SimClock;
  private readonly file: StateFile;

  constructor(
    private state: SimState,
    stateFile?: string,
  ) {
    this.clock = new SimClock(state.clock);
    this.file = new StateFile(stateFile, () => {
      this.state.clock = this.clock.snapshot();
      return this.state;
    });
  }

  get apiKey(): string { return this.state.apiKey; }
  get broken(): SimState['broken'] { return this.state.broken; }

  setBroken(mode: SimState['broken']): void {
    this.state.broken = mode;
    this.save();
  }

  now(): number { return this.clock.now(); }

  venues(): VenueState[] { return this.state.venues; }
  venue(id: string): VenueState | undefined { return this.state.venues.find((v) => v.id === id); }

  addVenue(venue: VenueState): void {
    this.state.venues.push(venue);
  }

  /** Orders of a venue still within retention, oldest first. */
  orders(venueId: string): OrderState[] {
    this.purgeExpired();
    return this.state.orders
      .filter((o) => o.venueId === venueId)
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id, 'en', { numeric: true }));
  }

  order(venueId: string, orderId: string): OrderState | undefined {
    this.purgeExpired();
    return this.state.orders.find((o) => o.venueId === venueId && o.id === orderId);
  }

  /** Payments forwarded for one order, in arrival order. */
  paymentsOf(venueId: string, orderId: string): PaymentState[] {
    return this.state.payments.filter((p) => p.venueId === venueId && p.orderId === orderId);
  }

  /** The first payment recorded under this id at the venue (ids are the service's idempotency keys). */
  payment(venueId: string, paymentId: string): PaymentState | undefined {
    return this.state.payments.find((p) => p.venueId === venueId && p.paymentId === paymentId);
  }

  pendingPayments(): PaymentState[] {
    return this.state.payments.filter((p) => p.status === 'pending');
  }

  addPayment(payment: PaymentState): void {
    this.state.payments.push(payment);
  }

  addOrder(order: OrderState): void {
    this.state.orders.push(order);
  }

  /**
   * Closed orders past the 45-day retention are deleted, not just hidden (spec 4.6 rule 5), and with
   * them their payments. A payment for an order that never existed goes once it is as old.
   */
  private purgeExpired(): void {
    const now = this.now();
    const kept = this.state.orders.filter((o) => isRetained(o, now));
    if (kept.length === this.state.orders.length) return;
    this.state.orders = kept;
    const live = (p: PaymentState) => kept.some((o) => o.venueId === p.venueId && o.id === p.orderId);
    this.state.payments = this.state.payments.filter((p) => live(p) || now <= p.receivedAt + RETENTION_MS);
    this.save();
  }

  /** Drops everything (venues, orders, clock, broken mode); keeps the API key. */
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
