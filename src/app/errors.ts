import { AppError } from '../lib/errors.ts';
import { PosError } from '../pos/pos-client.ts';
import { RmsError } from '../rms/rms-client.ts';
import type { ErrorMapping } from '../server/errors.ts';

// What the modules' own errors mean over HTTP, for the errors a module lets reach a route on
// purpose. The platform's error handler applies these before its own rules.

export const ERROR_MAPPINGS: readonly ErrorMapping[] = [
  // A POS that failed while a request needed it (a live bill, say) is a bad gateway, not our 500.
  (err) => (err instanceof PosError ? new AppError('bad_gateway', "The venue's POS could not be read just now; try again shortly.") : null),
  // An RMS failure that reaches a route unmapped is the RMS's, never our 500 (features map refusals themselves).
  (err) => (err instanceof RmsError ? new AppError('bad_gateway', `The reservation system could not complete the call: ${err.message}`) : null),
];
