import type { RmsErrorKind } from './rms-client.ts';

// What a booking-services call says of the RMS's health (DESIGN 8.1, `lastHealthCheck`): pure rules,
// tested without a database or an RMS.

/** The contract's calls, by the client's method names, as the contract names them. */
export const CONTRACT_CALLS: Readonly<Record<string, string>> = {
  healthcheck: 'GET /healthcheck',
  availability: 'GET /availability',
  createBooking: 'POST /booking',
  getBooking: 'GET /booking/{id}',
  updateBooking: 'PUT /booking/{id}',
  cancelBooking: 'PUT /booking/{id}/cancel',
  searchBookings: 'GET /bookings/search',
};

export interface HealthNote { ok: boolean; message: string }

/** The longest message `lastHealthCheck` carries (its schema's limit). */
export const MAX_HEALTH_MESSAGE = 500;

/**
 * What a call's outcome says of the RMS: `failure` null = it answered. Unreachable, timed out, a
 * 5xx or the key refused (401/403) say it is unwell; any answer of the contract (a 402 refusal, a
 * 404, a 409 included) says it is up and takes the key. A timeout of availability says nothing: its
 * 1 s is Tableside's own budget, past which the snapshot answers. An answer that breaks the
 * contract, and no call at all (not connected), say nothing either.
 */
export function healthOf(call: string, failure: { kind: RmsErrorKind; status?: number; message: string } | null): HealthNote | null {
  const name = CONTRACT_CALLS[call] ?? call;
  if (failure === null) return { ok: true, message: `${name} answered` };
  const status = failure.status ?? 0;
  const unwell =
    failure.kind === 'unreachable' ||
    (failure.kind === 'timeout' && call !== 'availability') ||
    (failure.kind === 'status' && (status >= 500 || status === 401 || status === 403));
  if (unwell) return { ok: false, message: failure.message.slice(0, MAX_HEALTH_MESSAGE) };
  if (failure.kind === 'refused' || failure.kind === 'invalid' || failure.kind === 'conflict' || failure.kind === 'not_found') return { ok: true, message: `${name} answered` };
  return null;
}
