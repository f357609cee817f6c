// Typed client of the simulator's control API, for tests and the service's sandbox. It trusts the
// simulator's certificate only (not the system CAs): it talks to one known simulator.

import { Agent, request } from 'undici';
import type { BrokenMode } from './broken.ts';
import type { AddItemsInput, ClockInput, VenueInput, WalkInInput } from './control.schemas.ts';
import type { OversizedInput, OversizedView } from './oversized.ts';
import type { LoggedRequest } from './request-log.ts';
import type { SeatingFaults } from './seating-faults.ts';
import type { PosOrder, PosTable, VenueBehaviour } from './types.ts';
import type { MenuInput, VenueView } from './venues.service.ts';

export class ControlError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly statusCode: number,
    readonly body: unknown,
  ) {
    super(`${method} ${path} -> ${statusCode}: ${JSON.stringify(body)}`);
  }
}

export interface ClockView { now: string; frozen: boolean }

const enc = encodeURIComponent;

/**
 * One JSON call to a simulator's control API with its Bearer key; a status >= 300 throws
 * ControlError. Shared with the RMS simulator's control client.
 */
export async function controlCall<T>(
  agent: Agent, baseUrl: string, apiKey: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown,
): Promise<T> {
  const res = await request(`${baseUrl}${path}`, {
    method,
    dispatcher: agent,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  const parsed: unknown = text === '' ? undefined : JSON.parse(text);
  if (res.statusCode >= 300) throw new ControlError(method, path, res.statusCode, parsed);
  return parsed as T;
}

export class ControlClient {
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
  listVenues(): Promise<VenueView[]> { return this.call('GET', '/_control/venues'); }
  /** Creates a venue (409 if the id exists); id is generated when omitted. */
  createVenue(input: VenueInput): Promise<VenueView> { return this.call('POST', '/_control/venues', input); }
  /** Creates the venue or updates the fields given. */
  putVenue(venueId: string, input: Omit<VenueInput, 'id'>): Promise<VenueView> {
    return this.call('PUT', `/_control/venues/${enc(venueId)}`, input);
  }
  getVenue(venueId: string): Promise<VenueView> { return this.call('GET', `/_control/venues/${enc(venueId)}`); }
  setTables(venueId: string, tables: PosTable[]): Promise<PosTable[]> {
    return this.call('PUT', `/_control/venues/${enc(venueId)}/tables`, tables);
  }
  /** Adds the table, or renames it when the id exists. */
  putTable(venueId: string, tableId: string, name: string): Promise<PosTable> {
    return this.call('PUT', `/_control/venues/${enc(venueId)}/tables/${enc(tableId)}`, { name });
  }
  removeTable(venueId: string, tableId: string): Promise<void> {
    return this.call('DELETE', `/_control/venues/${enc(venueId)}/tables/${enc(tableId)}`);
  }
  setMenu(venueId: string, menu: MenuInput[]): Promise<MenuInput[]> {
    return this.call('PUT', `/_control/venues/${enc(venueId)}/menu`, menu);
  }
  setBehaviour(venueId: string, behaviour: VenueBehaviour): Promise<VenueBehaviour> {
    return this.call('PUT', `/_control/venues/${enc(venueId)}/behaviour`, behaviour);
  }

  // ---- orders, as staff ----
  /** Opens an order on the POS as staff would for a walk-in (several checks = split order). */
  openOrder(venueId: string, input: WalkInInput): Promise<PosOrder> {
    return this.call('POST', `/_control/venues/${enc(venueId)}/orders`, input);
  }
  getOrder(venueId: string, orderId: string): Promise<PosOrder> {
    return this.call('GET', `/_control/venues/${enc(venueId)}/orders/${enc(orderId)}`);
  }
  addItems(venueId: string, orderId: string, input: AddItemsInput): Promise<PosOrder> {
    return this.call('POST', `/_control/venues/${enc(venueId)}/orders/${enc(orderId)}/items`, input);
  }
  closeOrder(venueId: string, orderId: string, input: { paymentMethod?: string } = {}): Promise<PosOrder> {
    return this.call('POST', `/_control/venues/${enc(venueId)}/orders/${enc(orderId)}/close`, input);
  }
  /** Voids every open check (or one, by checkNumber); all checks void = order closed. */
  voidOrder(venueId: string, orderId: string, input: { checkNumber?: string } = {}): Promise<PosOrder> {
    return this.call('POST', `/_control/venues/${enc(venueId)}/orders/${enc(orderId)}/void`, input);
  }

  // ---- request log ----
  requests(venueId: string): Promise<LoggedRequest[]> {
    return this.call('GET', `/_control/venues/${enc(venueId)}/requests`);
  }
  clearRequests(venueId: string): Promise<void> {
    return this.call('DELETE', `/_control/venues/${enc(venueId)}/requests`);
  }

  // ---- oversized answers (DESIGN 8.8e) ----
  /** Every contract call answers a 200 of `bytes` (streamed; chunked when asked), `count` times or until cleared with null. */
  setOversized(input: OversizedInput | null): Promise<OversizedView> {
    return input ? this.call('PUT', '/_control/oversized', input) : this.call('DELETE', '/_control/oversized');
  }
  oversized(): Promise<OversizedView> { return this.call('GET', '/_control/oversized'); }

  // ---- seating faults (DESIGN 8.8a) ----
  /** Odd create answers, an echoed id, slow or held contract calls for one venue (replaces what was set). */
  setSeatingFaults(venueId: string, faults: SeatingFaults): Promise<SeatingFaults> {
    return this.call('PUT', `/_control/venues/${enc(venueId)}/seating-faults`, faults);
  }
  seatingFaults(venueId: string): Promise<SeatingFaults & { holding: number }> {
    return this.call('GET', `/_control/venues/${enc(venueId)}/seating-faults`);
  }
  /** Lets the venue's held contract calls go on (`newest`: only the one held last). */
  release(venueId: string, opts: { newest?: boolean } = {}): Promise<{ released: number }> {
    return this.call('POST', `/_control/venues/${enc(venueId)}/release`, opts);
  }

  // ---- clock, broken modes, reset ----
  clock(): Promise<ClockView> { return this.call('GET', '/_control/clock'); }
  setClock(input: ClockInput): Promise<ClockView> { return this.call('POST', '/_control/clock', input); }
  advanceClock(ms: number): Promise<ClockView> { return this.setClock({ advanceMs: ms }); }
  broken(): Promise<{ mode: BrokenMode | null }> { return this.call('GET', '/_control/broken'); }
  setBroken(mode: BrokenMode | null): Promise<{ mode: BrokenMode | null }> {
    return this.call('PUT', '/_control/broken', { mode });
  }
  /** Forgets every venue, order and payment; the API key stays. */
  reset(): Promise<void> { return this.call('POST', '/_control/reset'); }

  close(): Promise<void> { return this.agent.close(); }
}
