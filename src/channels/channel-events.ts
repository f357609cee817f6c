import { addChannelAudience } from '../db/outbox.ts';
import { bookingView } from '../rms/bookings.fns.ts';
import type { BookingChangeListener } from '../rms/bookings.service.ts';
import { bookingOut } from './channel-api.service.ts';

// Channel webhooks (DESIGN 8.7a): every recorded change of a booking made through a channel is news
// to that channel. The change's event (written by bookings.service announce(), for the venue's RMS
// partner) gets the channel as a second audience, with the channel's own view: the booking exactly as
// GET /v1/bc/bookings/{id} answers it after the change (Tableside's ids only, decimals), plus the
// status before it and who made it. The webhooks feature delivers it to the channel's endpoints only.

/** What a channel's endpoint reads as an event's `data` (before 8.5 adds entityId and sequence). */
export function channelEventData(change: Parameters<BookingChangeListener>[1]) {
  return {
    ...bookingOut(bookingView(change.after)),
    previousStatus: change.before?.status ?? null,
    changedBy: change.changedBy,
  };
}

/** The bookings.onChange listener the composition root registers. It writes in the change's transaction only. */
export const channelWebhookListener = (): BookingChangeListener => async (tx, change) => {
  const channelId = change.after.channel?.id;
  if (!channelId) return;
  await addChannelAudience(tx, change.eventId, channelId, channelEventData(change));
};
