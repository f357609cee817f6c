// Runs the booking-services rules in order against one RMS venue and collects the report.

import { PosHttp } from '../../pos/check/http.ts';
import { runRules, type PosCheckReport } from '../../pos/check/run.ts';
import { newContext, type RmsRule } from './context.ts';
import { authRequired, availabilityShape, healthcheck, slotsInDate } from './rules.availability.ts';
import {
  bookingCreate, bookingRead, bookingUpdate, cancel, cleanup, createIdempotent, errorEnvelope, fullSlotRefused, search, statusValues,
} from './rules.bookings.ts';
import { localRmsSimCertFile } from './local-cert.ts';

export interface RmsCheckOptions {
  baseUrl: string;
  apiKey: string;
  /** The RMS's own venue id (Tableside's venue externalId). */
  venue: string;
  /** The venue's IANA zone: slot dates are then checked exactly. */
  timezone?: string;
  /** A paymentToken your RMS accepts, for venues whose slots all ask a card or deposit. */
  paymentToken?: string;
  /** Look for slots from today + this many days (default 7), clear of cancellation windows. */
  daysAhead?: number;
  /** Extra PEM certificate to trust (besides Node's CAs and NODE_EXTRA_CA_CERTS). */
  ca?: string;
  /** Skip TLS certificate verification. */
  insecure?: boolean;
}

export type RmsCheckReport = PosCheckReport;

/**
 * Run order matters: the booking made by booking-create is read, replayed, moved and found before
 * cancel cancels it; error-envelope and status-values judge what every earlier rule saw; cleanup
 * cancels whatever the kit made and is still open. The report lists rules in this order.
 */
export const RULES: readonly RmsRule[] = [
  authRequired,
  healthcheck,
  availabilityShape,
  slotsInDate,
  bookingCreate,
  bookingRead,
  createIdempotent,
  bookingUpdate,
  search,
  fullSlotRefused,
  cancel,
  errorEnvelope,
  statusValues,
  cleanup,
];

export async function runRmsCheck(opts: RmsCheckOptions): Promise<RmsCheckReport> {
  const http = new PosHttp({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, ca: opts.ca, insecure: opts.insecure, localCertFiles: [localRmsSimCertFile()] });
  const ctx = newContext(http, opts);
  try {
    const rules = await runRules(RULES, ctx);
    return { ok: rules.every((r) => r.status !== 'fail'), rules };
  } finally {
    await http.close();
  }
}
