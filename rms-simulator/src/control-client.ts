// Typed client of the reference RMS's control API, for tests and the service's sandbox. It trusts
// the simulator's certificate only: it talks to one known simulator.

import { Agent } from 'undici';
import { controlCall, type ClockView } from '../../pos-simulator/src/control-client.ts';
import type { OversizedInput, OversizedView } from '../../pos-simulator/src/oversized.ts';
import type { StaffAction } from './bookings.fns.ts';
import type { BrokenMode } from './broken.ts';
import type { RmsLoggedRequest } from './contract.routes.ts';
import type { ClockInput, FailuresInput, FeedPushInput, SeatInput, TargetInput, VenueInput } from './control.schemas.ts';
import type { FeedPushResult, OutboundEntry } from './outbound.ts';
import type { BookingStatus, Contact, FailureKnobs, Operation, VenueConfig } from './types.ts';

/** A booking as GET /booking/{id} answers it (plus the simulator's extra fields). */
export interface BookingView {
  id: string;
  venueId: string;
  status: BookingStatus;
  partySize: number;
  date: string;
  duration: number;
  areaId: string | null;
  tables: string[];
  contact: Contact;
  notes: string | null;
  deposit: { amount: number; paid: boolean } | null;
  bookingChannel: { id: string; name: string } | null;
  cancelActor?: string | null;
  cancelReason?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TargetView { tablesideUrl: string; apiKeySet: true; caSet: boolean }

const enc = encodeURIComponent;

export class RmsControlClient {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
    ca: string,
  ) {
    this.agent = new Agent({ connect: { ca }, connections: 8 });
  }

  private call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return controlCall<T>(this.agent, this.baseUrl, this.apiKey, method, path, body);
  }

  // ---- venues ----
  listVenues(): Promise<VenueConfig[]> { return this.call('GET', '/_control/venues'); }
  /** Creates a venue with defaults for what is not given (409 if the id exists; id generated when omitted). */
  createVenue(input: VenueInput): Promise<VenueConfig> { return this.call('POST', '/_control/venues', input); }
  /** Creates the venue or replaces the fields given. */
  configureVenue(venueId: string, input: Omit<VenueInput, 'id'>): Promise<VenueConfig> {
    return this.call('PUT', `/_control/venues/${enc(venueId)}`, input);
  }
  getVenue(venueId: string): Promise<VenueConfig> { return this.call('GET', `/_control/venues/${enc(venueId)}`); }
  /** Every booking of the venue, by start time. */
  bookings(venueId: string): Promise<BookingView[]> { return this.call('GET', `/_control/venues/${enc(venueId)}/bookings`); }
  getBooking(bookingId: string): Promise<BookingView> { return this.call('GET', `/_control/bookings/${enc(bookingId)}`); }

  // ---- staff ----
  confirm(bookingId: string): Promise<BookingView> { return this.staff(bookingId, 'confirm'); }
  reject(bookingId: string): Promise<BookingView> { return this.staff(bookingId, 'reject'); }
  /** Seats the party; with a target, sends the seated event when POS table ids are given or mapped. */
  seat(bookingId: string, input: SeatInput = {}): Promise<BookingView> {
    return this.call('POST', `/_control/bookings/${enc(bookingId)}/seat`, input);
  }
  complete(bookingId: string): Promise<BookingView> { return this.staff(bookingId, 'complete'); }
  noShow(bookingId: string): Promise<BookingView> { return this.staff(bookingId, 'no-show'); }
  private staff(bookingId: string, action: Exclude<StaffAction, 'seat'>): Promise<BookingView> {
    return this.call('POST', `/_control/bookings/${enc(bookingId)}/${action}`);
  }
  markDepositPaid(bookingId: string): Promise<BookingView> {
    return this.call('POST', `/_control/bookings/${enc(bookingId)}/deposit-paid`);
  }

  // ---- failure knobs ----
  failures(): Promise<{ global: FailureKnobs | null; venues: Record<string, FailureKnobs> }> { return this.call('GET', '/_control/failures'); }
  /** Global knobs; `{}` or `{mode:'none'}` clears them. */
  setFailures(input: FailuresInput): Promise<{ knobs: FailureKnobs | null }> { return this.call('PUT', '/_control/failures', input); }
  setVenueFailures(venueId: string, input: FailuresInput): Promise<{ knobs: FailureKnobs | null }> {
    return this.call('PUT', `/_control/venues/${enc(venueId)}/failures`, input);
  }

  // ---- request log ----
  requests(filter: { venueId?: string; operation?: Operation } = {}): Promise<RmsLoggedRequest[]> {
    const qs = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as Array<[string, string]>).toString();
    return this.call('GET', `/_control/requests${qs ? `?${qs}` : ''}`);
  }
  clearRequests(): Promise<void> { return this.call('DELETE', '/_control/requests'); }

  // ---- what is sent to Tableside ----
  tableside(): Promise<{ target: TargetView | null }> { return this.call('GET', '/_control/tableside'); }
  setTableside(input: TargetInput): Promise<{ target: TargetView }> { return this.call('PUT', '/_control/tableside', input); }
  clearTableside(): Promise<void> { return this.call('DELETE', '/_control/tableside'); }
  outbound(): Promise<OutboundEntry[]> { return this.call('GET', '/_control/outbound'); }
  clearOutbound(): Promise<void> { return this.call('DELETE', '/_control/outbound'); }
  pushFeed(input: FeedPushInput = {}): Promise<FeedPushResult> { return this.call('POST', '/_control/feed/push', input); }
  /** Sends one update notice for the booking now (action defaults from its status). */
  notify(bookingId: string, action?: 'update' | 'cancel'): Promise<{ webhookId: string; body: unknown }> {
    return this.call('POST', '/_control/notify', { bookingId, ...(action ? { action } : {}) });
  }

  // ---- oversized answers (DESIGN 8.8e) ----
  /** Every contract call answers a 200 of `bytes` (streamed; chunked when asked), `count` times or until cleared with null. */
  setOversized(input: OversizedInput | null): Promise<OversizedView> {
    return input ? this.call('PUT', '/_control/oversized', input) : this.call('DELETE', '/_control/oversized');
  }
  oversized(): Promise<OversizedView> { return this.call('GET', '/_control/oversized'); }

  // ---- clock, broken modes, reset ----
  clock(): Promise<ClockView> { return this.call('GET', '/_control/clock'); }
  setClock(input: ClockInput): Promise<ClockView> { return this.call('POST', '/_control/clock', input); }
  advanceClock(ms: number): Promise<ClockView> { return this.setClock({ advanceMs: ms }); }
  broken(): Promise<{ mode: BrokenMode | null }> { return this.call('GET', '/_control/broken'); }
  setBroken(mode: BrokenMode | null): Promise<{ mode: BrokenMode | null }> { return this.call('PUT', '/_control/broken', { mode }); }
  /** Forgets venues, bookings, keys, knobs, target, logs, clock and broken mode; the API key stays. */
  reset(): Promise<void> { return this.call('POST', '/_control/reset'); }

  close(): Promise<void> { return this.agent.close(); }
}
