import { sql } from 'kysely';
import type { ManualClock } from '../../src/lib/clock.ts';
import type { LoggedRequest } from '../../pos-simulator/src/request-log.ts';
import type { VenueBehaviour } from '../../pos-simulator/src/index.ts';
import type { TestPartner } from './app.ts';
import type { HttpResponse } from './http.ts';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld, type PosCode } from './pat.ts';

// A seating world (DESIGN 8.3c): the pay-at-table world plus an RMS partner whose content venues
// (named by their externalId) are connected to simulator locations through the RMS's own onboarding
// link (POST /v1/rms/venues/{externalId}/pos-connection, then the onboarding form), and granted to
// the pay-at-table partner so its bill and analytics can be read.

export interface RmsVenue extends ConnectedVenue {
  externalId: string;
  timezone: string;
}

export interface SeatingWorld extends PatWorld {
  rms: TestPartner & { apiKey: string };
  /** A content venue of the RMS partner, connected to a new simulator location through the RMS onboarding link. */
  rmsVenue(opts?: { posType?: PosCode; currency?: string; timezone?: string; behaviour?: VenueBehaviour; tables?: Array<{ id: string; name: string }> }): Promise<RmsVenue>;
  /** POST /v1/rms/pos/reservations with the RMS partner's key. */
  seat(body: Record<string, unknown>, apiKey?: string): Promise<HttpResponse>;
  /** The create-order calls the POS received for a location. */
  posCreates(posVenueId: string): Promise<LoggedRequest[]>;
  /** Outbox rows of one type, oldest first. */
  events(type: string): Promise<Array<{ partner_id: string | null; venue_id: string | null; entity_id: string; data: any }>>;
  /** A booking's seating row and the run time of its retry job (null when it has none). */
  seating(bookingId: string): Promise<SeatingState>;
  /**
   * With a manual clock: moves the clock to the seating's next attempt (checking it is at most
   * 30 s away, DESIGN 8.3c) and runs the due jobs.
   */
  nextAttempt(bookingId: string): Promise<void>;
}

export interface SeatingState {
  status: string;
  order_id: string;
  pos_order_id: string | null;
  pos_outcome: string | null;
  run_at: Date | null;
}

let counter = 0;

export async function startSeatingWorld(opts: Parameters<typeof startPatWorld>[0] = {}): Promise<SeatingWorld> {
  const w = await startPatWorld(opts);
  const rms = (await w.app.newPartner(['rms'], 'RMS partner')) as TestPartner & { apiKey: string };
  const world: SeatingWorld = {
    ...w,
    rms,
    async rmsVenue(o = {}) {
      const posType = o.posType ?? POS.immediate;
      const currency = o.currency ?? 'EUR';
      const timezone = o.timezone ?? 'Europe/Madrid';
      const { posVenueId, tables } = await w.newLocation({ ...o, posType });
      const externalId = `rms-venue-${process.pid}-${++counter}`;
      const created = await w.app.http.post('/v1/rms/venues', {
        token: rms.apiKey,
        body: { externalId, name: `RMS venue ${counter}`, countryCode: 'ES', city: 'Madrid', currency, timezone },
      });
      if (created.status !== 200) throw new Error(`venue creation failed: ${created.status} ${created.text}`);
      const link = await w.app.http.post(`/v1/rms/venues/${externalId}/pos-connection`, { token: rms.apiKey, body: { posType } });
      if (link.status !== 200) throw new Error(`pos-connection failed: ${link.status} ${link.text}`);
      const url = new URL(link.body.onboarding.url);
      const form = await w.app.http.post(`${url.pathname}${url.search}`, {
        body: new URLSearchParams({ posVenueId }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      if (form.status !== 200) throw new Error(`onboarding failed: ${form.status} ${form.text}`);
      const venueId = created.body.id as string;
      await w.app.grant(w.partner.partnerId, venueId);
      const listed = await w.app.http.get(`/v1/pat/venue/${venueId}/tables`, { token: w.partner.token });
      const byName = new Map<string, string>(listed.body.tables.map((t: { id: string; name: string }) => [t.name, t.id]));
      return {
        venueId, externalId, posVenueId, posType, currency, timezone,
        tableIds: Object.fromEntries(tables.map((t) => [t.id, byName.get(t.name)!])),
        onboardingUrl: link.body.onboarding.url,
      };
    },
    seat: (body, apiKey = rms.apiKey) => w.app.http.post('/v1/rms/pos/reservations', { token: apiKey, body }),
    async posCreates(posVenueId) {
      return (await w.sim.control.requests(posVenueId)).filter((r) => r.method === 'POST' && r.path === `/venue/${posVenueId}/orders`);
    },
    async events(type) {
      const { rows } = await sql<{ partner_id: string | null; venue_id: string | null; entity_id: string; data: any }>`
        SELECT partner_id, venue_id, entity_id, data FROM outbox WHERE type = ${type} ORDER BY id`.execute(w.app.db.kysely);
      return rows;
    },
    async seating(bookingId) {
      const { rows } = await sql<SeatingState>`
        SELECT s.status, s.order_id, s.pos_order_id, s.pos_outcome, j.run_at
        FROM seatings s LEFT JOIN jobs j ON j.dedupe_key = 'seating-open:' || s.id::text
        WHERE s.booking_id = ${bookingId}`.execute(w.app.db.kysely);
      return rows[0];
    },
    async nextAttempt(bookingId) {
      const clock = w.app.clock as ManualClock;
      const { run_at } = await world.seating(bookingId);
      if (!run_at) throw new Error(`seating ${bookingId} has no retry job`);
      const wait = run_at.getTime() - clock.now().getTime();
      if (wait <= 0 || wait > 30_000) throw new Error(`the next attempt of ${bookingId} is ${wait} ms away (DESIGN 8.3c: at most 30 s)`);
      clock.advance(wait);
      await w.app.service.runner.runDue();
    },
  };
  return world;
}
