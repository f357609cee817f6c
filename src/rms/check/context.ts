// What the rms-check rules share during one run: the client, the venue, the date and slots found,
// the booking the kit made, and everything it saw that later rules judge as a whole (statuses,
// 402 answers) or must clean up (every booking it created).

import { randomBytes } from 'node:crypto';
import type { PosAnswer as Answer, PosHttp } from '../../pos/check/http.ts';
import { isObject, type Json } from '../../pos/check/shapes.ts';
import type { Outcome } from '../../pos/check/context.ts';
import { readSlot, type SlotRead } from './shapes.ts';

export type { Answer, Outcome };

export interface MadeBooking { id: string; key: string; body: Json; startSec: number }

export interface RmsCheckContext {
  http: PosHttp;
  venue: string;
  runId: string;
  /** The venue's IANA zone when given (--timezone): then slot dates are checked exactly. */
  timezone?: string;
  /** Sent on creates when the only open slots ask for a card or deposit. */
  paymentToken?: string;
  /** First date tried is today + daysAhead (so cancellation windows are not in the way). */
  daysAhead: number;
  partySize: number;
  /** Venue-local date with bookable slots, and its slots (those shown to lie outside it removed). */
  date?: string;
  slots: SlotRead[];
  /** The booking made by booking-create, moved by booking-update, cancelled by cancel. */
  booking?: MadeBooking;
  /** Every booking id the kit created, for cleanup. */
  created: Set<string>;
  /** Bookings known to be cancelled. */
  cancelled: Set<string>;
  statuses: Array<{ where: string; status: unknown }>;
  refusals: Array<{ where: string; answer: Answer }>;
}

export function newContext(http: PosHttp, opts: { venue: string; timezone?: string; paymentToken?: string; daysAhead?: number }): RmsCheckContext {
  return {
    http, venue: opts.venue, runId: randomBytes(4).toString('hex'), timezone: opts.timezone, paymentToken: opts.paymentToken,
    daysAhead: opts.daysAhead ?? 7, partySize: 2, slots: [], created: new Set(), cancelled: new Set(), statuses: [], refusals: [],
  };
}

export interface RmsRule {
  id: string;
  title: string;
  run(ctx: RmsCheckContext): Promise<Outcome>;
}

const enc = encodeURIComponent;
export const qs = (params: Record<string, string | number>) =>
  Object.entries(params).map(([k, v]) => `${enc(k)}=${enc(String(v))}`).join('&');

export function availabilityOf(ctx: RmsCheckContext, date: string, partySize = ctx.partySize): Promise<Answer> {
  return ctx.http.get(`/availability?${qs({ venueId: ctx.venue, date, partySize })}`);
}

/** Slots of an availability answer, read leniently (empty when the answer is not usable). */
export function slotsOf(answer: Answer): SlotRead[] {
  if (answer.status !== 200 || !isObject(answer.json) || !Array.isArray(answer.json.slotData)) return [];
  return answer.json.slotData.filter(isObject).map(readSlot).filter((s): s is SlotRead => s !== undefined);
}

/** A slot the kit may book: open, and asking no payment unless a token was given. */
export const usable = (ctx: RmsCheckContext) => (s: SlotRead) =>
  s.openSpots > 0 && (ctx.paymentToken !== undefined || (!s.deposit && !s.requiresCc));

/** Today's date in the venue's zone when known, else in UTC, plus `days`. */
export function dateFromToday(ctx: RmsCheckContext, days: number): string {
  const now = Date.now() + days * 86_400_000;
  if (!ctx.timezone) return new Date(now).toISOString().slice(0, 10);
  return new Intl.DateTimeFormat('en-CA', { timeZone: ctx.timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

export function shiftDate(date: string, days: number): string {
  const t = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

export const isoOf = (sec: number) => new Date(sec * 1000).toISOString();

let counter = 0;

/** The body of a booking the kit makes; recognisable by its name, email and notes. */
export function bookingBody(ctx: RmsCheckContext, startSec: number, partySize = ctx.partySize): Json {
  return {
    venueId: ctx.venue,
    bookingChannel: { id: 'rms-check', name: 'Tableside rms-check' },
    partySize,
    date: isoOf(startSec),
    contact: {
      firstname: 'Rms',
      lastname: `Check ${ctx.runId}`,
      email: `rms-check+${ctx.runId}@example.com`,
      telephone: phoneOf(ctx),
      locale: 'en-GB',
    },
    notes: `Test booking by tableside rms-check run ${ctx.runId}; cancelled by the kit.`,
    ...(ctx.paymentToken !== undefined ? { paymentToken: ctx.paymentToken } : {}),
  };
}

/** A phone number unique to the run (the fictional UK drama range 020 7946 0xxx, plus run digits). */
export function phoneOf(ctx: RmsCheckContext): string {
  return `+44 20 7946 ${String(parseInt(ctx.runId, 16) % 10_000).padStart(4, '0')}`;
}

/** POST /booking under a fresh key (or the one given); created ids are remembered for cleanup. */
export async function createBooking(ctx: RmsCheckContext, body: Json, key = `rms-check-${ctx.runId}-${++counter}`): Promise<{ answer: Answer; key: string; id?: string }> {
  const answer = await ctx.http.call('POST', '/booking', { body, headers: { 'idempotency-key': key } });
  note402(ctx, `POST /booking (${key})`, answer);
  if (answer.status >= 200 && answer.status < 300 && isObject(answer.json)) {
    ctx.statuses.push({ where: `POST /booking (${key})`, status: answer.json.status });
    const id = answer.json.id;
    if (typeof id === 'string' && id !== '') {
      ctx.created.add(id);
      return { answer, key, id };
    }
  }
  return { answer, key };
}

export function note402(ctx: RmsCheckContext, where: string, answer: Answer): void {
  if (answer.status === 402) ctx.refusals.push({ where, answer });
}

export const bookingPath = (id: string) => `/booking/${enc(id)}`;

export async function readBooking(ctx: RmsCheckContext, id: string): Promise<Answer> {
  const answer = await ctx.http.get(bookingPath(id));
  if (answer.status === 200 && isObject(answer.json)) ctx.statuses.push({ where: `GET /booking/${id}`, status: answer.json.status });
  return answer;
}

export async function cancelBooking(ctx: RmsCheckContext, id: string): Promise<Answer> {
  const answer = await ctx.http.call('PUT', `${bookingPath(id)}/cancel`, { body: { cancelActor: 'guest', cancelReason: `rms-check run ${ctx.runId}` } });
  note402(ctx, `PUT /booking/${id}/cancel`, answer);
  if (answer.status >= 200 && answer.status < 300 && isObject(answer.json)) {
    ctx.statuses.push({ where: `PUT /booking/${id}/cancel`, status: answer.json.status });
  }
  return answer;
}
