// A venue's configuration from control-API input: defaults for what is not given, the fields given
// replacing the previous ones, and the checks a schema cannot express (references between tables,
// combinations and areas; min <= max; opening periods; deposits in the currency's decimals).

import { toMinor } from '../../pos-simulator/src/money.ts';
import { isValidTimeZone } from '../../pos-simulator/src/time.ts';
import type { VenueInput } from './control.schemas.ts';
import { WEEKDAYS, type Period, type VenueConfig, type Weekday } from './types.ts';
import { parseHhMm } from './zoned.fns.ts';

const LUNCH_AND_DINNER: Period[] = [{ open: '12:00', close: '15:00' }, { open: '18:00', close: '22:00' }];

export function defaultVenue(id: string): VenueConfig {
  return {
    id,
    name: id,
    timezone: 'Europe/London',
    currency: 'GBP',
    company: { minAdvanceBooking: 0, minAdvanceBookingCancelling: 0 },
    minCovers: 1,
    maxCovers: 10,
    areas: [],
    tables: [],
    combinations: [],
    hours: Object.fromEntries(WEEKDAYS.map((d) => [d, LUNCH_AND_DINNER])) as Record<Weekday, Period[]>,
    slotIntervalMinutes: 15,
    turnTimes: [{ maxPartySize: 2, minutes: 90 }, { maxPartySize: 4, minutes: 105 }],
    defaultTurnMinutes: 120,
    pacing: { maxCoversPerSlot: null, maxBookingsPerSlot: null },
    paymentDefinition: { requireCreditCard: false, deposit: null },
    autoConfirm: true,
  };
}

/** The new configuration, or the problems found, keyed by field (e.g. `tables[2].maxCovers`). */
export function applyVenueInput(base: VenueConfig, input: VenueInput): { venue: VenueConfig } | { problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const venue: VenueConfig = {
    ...base,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
    ...(input.currency !== undefined ? { currency: input.currency } : {}),
    company: { ...base.company, ...input.company },
    ...(input.minCovers !== undefined ? { minCovers: input.minCovers } : {}),
    ...(input.maxCovers !== undefined ? { maxCovers: input.maxCovers } : {}),
    ...(input.areas !== undefined ? { areas: input.areas } : {}),
    ...(input.tables !== undefined
      ? { tables: input.tables.map((t) => ({ id: t.id, name: t.name ?? t.id, minCovers: t.minCovers, maxCovers: t.maxCovers, areaId: t.areaId ?? null, posTableId: t.posTableId ?? null })) }
      : {}),
    ...(input.combinations !== undefined ? { combinations: input.combinations.map((c) => ({ ...c, tables: [...c.tables] })) } : {}),
    hours: input.hours !== undefined
      ? (Object.fromEntries(WEEKDAYS.map((d) => [d, input.hours?.[d] ?? []])) as Record<Weekday, Period[]>)
      : base.hours,
    ...(input.slotIntervalMinutes !== undefined ? { slotIntervalMinutes: input.slotIntervalMinutes } : {}),
    ...(input.turnTimes !== undefined ? { turnTimes: [...input.turnTimes].sort((a, b) => a.maxPartySize - b.maxPartySize) } : {}),
    ...(input.defaultTurnMinutes !== undefined ? { defaultTurnMinutes: input.defaultTurnMinutes } : {}),
    pacing: { ...base.pacing, ...input.pacing },
    paymentDefinition: { ...base.paymentDefinition, ...input.paymentDefinition },
    ...(input.autoConfirm !== undefined ? { autoConfirm: input.autoConfirm } : {}),
  };

  if (!isValidTimeZone(venue.timezone)) problems.timezone = `${venue.timezone} is not an IANA time zone`;
  if (venue.minCovers > venue.maxCovers) problems.minCovers = 'minCovers is greater than maxCovers';
  const areaIds = new Set(venue.areas.map((a) => a.id));
  if (areaIds.size !== venue.areas.length) problems.areas = 'area ids must be unique';
  const tableIds = new Set<string>();
  venue.tables.forEach((t, i) => {
    if (tableIds.has(t.id)) problems[`tables[${i}].id`] = `table id ${t.id} is not unique`;
    tableIds.add(t.id);
    if (t.minCovers > t.maxCovers) problems[`tables[${i}].minCovers`] = 'minCovers is greater than maxCovers';
    if (t.areaId !== null && !areaIds.has(t.areaId)) problems[`tables[${i}].areaId`] = `no area ${t.areaId}`;
  });
  venue.combinations.forEach((c, i) => {
    const unknown = c.tables.filter((t) => !tableIds.has(t));
    if (unknown.length > 0) problems[`combinations[${i}].tables`] = `unknown tables ${unknown.join(', ')}`;
    if (new Set(c.tables).size !== c.tables.length) problems[`combinations[${i}].tables`] = 'a table appears twice';
    if (c.minCovers > c.maxCovers) problems[`combinations[${i}].minCovers`] = 'minCovers is greater than maxCovers';
  });
  for (const day of WEEKDAYS) {
    venue.hours[day].forEach((p, i) => {
      const open = parseHhMm(p.open);
      const close = parseHhMm(p.close);
      if (open === null || close === null || open >= close) problems[`hours.${day}[${i}]`] = 'open must be before close, both HH:MM (close may be 24:00)';
    });
  }
  const deposit = venue.paymentDefinition.deposit;
  if (deposit && toMinor(deposit.amount, venue.currency) === null) {
    problems['paymentDefinition.deposit.amount'] = `${deposit.amount} has more decimals than ${venue.currency} allows`;
  }
  return Object.keys(problems).length > 0 ? { problems } : { venue };
}
