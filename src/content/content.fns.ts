import { AppError } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { Page } from '../lib/pagination.ts';

// Small pure helpers shared by the content services.

/** The read-only install link of a company, brand or venue (spec 2.2-2.4): generated, never accepted. */
export function installLink(publicBaseUrl: string, kind: 'company' | 'brand' | 'venue', id: string): string {
  return `${publicBaseUrl}/install/facebook?${kind}=${encodeURIComponent(id)}`;
}

/** A path id that cannot name a stored object (ids are UUIDs) is simply not found: no database call. */
export const couldBeId = (value: string): boolean => isUuid(value);

export function pageOf(query: { offset?: number; limit?: number }): Page {
  return { offset: query.offset ?? 0, limit: query.limit ?? 10 };
}

/** `undefined` (field absent: keep) vs a value (field given: change), for partial updates. */
export function pick<T>(given: T | undefined, current: T): T {
  return given === undefined ? current : given;
}

/**
 * The distinct ids of a link/unlink body, in request order; those that are not the partner's
 * venues (another partner's, unknown, or not an id at all: they are told apart by no one) are
 * reported by their position, for a 403 that reveals nothing about other partners' venues.
 */
export function splitVenueIds(ids: readonly string[], owned: ReadonlySet<string>): { distinct: string[]; refused: Record<string, string[]> } {
  const distinct: string[] = [];
  const seen = new Set<string>();
  const refused: Record<string, string[]> = {};
  ids.forEach((id, i) => {
    const key = isUuid(id) ? id.toLowerCase() : id;
    if (!owned.has(key)) refused[`venues[${i}]`] = ['is not one of your venues'];
    else if (!seen.has(key)) {
      seen.add(key);
      distinct.push(key);
    }
  });
  return { distinct, refused };
}

/** The 403 of a link or unlink naming venues that are not the partner's; nothing was changed. */
export function notYourVenues(refused: Record<string, string[]>): AppError {
  return new AppError('forbidden', 'Some of the venues are not yours; nothing was changed.', refused);
}
