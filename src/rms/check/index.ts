// The RMS conformance kit (`tableside rms-check`): runs every rule of the booking-services contract
// (DESIGN 8.2) against an RMS and reports each as pass, fail or skip with what it saw. Independent
// of the rest of src/ except the POS kit's generic parts (HTTP client, rule runner, printer). It
// books, changes and cancels bookings on the venue: use a test venue.

export { RULES, runRmsCheck, type RmsCheckOptions, type RmsCheckReport } from './run.ts';
export { rmsCheckMain, type RmsCheckCliOptions } from './printer.ts';
export { localRmsSimCertFile } from './local-cert.ts';
export { BOOKING_STATUSES, ERROR_CODES } from './shapes.ts';
