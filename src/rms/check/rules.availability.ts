// Rules on auth, the healthcheck and GET /availability (DESIGN 8.2, BKG-36).

import { fail, pass, skip } from '../../pos/check/context.ts';
import { describe, type AuthMode } from '../../pos/check/http.ts';
import {
  availabilityOf, bookingPath, dateFromToday, qs, shiftDate, slotsOf, usable, type Answer, type RmsRule,
} from './context.ts';
import { availabilityProblems } from './shapes.ts';

const refused = (a: Answer) => a.status === 401 || a.status === 403;

export const authRequired: RmsRule = {
  id: 'auth-required',
  title: 'Every path, /healthcheck included, refuses a missing or wrong Bearer key (401) and answers no data',
  async run(ctx) {
    const date = dateFromToday(ctx, ctx.daysAhead);
    const missing = bookingPath(`rms-check-${ctx.runId}-none`);
    const calls: Array<{ label: string; method: 'GET' | 'POST' | 'PUT'; path: string; body?: unknown }> = [
      { label: 'GET /healthcheck', method: 'GET', path: '/healthcheck' },
      { label: 'GET /availability', method: 'GET', path: `/availability?${qs({ venueId: ctx.venue, date, partySize: ctx.partySize })}` },
      // An empty body: even an RMS that forgot auth cannot create a booking from it.
      { label: 'POST /booking', method: 'POST', path: '/booking', body: {} },
      { label: 'GET /booking/{id}', method: 'GET', path: missing },
      { label: 'PUT /booking/{id}', method: 'PUT', path: missing, body: { partySize: 2 } },
      { label: 'PUT /booking/{id}/cancel', method: 'PUT', path: `${missing}/cancel`, body: {} },
      { label: 'GET /bookings/search', method: 'GET', path: `/bookings/search?${qs({ venueId: ctx.venue, startDate: date, endDate: date })}` },
    ];
    const seen: string[] = [];
    const bad: string[] = [];
    for (const c of calls) {
      for (const auth of ['none', 'wrong'] as AuthMode[]) {
        const answer = await ctx.http.call(c.method, c.path, { body: c.body, auth, headers: c.method === 'POST' ? { 'idempotency-key': `rms-check-${ctx.runId}-auth` } : {} });
        const label = `${c.label} ${auth === 'none' ? 'without a key' : 'with a wrong key'}`;
        seen.push(`${label} → ${answer.status}`);
        if (!refused(answer)) bad.push(`${label} answered ${describe(answer)}`);
      }
    }
    if (bad.length > 0) return fail(bad.join('; '));
    return pass(seen.join('; '));
  },
};

export const healthcheck: RmsRule = {
  id: 'healthcheck',
  title: 'GET /healthcheck with the key answers 200',
  async run(ctx) {
    const answer = await ctx.http.get('/healthcheck');
    return answer.status === 200 ? pass(describe(answer)) : fail(`GET /healthcheck answered ${describe(answer)}`);
  },
};

/** Days tried after today + daysAhead when looking for a date with bookable slots. */
const SEARCH_DAYS = 14;

export const availabilityShape: RmsRule = {
  id: 'availability-shape',
  title: 'GET /availability answers {venueId, date, partySize, duration, slotData:[{startSec, totalSpots, openSpots, deposit, depositAmount, requiresCc}]} with the contract types',
  async run(ctx) {
    const problems: string[] = [];
    const tried: string[] = [];
    for (let i = 0; i < SEARCH_DAYS; i++) {
      const date = dateFromToday(ctx, ctx.daysAhead + i);
      const answer = await availabilityOf(ctx, date);
      tried.push(date);
      if (answer.status !== 200) return fail(`GET /availability for ${date} answered ${describe(answer)}`);
      problems.push(...availabilityProblems(answer.json, { venueId: ctx.venue, date, partySize: ctx.partySize }));
      const slots = slotsOf(answer);
      if (slots.some(usable(ctx))) {
        ctx.date = date;
        ctx.slots = slots;
        break;
      }
    }
    if (problems.length > 0) return fail(problems.slice(0, 6).join('; ') + (problems.length > 6 ? `; … ${problems.length - 6} more` : ''));
    if (!ctx.date) {
      const why = ctx.paymentToken ? 'open' : 'open and asking no card or deposit (or pass --payment-token)';
      return fail(`no slot for ${ctx.partySize} ${why} on ${tried[0]}…${tried.at(-1)}: give the test venue availability`);
    }
    const open = ctx.slots.filter(usable(ctx));
    return pass(`${ctx.date}: ${ctx.slots.length} slots, ${open.length} bookable for ${ctx.partySize}; every field typed as the contract says`);
  },
};

export const slotsInDate: RmsRule = {
  id: 'slots-in-date',
  title: 'The slots of a date lie inside that venue-local date: each start once, none shared with or beyond the neighbouring dates',
  async run(ctx) {
    const date = ctx.date;
    if (!date) return skip('no date with slots (availability-shape)');
    const starts = ctx.slots.map((s) => s.startSec);
    const problems: string[] = [];
    const dup = starts.filter((s, i) => starts.indexOf(s) !== i);
    if (dup.length > 0) problems.push(`startSec ${dup[0]} is listed ${starts.filter((s) => s === dup[0]).length} times`);
    const outside = new Set<number>();
    if (ctx.timezone) {
      const local = new Intl.DateTimeFormat('en-CA', { timeZone: ctx.timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
      for (const s of starts) if (local.format(s * 1000) !== date) outside.add(s);
      if (outside.size > 0) problems.push(`${outside.size} slots are not on ${date} in ${ctx.timezone}, e.g. ${new Date([...outside][0] * 1000).toISOString()}`);
    } else {
      // Without the zone: every zone's day lies within [date 00:00 -14h, date+1 00:00 +12h], and the
      // slots of consecutive dates must not interleave.
      const lo = Date.parse(`${date}T00:00:00Z`) / 1000 - 14 * 3600;
      const hi = Date.parse(`${shiftDate(date, 1)}T00:00:00Z`) / 1000 + 12 * 3600;
      for (const s of starts) if (s < lo || s >= hi) outside.add(s);
      const before = slotsOf(await availabilityOf(ctx, shiftDate(date, -1))).map((s) => s.startSec);
      const after = slotsOf(await availabilityOf(ctx, shiftDate(date, 1))).map((s) => s.startSec);
      for (const s of starts) {
        if (before.includes(s)) outside.add(s);
        if (after.includes(s) || (after.length > 0 && s >= Math.min(...after))) outside.add(s);
        if (before.length > 0 && s <= Math.max(...before)) outside.add(s);
      }
      if (outside.size > 0) {
        problems.push(`${outside.size} slots of ${date} are outside it (also listed for, or later than the first slot of, ${shiftDate(date, 1)} / earlier than the last of ${shiftDate(date, -1)}), e.g. ${new Date([...outside][0] * 1000).toISOString()}`);
      }
      const span = starts.length > 1 ? Math.max(...starts) - Math.min(...starts) : 0;
      if (span >= 25 * 3600) problems.push(`the slots of ${date} span ${Math.round(span / 3600)} hours`);
    }
    // Later rules book only slots shown to be on the date.
    ctx.slots = ctx.slots.filter((s) => !outside.has(s.startSec));
    if (problems.length > 0) return fail(problems.join('; '));
    return pass(`${starts.length} slots of ${date}, ${ctx.timezone ? `all on that date in ${ctx.timezone}` : 'none shared with or beyond the neighbouring dates (pass --timezone to check the exact local date)'}`);
  },
};
