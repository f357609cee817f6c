// Bearer API-key check shared by the contract and the control API.

import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison of `Authorization: Bearer <key>` against the simulator's key. */
export function bearerMatches(header: string | undefined, apiKey: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? '');
  return m !== null && timingSafeEqual(digest(m[1]), digest(apiKey));
}

export const UNAUTHORIZED_BODY = { error: 'unauthorized', message: 'missing or invalid Authorization: Bearer <API_KEY>' };
