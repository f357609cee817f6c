// A Tableside under test with the reference RMS beside it, both over real HTTPS: the RMS partner
// (its API key), its booking services connected to the simulator, and a content venue whose
// externalId is the simulator's venue. Tableside trusts the simulator's certificate; the simulator
// sends its notices and feeds to Tableside with the partner's key.

import { sql } from 'kysely';
import { startRmsSimulator, type RmsSimulator, type RmsSimulatorOptions } from '../../rms-simulator/src/index.ts';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { testTls } from '../helpers/http.ts';
import { newCompany, newVenue, rmsPartner } from '../content/builders.ts';

export interface RmsWorld {
  app: TestApp;
  sim: RmsSimulator;
  partnerId: string;
  /** The partner's Tableside API key (content API, notices, feed). */
  key: string;
  /** Content venue id of rms-venue-1 (externalId rms-venue-1). */
  venueId: string;
  close(): Promise<void>;
}

export async function startRmsWorld(opts: { app?: TestAppOptions; sim?: RmsSimulatorOptions; connect?: boolean } = {}): Promise<RmsWorld> {
  const app = await startTestApp({ ...opts.app, env: { ALLOW_PRIVATE_TARGETS: '1', ...(opts.app?.env ?? {}) } });
  const sim = await startRmsSimulator({ seed: true, ...opts.sim });
  try {
    app.service.app.services.rmsClients.trust(sim.ca);
    const partner = await rmsPartner(app);
    const company = await newCompany(app, partner.apiKey);
    const venue = await newVenue(app, partner.apiKey, { externalId: 'rms-venue-1', name: 'The Anchor', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London', company: company.id });
    await sim.control.setTableside({ tablesideUrl: app.url, apiKey: partner.apiKey, ca: testTls().cert });
    if (opts.connect !== false) {
      const res = await app.http.put('/v1/rms/booking-services', { token: partner.apiKey, body: { baseUrl: sim.baseUrl, apiKey: sim.apiKey } });
      if (res.status !== 200) throw new Error(`PUT booking-services → ${res.status} ${JSON.stringify(res.body)}`);
    }
    return {
      app, sim, partnerId: partner.partnerId, key: partner.apiKey, venueId: venue.id,
      async close() {
        await sim.close();
        await app.close();
      },
    };
  } catch (err) {
    await sim.close();
    await app.close();
    throw err;
  }
}

/** A booking's history as recorded (booking_changes), oldest first: what each change was and why. */
export async function bookingHistory(w: RmsWorld, bookingId: string): Promise<Array<{ cause: string; changes: Record<string, any> }>> {
  const { rows } = await sql<{ cause: string; changes: Record<string, any> }>`
    SELECT cause, changes FROM booking_changes WHERE booking_id = ${bookingId} ORDER BY at, id`.execute(w.app.db.kysely);
  return rows;
}
