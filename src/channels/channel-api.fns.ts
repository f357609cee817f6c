import { createHash } from 'node:crypto';
import { canonicalJson } from '../lib/canonical-json.ts';
import { toWire } from '../lib/money.ts';
import type { RmsContact, Slot } from '../rms/rms-client.fns.ts';

// Pure rules of the channel API (DESIGN 8.4a), tested without a database: which slots a channel is
// offered, money as the venue's decimal, the notes sent to the RMS and the idempotency fingerprint.

/** Slots starting at least `minAdvanceS` seconds after `now` (the company's minAdvanceBooking). */
export function bookableSlots(slots: readonly Slot[], now: Date, minAdvanceS: number): Slot[] {
  const earliest = now.getTime() + minAdvanceS * 1000;
  return slots.filter((s) => s.start.getTime() >= earliest);
}

/** Whether there is at least `minS` seconds' notice before `start`. */
export const hasNotice = (start: Date, now: Date, minS: number) => start.getTime() - now.getTime() >= minS * 1000;

/** Whether a slot can be offered at a venue: one that needs a deposit only where the venue has a currency to state it in. */
export const offerable = (slot: Slot, currency: string | null) => !slot.deposit || currency !== null;

/** An offerable slot as a channel sees it (`currency`: the venue's; a slot with a deposit needs one). */
export function slotView(slot: Slot, durationSec: number | null, currency: string | null) {
  if (slot.deposit && currency === null) throw new Error('a slot with a deposit at a venue without a currency is not offerable');
  return {
    start: slot.start.toISOString(),
    durationSec,
    openSpots: slot.openSpots,
    // 8.2's minor units become the venue's decimal (CHN-22): 1500 EUR minor is 15.00.
    deposit: slot.deposit && currency !== null ? { amount: toWire(slot.depositAmount, currency), currency } : null,
    requiresCc: slot.requiresCc,
  };
}

/** The notes sent to the RMS: the company's includeSourceInNotes adds the channel (RMS-31). */
export function notesFor(notes: string | null | undefined, channelName: string, includeSource: boolean): string | null {
  const own = notes?.trim() ? notes.trim() : null;
  if (!includeSource) return own;
  const source = `Booked via ${channelName}`;
  return own ? `${own}\n${source}` : source;
}

export interface ChannelContact { firstName: string; lastName: string; email: string; phone: string; locale?: string }

export const toRmsContact = (c: ChannelContact): RmsContact => ({
  firstname: c.firstName, lastname: c.lastName, email: c.email, telephone: c.phone, ...(c.locale ? { locale: c.locale } : {}),
});

export const fromRmsContact = (c: RmsContact): ChannelContact => ({
  firstName: c.firstname, lastName: c.lastname, email: c.email, phone: c.telephone, ...(c.locale ? { locale: c.locale } : {}),
});

/** The fingerprint of a request sent with an idempotency key: same key, other fingerprint → 409. */
export const requestFingerprint = (body: unknown) => createHash('sha256').update(canonicalJson(body)).digest('hex');

/** The idempotency key a channel's key becomes in Tableside's bookings (unique per channel). */
export const scopedKey = (channelId: string, key: string) => `channel:${channelId}:${key}`;
