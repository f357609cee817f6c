// The reference RMS's domain: venue configuration (what its availability engine reads), bookings,
// and the wire vocabulary of the booking-services contract (DESIGN 8.2).

/** The eight booking statuses of DESIGN 8.2 (DES-105). */
export const BOOKING_STATUSES = [
  'pending_confirmation', 'requires_payment', 'confirmed', 'rejected', 'canceled', 'no-show', 'seated', 'completed',
] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/** The business failures of DESIGN 8.2, answered as 402 {error:{code,message}}. */
export const ERROR_CODES = [
  'slot_unavailable', 'party_size_out_of_range', 'outside_booking_window', 'outside_cancellation_window',
  'booking_already_cancelled', 'booking_not_modifiable', 'payment_required', 'payment_failed',
] as const;
export type RmsErrorCode = (typeof ERROR_CODES)[number];

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** An opening period in venue-local wall-clock time, 'HH:MM'; `close` may be '24:00'. Seatings start in [open, close). */
export interface Period { open: string; close: string }

export interface TableConfig {
  id: string;
  name: string;
  minCovers: number;
  maxCovers: number;
  areaId: string | null;
  /** The table's id at the venue's POS, sent in the seated event (DESIGN 8.3c). */
  posTableId: string | null;
}

/** Tables that staff may join for one party, and the covers the joined tables hold. */
export interface Combination { tables: string[]; minCovers: number; maxCovers: number }

/** Party sizes up to `maxPartySize` keep their table this many minutes (first matching entry, ascending). */
export interface TurnTime { maxPartySize: number; minutes: number }

/** Per slot start: at most this many covers and this many bookings (null: no limit). */
export interface Pacing { maxCoversPerSlot: number | null; maxBookingsPerSlot: number | null }

/** Spec 2.4's paymentDefinition: a card guarantee and/or a fixed deposit per booking (decimal, venue currency). */
export interface PaymentDefinition {
  requireCreditCard: boolean;
  deposit: { type: 'fixed_price'; amount: number } | null;
}

/** The company's booking rules (spec 2.2), in seconds. */
export interface CompanySettings { minAdvanceBooking: number; minAdvanceBookingCancelling: number }

export interface VenueConfig {
  id: string;
  name: string;
  /** IANA time zone: opening hours and the `date` of availability are wall-clock times there. */
  timezone: string;
  /** ISO 4217; deposit amounts on the wire are minor units of it. */
  currency: string;
  company: CompanySettings;
  minCovers: number;
  maxCovers: number;
  areas: Array<{ id: string; name: string }>;
  tables: TableConfig[];
  combinations: Combination[];
  hours: Record<Weekday, Period[]>;
  slotIntervalMinutes: number;
  turnTimes: TurnTime[];
  /** Turn time of party sizes above every `turnTimes` entry. */
  defaultTurnMinutes: number;
  pacing: Pacing;
  paymentDefinition: PaymentDefinition;
  /** true: new bookings are confirmed at once; false: pending_confirmation until staff confirm. */
  autoConfirm: boolean;
}

export interface Contact { firstname: string; lastname: string; email: string; telephone: string; locale?: string }

export interface BookingState {
  id: string;
  venueId: string;
  status: BookingStatus;
  partySize: number;
  /** Seating start and end of the table hold (start + turn time at booking), epoch ms. */
  start: number;
  end: number;
  areaId: string | null;
  tables: string[];
  contact: Contact;
  notes: string | null;
  bookingChannel: { id: string; name: string } | null;
  /** Minor units; null when the venue asked no deposit. */
  deposit: { amount: number; paid: boolean } | null;
  /** A card was given (paymentToken) at booking. */
  cardOnFile: boolean;
  cancelActor: string | null;
  cancelReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What the engine needs of a booking to place another one. */
export type Occupancy = Pick<BookingState, 'id' | 'status' | 'partySize' | 'start' | 'end' | 'tables'>;

/** A slot of GET /availability, as on the wire (DESIGN 8.2). */
export interface Slot {
  startSec: number;
  totalSpots: number;
  openSpots: number;
  deposit: boolean;
  depositAmount: number;
  requiresCc: boolean;
}

/** Contract operations, for failure knobs and the request log. */
export const OPERATIONS = ['healthcheck', 'availability', 'create', 'read', 'update', 'cancel', 'search'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface FailureKnobs {
  /**
   * error5xx: 503 with an envelope; hang: never answers; garbage: 200 with a body that is not JSON;
   * status: answers `status` with an envelope (a 408, 429, 401 while the RMS rotates its key, …);
   * act-then-hang: does what was asked (makes the booking, cancels it, …), then never answers, like
   * an RMS whose answer is lost after it acted (DESIGN 8.8b).
   */
  mode: 'none' | 'error5xx' | 'hang' | 'garbage' | 'status' | 'act-then-hang';
  /** For mode 'status': the HTTP status answered (400-599). */
  status: number | null;
  /** Answer this many ms late (real time), then behave as configured. */
  slowMs: number;
  /**
   * Answer what the call read or did when it arrived, this many ms later (real time): a slow link
   * or a lagging replica, so a read can answer a state that has changed since (DESIGN 8.8c).
   */
  lagMs: number;
  /** create, update and cancel answer 402 with this code (after auth and validation). */
  force402: RmsErrorCode | null;
  /** Only these operations are affected; null = all. */
  operations: Operation[] | null;
  /** The knobs affect this many requests, then clear themselves; null = until changed. */
  remaining: number | null;
}

/** Where the simulator sends update notices, feeds and seated events (DESIGN 8.3). */
export interface TablesideTarget { tablesideUrl: string; apiKey: string; ca: string | null }
