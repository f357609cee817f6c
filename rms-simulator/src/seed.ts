// Demo data for `rms-sim`, `startRmsSimulator({ seed: true })` and the service's sandbox: three
// venues with tables, joinable combinations, opening hours and different payment rules. Made with
// the control API's calls: over HTTP by a client (`seedDemo(rms.control)`), or in-process by
// `startRmsSimulator({ seed: true })` (index.ts).

import type { RmsControlClient } from './control-client.ts';
import type { VenueInput } from './control.schemas.ts';
import { WEEKDAYS } from './types.ts';

export const DEMO_VENUE_IDS = ['rms-venue-1', 'rms-venue-2', 'rms-venue-3'] as const;

const everyDay = (periods: Array<{ open: string; close: string }>) => Object.fromEntries(WEEKDAYS.map((d) => [d, periods]));

const DEMO: VenueInput[] = [
  {
    // No payment asked, confirmed at once; the venue rms-check is pointed at in the docs.
    id: DEMO_VENUE_IDS[0], name: 'The Anchor', timezone: 'Europe/London', currency: 'GBP',
    company: { minAdvanceBooking: 3600, minAdvanceBookingCancelling: 7200 },
    minCovers: 1, maxCovers: 10,
    areas: [{ id: 'dining-room', name: 'Dining room' }, { id: 'terrace', name: 'Terrace' }],
    tables: [
      { id: 'T1', name: 'Table 1', minCovers: 1, maxCovers: 2, areaId: 'dining-room', posTableId: '201' },
      { id: 'T2', name: 'Table 2', minCovers: 1, maxCovers: 2, areaId: 'dining-room', posTableId: '202' },
      { id: 'T3', name: 'Table 3', minCovers: 1, maxCovers: 2, areaId: 'dining-room', posTableId: '203' },
      { id: 'T4', name: 'Table 4', minCovers: 2, maxCovers: 4, areaId: 'dining-room', posTableId: '204' },
      { id: 'T5', name: 'Table 5', minCovers: 2, maxCovers: 4, areaId: 'dining-room', posTableId: '205' },
      { id: 'T6', name: 'Table 6', minCovers: 2, maxCovers: 4, areaId: 'dining-room', posTableId: '206' },
      { id: 'T7', name: 'Terrace 1', minCovers: 3, maxCovers: 6, areaId: 'terrace' },
      { id: 'T8', name: 'Terrace 2', minCovers: 5, maxCovers: 8, areaId: 'terrace' },
    ],
    combinations: [
      { tables: ['T1', 'T2'], minCovers: 3, maxCovers: 4 },
      { tables: ['T2', 'T3'], minCovers: 3, maxCovers: 4 },
      { tables: ['T4', 'T5'], minCovers: 5, maxCovers: 8 },
      { tables: ['T5', 'T6'], minCovers: 5, maxCovers: 8 },
      { tables: ['T4', 'T5', 'T6'], minCovers: 8, maxCovers: 10 },
    ],
    hours: everyDay([{ open: '12:00', close: '15:00' }, { open: '18:00', close: '22:30' }]),
    slotIntervalMinutes: 15,
    turnTimes: [{ maxPartySize: 2, minutes: 90 }, { maxPartySize: 4, minutes: 105 }, { maxPartySize: 6, minutes: 120 }],
    defaultTurnMinutes: 150,
    pacing: { maxCoversPerSlot: 16, maxBookingsPerSlot: 4 },
    paymentDefinition: { requireCreditCard: false, deposit: null },
    autoConfirm: true,
  },
  {
    // A £10 deposit per booking and a card guarantee; staff confirm each booking.
    id: DEMO_VENUE_IDS[1], name: 'Harbour Room', timezone: 'Europe/London', currency: 'GBP',
    company: { minAdvanceBooking: 7200, minAdvanceBookingCancelling: 86_400 },
    minCovers: 2, maxCovers: 8,
    tables: [
      { id: 'H1', minCovers: 2, maxCovers: 4 },
      { id: 'H2', minCovers: 2, maxCovers: 4 },
      { id: 'H3', minCovers: 2, maxCovers: 4 },
      { id: 'H4', minCovers: 4, maxCovers: 6 },
    ],
    combinations: [{ tables: ['H1', 'H2'], minCovers: 5, maxCovers: 8 }],
    hours: everyDay([{ open: '17:30', close: '22:00' }]),
    slotIntervalMinutes: 30,
    turnTimes: [{ maxPartySize: 4, minutes: 120 }],
    defaultTurnMinutes: 150,
    pacing: { maxCoversPerSlot: 12, maxBookingsPerSlot: 3 },
    paymentDefinition: { requireCreditCard: true, deposit: { type: 'fixed_price', amount: 10 } },
    autoConfirm: false,
  },
  {
    // New York: a card guarantee (no deposit); lunch through late dinner.
    id: DEMO_VENUE_IDS[2], name: 'Hudson Grill', timezone: 'America/New_York', currency: 'USD',
    company: { minAdvanceBooking: 1800, minAdvanceBookingCancelling: 3600 },
    minCovers: 1, maxCovers: 12,
    tables: [
      { id: 'N1', minCovers: 1, maxCovers: 2 },
      { id: 'N2', minCovers: 1, maxCovers: 2 },
      { id: 'N3', minCovers: 2, maxCovers: 4 },
      { id: 'N4', minCovers: 2, maxCovers: 4 },
      { id: 'N5', minCovers: 4, maxCovers: 6 },
      { id: 'N6', minCovers: 6, maxCovers: 12 },
    ],
    combinations: [{ tables: ['N3', 'N4'], minCovers: 5, maxCovers: 8 }],
    hours: everyDay([{ open: '11:30', close: '23:00' }]),
    slotIntervalMinutes: 30,
    turnTimes: [{ maxPartySize: 2, minutes: 75 }, { maxPartySize: 6, minutes: 105 }],
    defaultTurnMinutes: 150,
    pacing: { maxCoversPerSlot: 24, maxBookingsPerSlot: 6 },
    paymentDefinition: { requireCreditCard: true, deposit: null },
    autoConfirm: true,
  },
];

/** The control API's calls the seeding makes. */
export type DemoControl = Pick<RmsControlClient, 'listVenues' | 'createVenue'>;

/** Creates the demo venues that do not exist yet (safe to call on a restored state file). */
export async function seedDemo(control: DemoControl): Promise<void> {
  const existing = new Set((await control.listVenues()).map((v) => v.id));
  for (const venue of DEMO) if (!existing.has(venue.id ?? '')) await control.createVenue(venue);
}
