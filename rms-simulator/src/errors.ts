// One error type for the simulator: a status and the envelope {error:{code,message,details?}}.
// Services throw it; the error handler in server.ts answers it, so every refusal is JSON.

import type { RmsErrorCode } from './types.ts';

export class RmsError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  get body(): { error: { code: string; message: string; details?: Record<string, unknown> } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** A business failure of DESIGN 8.2: 402 with one of the eight codes. */
export const refused = (code: RmsErrorCode, message: string) => new RmsError(402, code, message);
export const notFound = (what: string) => new RmsError(404, 'not_found', `${what} not found`);
export const badRequest = (message: string, details?: Record<string, unknown>) => new RmsError(400, 'invalid_request', message, details);
export const conflict = (code: string, message: string) => new RmsError(409, code, message);
