// What the service sent to each venue, so tests can assert on the calls it made (headers, bodies)
// without a proxy. Kept in memory only: it is a diagnostic, not POS state, and is not persisted.

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; undefined when the request was refused before its body was read. */
  body: unknown;
  receivedAt: string;
  /** HTTP status answered; absent while the request is unanswered (e.g. the 'hang' behaviour). */
  status?: number;
}

/** Oldest entries are dropped past this many per venue, so a long-running sandbox stays bounded. */
const MAX_PER_VENUE = 1000;

export class RequestLog {
  private readonly byVenue = new Map<string, LoggedRequest[]>();

  add(venueId: string, entry: LoggedRequest): void {
    let list = this.byVenue.get(venueId);
    if (!list) this.byVenue.set(venueId, (list = []));
    list.push(entry);
    if (list.length > MAX_PER_VENUE) list.splice(0, list.length - MAX_PER_VENUE);
  }

  list(venueId: string): LoggedRequest[] {
    return [...(this.byVenue.get(venueId) ?? [])];
  }

  clear(venueId?: string): void {
    if (venueId === undefined) this.byVenue.clear();
    else this.byVenue.delete(venueId);
  }
}
