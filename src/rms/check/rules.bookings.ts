// Rules on making, reading, changing, finding and cancelling a booking, and on the 402 answers
// (DESIGN 8.2, BKG-11 and DES-105 seen from outside).

import { fail, pass, skip } from '../../pos/check/context.ts';
import { describe } from '../../pos/check/http.ts';
import { isObject } from '../../pos/check/shapes.ts';
import {
  availabilityOf, bookingBody, bookingPath, cancelBooking, createBooking, isoOf, note402, phoneOf, qs, readBooking,
  shiftDate, slotsOf, usable, type RmsCheckContext, type RmsRule,
} from './context.ts';
import { BOOKING_STATUSES, bookingProblems, envelopeProblems, instantSec, isStatus, refusalCode } from './shapes.ts';

const ok2xx = (status: number) => status >= 200 && status < 300;
const show = (v: unknown) => JSON.stringify(v) ?? 'undefined';
/** A booking date as epoch ms: Unix seconds, or any string Date.parse reads (NaN otherwise). */
const msOf = (v: unknown) => (typeof v === 'number' ? v * 1000 : typeof v === 'string' ? Date.parse(v) : Number.NaN);

export const bookingCreate: RmsRule = {
  id: 'booking-create',
  title: 'POST /booking of a listed open slot succeeds with {id, status} (a slot offered is bookable)',
  async run(ctx) {
    const slot = ctx.slots.find(usable(ctx));
    if (!ctx.date || !slot) return skip('no bookable slot (availability-shape)');
    const body = bookingBody(ctx, slot.startSec);
    const { answer, key, id } = await createBooking(ctx, body);
    const at = `${isoOf(slot.startSec)} (openSpots ${slot.openSpots})`;
    if (answer.status === 402) return fail(`slot ${at} was listed open, but POST /booking answered ${describe(answer)}`);
    if (!ok2xx(answer.status) || !isObject(answer.json)) return fail(`POST /booking for ${at} answered ${describe(answer)}`);
    const problems: string[] = [];
    if (!id) problems.push(`id should be a non-empty string, is ${show(answer.json.id)}`);
    if (!isStatus(answer.json.status)) problems.push(`status should be one of ${BOOKING_STATUSES.join(', ')}, is ${show(answer.json.status)}`);
    if (id) ctx.booking = { id, key, body, startSec: slot.startSec };
    if (problems.length > 0) return fail(problems.join('; '));
    return pass(`booked ${ctx.partySize} at ${at}: ${answer.status} ${answer.text}`);
  },
};

export const bookingRead: RmsRule = {
  id: 'booking-read',
  title: 'GET /booking/{id} answers the booking with every contract field and type, as it was made; an unknown id is 404',
  async run(ctx) {
    const made = ctx.booking;
    if (!made) return skip('no booking was made (booking-create)');
    const answer = await readBooking(ctx, made.id);
    if (answer.status !== 200) return fail(`GET /booking/${made.id} answered ${describe(answer)}`);
    const b = answer.json;
    const problems = bookingProblems(b, `booking ${made.id}`);
    if (isObject(b)) {
      const sent = made.body.contact as Record<string, unknown>;
      if (b.id !== made.id) problems.push(`id is ${show(b.id)}, not ${made.id}`);
      if (b.venueId !== ctx.venue) problems.push(`venueId is ${show(b.venueId)}, not ${ctx.venue}`);
      if (b.partySize !== made.body.partySize) problems.push(`partySize is ${show(b.partySize)}, ${show(made.body.partySize)} was booked`);
      const start = instantSec(b.date);
      if (start !== undefined && start !== made.startSec) problems.push(`date ${show(b.date)} is not the slot booked (${isoOf(made.startSec)})`);
      if (isObject(b.contact)) {
        for (const k of ['firstname', 'lastname', 'email', 'telephone']) {
          if (typeof b.contact[k] === 'string' && b.contact[k] !== sent[k]) problems.push(`contact.${k} is ${show(b.contact[k])}, ${show(sent[k])} was sent`);
        }
      }
    }
    const unknown = await ctx.http.get(bookingPath(`rms-check-${ctx.runId}-never-made`));
    if (unknown.status !== 404) problems.push(`an unknown booking id answered ${describe(unknown)}, expected 404`);
    if (problems.length > 0) return fail(problems.slice(0, 6).join('; '));
    return pass(`${answer.text.slice(0, 160)}${answer.text.length > 160 ? '…' : ''}; unknown id → 404`);
  },
};

export const createIdempotent: RmsRule = {
  id: 'create-idempotent',
  title: 'POST /booking again with the same Idempotency-Key and body answers the same booking; another body under that key is 409',
  async run(ctx) {
    const made = ctx.booking;
    if (!made) return skip('no booking was made (booking-create)');
    const replay = await createBooking(ctx, made.body, made.key);
    const problems: string[] = [];
    if (!ok2xx(replay.answer.status)) problems.push(`the replay answered ${describe(replay.answer)}`);
    else if (replay.id !== made.id) problems.push(`the replay answered booking ${show(replay.id)}, not ${made.id}: a second booking was made`);
    const other = await createBooking(ctx, { ...made.body, partySize: (made.body.partySize as number) + 1 }, made.key);
    if (other.answer.status !== 409) {
      problems.push(`another body under the same key answered ${describe(other.answer)}, expected 409${other.id && other.id !== made.id ? ` (it made booking ${other.id})` : ''}`);
    }
    if (problems.length > 0) return fail(problems.join('; '));
    return pass(`replay → ${replay.answer.status} same id ${made.id}; other body → 409`);
  },
};

export const bookingUpdate: RmsRule = {
  id: 'booking-update',
  title: 'PUT /booking/{id} moves the booking to another open slot and changes its party size; GET shows the change',
  async run(ctx) {
    const made = ctx.booking;
    if (!made || !ctx.date) return skip('no booking was made (booking-create)');
    const target = ctx.slots.find((s) => usable(ctx)(s) && s.startSec !== made.startSec);
    if (!target) return skip(`no second open slot on ${ctx.date} to move the booking to`);
    const before = await readBooking(ctx, made.id);
    const beforeDate = isObject(before.json) ? before.json.date : undefined;
    const moved = await ctx.http.call('PUT', bookingPath(made.id), { body: { date: isoOf(target.startSec) } });
    note402(ctx, `PUT /booking/${made.id}`, moved);
    if (!ok2xx(moved.status)) return fail(`PUT {date: ${isoOf(target.startSec)}} (listed open) answered ${describe(moved)}`);
    if (isObject(moved.json)) ctx.statuses.push({ where: `PUT /booking/${made.id}`, status: moved.json.status });
    const after = await readBooking(ctx, made.id);
    const afterDate = isObject(after.json) ? after.json.date : undefined;
    // Compared as a difference, so a date without an offset is judged by booking-read, not here.
    const delta = (msOf(afterDate) - msOf(beforeDate)) / 1000;
    if (delta !== target.startSec - made.startSec) {
      return fail(`PUT {date: ${isoOf(target.startSec)}} answered ${describe(moved)}, but GET shows date ${show(afterDate)} (was ${show(beforeDate)})`);
    }
    made.startSec = target.startSec;
    made.body = { ...made.body, date: isoOf(target.startSec) };

    const bigger = made.body.partySize as number + 1;
    const forBigger = slotsOf(await availabilityOf(ctx, ctx.date, bigger)).find((s) => s.startSec === target.startSec);
    if (!forBigger || !usable(ctx)(forBigger)) return pass(`moved to ${isoOf(target.startSec)}; party size change not tried (no open slot for ${bigger} then)`);
    const grown = await ctx.http.call('PUT', bookingPath(made.id), { body: { partySize: bigger } });
    note402(ctx, `PUT /booking/${made.id}`, grown);
    if (!ok2xx(grown.status)) return fail(`moved; then PUT {partySize: ${bigger}} (listed open for ${bigger}) answered ${describe(grown)}`);
    const read = await readBooking(ctx, made.id);
    if (!isObject(read.json) || read.json.partySize !== bigger) return fail(`PUT {partySize: ${bigger}} answered ${describe(grown)}, but GET shows partySize ${show(isObject(read.json) ? read.json.partySize : undefined)}`);
    made.body = { ...made.body, partySize: bigger };
    return pass(`moved to ${isoOf(target.startSec)} and to ${bigger} guests; GET shows both`);
  },
};

export const search: RmsRule = {
  id: 'search',
  title: 'GET /bookings/search finds the booking by date window with email or phone, and not outside the window',
  async run(ctx) {
    const made = ctx.booking;
    if (!made || !ctx.date) return skip('no booking was made (booking-create)');
    const email = (made.body.contact as Record<string, string>).email;
    const find = (startDate: string, endDate: string, extra: Record<string, string>) =>
      ctx.http.get(`/bookings/search?${qs({ venueId: ctx.venue, startDate, endDate, ...extra })}`);
    const problems: string[] = [];
    const ids = (answer: Awaited<ReturnType<typeof find>>, label: string): string[] | undefined => {
      if (answer.status !== 200 || !isObject(answer.json) || !Array.isArray(answer.json.data)) {
        problems.push(`${label} answered ${describe(answer)}, expected 200 {total, data}`);
        return undefined;
      }
      const { total, data } = answer.json;
      if (!Number.isInteger(total) || (total as number) < data.length) problems.push(`${label}: total ${show(total)} with ${data.length} items`);
      data.forEach((b, i) => {
        if (!isObject(b) || typeof b.id !== 'string') problems.push(`${label}: item ${i} has no id`);
        else ctx.statuses.push({ where: `search item ${b.id}`, status: b.status });
      });
      return data.filter(isObject).map((b) => String(b.id));
    };
    const byEmail = ids(await find(ctx.date, ctx.date, { email }), `search ${ctx.date} by email`);
    if (byEmail && !byEmail.includes(made.id)) problems.push(`search ${ctx.date}..${ctx.date} by email does not list booking ${made.id}`);
    const byPhone = ids(await find(ctx.date, ctx.date, { phoneNumber: phoneOf(ctx) }), `search ${ctx.date} by phone`);
    if (byPhone && !byPhone.includes(made.id)) problems.push(`search ${ctx.date}..${ctx.date} by phoneNumber does not list booking ${made.id}`);
    for (const [from, to] of [[shiftDate(ctx.date, 2), shiftDate(ctx.date, 4)], [shiftDate(ctx.date, -4), shiftDate(ctx.date, -2)]]) {
      const outside = ids(await find(from, to, { email }), `search ${from}..${to}`);
      if (outside?.includes(made.id)) problems.push(`search ${from}..${to} lists booking ${made.id} of ${ctx.date}: the dates are not applied`);
    }
    if (problems.length > 0) return fail(problems.join('; '));
    return pass(`found by email and by phone on ${ctx.date}; absent from the windows two days either side`);
  },
};

/** The most bookings the kit makes to fill one slot (a bigger slot is not exhausted: skip). */
const FILL_LIMIT = 8;

export const fullSlotRefused: RmsRule = {
  id: 'full-slot-refused',
  title: 'A slot booked up to its openSpots shows 0 open spots and refuses one more booking with 402 slot_unavailable',
  async run(ctx) {
    if (!ctx.date) return skip('no date with slots (availability-shape)');
    const fresh = slotsOf(await availabilityOf(ctx, ctx.date)).filter(usable(ctx)).filter((s) => ctx.slots.some((k) => k.startSec === s.startSec));
    const slot = fresh.filter((s) => s.openSpots <= FILL_LIMIT).sort((a, b) => a.openSpots - b.openSpots)[0];
    if (!slot) return skip(`every open slot on ${ctx.date} has more than ${FILL_LIMIT} open spots for ${ctx.partySize}: not filled, to spare the venue`);
    const at = isoOf(slot.startSec);
    for (let made = 0; made < FILL_LIMIT; made++) {
      const now = slotsOf(await availabilityOf(ctx, ctx.date)).find((s) => s.startSec === slot.startSec);
      if (!now || now.openSpots <= 0) break;
      const { answer } = await createBooking(ctx, bookingBody(ctx, slot.startSec));
      if (!ok2xx(answer.status)) return fail(`booking ${made + 1} at ${at} (openSpots ${now.openSpots}) answered ${describe(answer)}`);
    }
    const left = slotsOf(await availabilityOf(ctx, ctx.date)).find((s) => s.startSec === slot.startSec);
    if (left && left.openSpots > 0) return skip(`${at} still shows ${left.openSpots} open spots after ${FILL_LIMIT} bookings`);
    const extra = await createBooking(ctx, bookingBody(ctx, slot.startSec));
    if (ok2xx(extra.answer.status)) return fail(`${at} showed 0 open spots, yet one more booking was accepted: ${describe(extra.answer)}`);
    const code = refusalCode(extra.answer.json);
    if (extra.answer.status !== 402 || code !== 'slot_unavailable') return fail(`one more booking at the full slot ${at} answered ${describe(extra.answer)}, expected 402 slot_unavailable`);
    return pass(`filled ${at} (openSpots ${slot.openSpots} → 0); one more → 402 slot_unavailable`);
  },
};

export const cancel: RmsRule = {
  id: 'cancel',
  title: 'PUT /booking/{id}/cancel answers {id, status: "canceled"}, GET shows canceled, and a second cancel is 402 booking_already_cancelled',
  async run(ctx) {
    const made = ctx.booking;
    if (!made) return skip('no booking was made (booking-create)');
    const first = await cancelBooking(ctx, made.id);
    if (!ok2xx(first.status)) return fail(`PUT /booking/${made.id}/cancel answered ${describe(first)}`);
    ctx.cancelled.add(made.id);
    const problems: string[] = [];
    if (!isObject(first.json) || first.json.status !== 'canceled') problems.push(`cancel answered ${describe(first)}, expected status "canceled"`);
    const read = await readBooking(ctx, made.id);
    if (!isObject(read.json) || read.json.status !== 'canceled') problems.push(`GET after cancel answered ${describe(read)}, expected status "canceled"`);
    const second = await cancelBooking(ctx, made.id);
    if (second.status !== 402 || refusalCode(second.json) !== 'booking_already_cancelled') {
      problems.push(`a second cancel answered ${describe(second)}, expected 402 booking_already_cancelled`);
    }
    if (problems.length > 0) return fail(problems.join('; '));
    return pass(`cancel → ${describe(first)}; GET → canceled; again → 402 booking_already_cancelled`);
  },
};

export const errorEnvelope: RmsRule = {
  id: 'error-envelope',
  title: 'Business failures are 402 {"error": {"code": <one of the eight 8.2 codes>, "message"}}',
  async run(ctx) {
    const slot = ctx.slots.find(usable(ctx)) ?? ctx.slots[0];
    if (slot) await createBooking(ctx, bookingBody(ctx, slot.startSec, 999));
    if (ctx.refusals.length === 0) return skip('no business failure was provoked (a party of 999 was accepted)');
    const problems = ctx.refusals.flatMap((r) => envelopeProblems(r.answer.json).map((p) => `${r.where}: ${p}`));
    if (problems.length > 0) return fail(problems.slice(0, 4).join('; '));
    const codes = [...new Set(ctx.refusals.map((r) => refusalCode(r.answer.json)))];
    return pass(`${ctx.refusals.length} 402 answers, codes ${codes.join(', ')}, all in the envelope`);
  },
};

export const statusValues: RmsRule = {
  id: 'status-values',
  title: `Every booking status answered is one of the eight: ${BOOKING_STATUSES.join(', ')}`,
  async run(ctx) {
    if (ctx.statuses.length === 0) return skip('no booking status was seen');
    const bad = ctx.statuses.filter((s) => !isStatus(s.status));
    if (bad.length > 0) return fail(bad.slice(0, 4).map((s) => `${s.where}: ${show(s.status)}`).join('; '));
    return pass(`${ctx.statuses.length} statuses seen: ${[...new Set(ctx.statuses.map((s) => s.status))].join(', ')}`);
  },
};

export const cleanup: RmsRule = {
  id: 'cleanup',
  title: 'Every booking the kit made can be cancelled (the kit leaves none behind)',
  async run(ctx: RmsCheckContext) {
    const open = [...ctx.created].filter((id) => !ctx.cancelled.has(id));
    if (open.length === 0) return ctx.created.size === 0 ? skip('the kit made no booking') : pass(`all ${ctx.created.size} bookings made were already cancelled`);
    const left: string[] = [];
    for (const id of open) {
      const answer = await cancelBooking(ctx, id);
      if (ok2xx(answer.status) || refusalCode(answer.json) === 'booking_already_cancelled') ctx.cancelled.add(id);
      else left.push(`${id} (${describe(answer)})`);
    }
    if (left.length > 0) return fail(`could not cancel ${left.length} of the kit's bookings: ${left.join('; ')}`);
    return pass(`cancelled the ${open.length} remaining bookings of ${ctx.created.size} made`);
  },
};
