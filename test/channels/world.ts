// The RMS world (test/rms/world.ts: Tableside and the reference RMS over HTTPS, the RMS partner
// connected) plus booking channels made as the operator makes them (content channel + credentials),
// with the partner's venue linked to them through the content API (spec 4.2).

import type { ChannelProtocol } from '../../src/channels/access.service.ts';
import { newVenue, unique } from '../content/builders.ts';
import { startRmsWorld, type RmsWorld } from '../rms/world.ts';
import type { RmsSimulatorOptions } from '../../rms-simulator/src/index.ts';
import type { TestAppOptions } from '../helpers/app.ts';

export interface TestChannel {
  id: string;
  name: string;
  /** `Authorization` header value: Bearer <apiKey> or Basic <username:password>. */
  auth: string;
  credentials: Record<string, string>;
}

export interface ChannelWorld extends RmsWorld {
  channel(protocol: ChannelProtocol, opts?: { link?: string[]; name?: string }): Promise<TestChannel>;
  /** A content venue of the same partner that no channel is linked to (externalId rms-venue-2). */
  otherVenueId: string;
  companyId: string;
  setCompany(fields: Record<string, unknown>): Promise<void>;
}

export async function startChannelWorld(opts: { app?: TestAppOptions; sim?: RmsSimulatorOptions } = {}): Promise<ChannelWorld> {
  const w = await startRmsWorld(opts);
  const s = w.app.service.app.services;
  const venue = (await w.app.http.get(`/v1/rms/venues/${w.venueId}`, { token: w.key })).body;
  const other = await newVenue(w.app, w.key, { externalId: 'rms-venue-2', name: 'Harbour Room', countryCode: 'GB', city: 'London', currency: 'GBP', timezone: 'Europe/London', company: venue.company.id });
  const companyId: string = venue.company.id;
  return {
    ...w,
    otherVenueId: other.id,
    companyId,
    async setCompany(fields) {
      const res = await w.app.http.put(`/v1/rms/company/${companyId}`, { token: w.key, body: fields });
      if (res.status !== 200) throw new Error(`PUT company → ${res.status} ${JSON.stringify(res.body)}`);
    },
    async channel(protocol, o = {}) {
      const created = await s.channels.create({ name: o.name ?? unique('Channel') });
      const { credentials } = await s.channelAccess.issue(created.id, protocol);
      const link = o.link ?? [w.venueId];
      if (link.length > 0) {
        const res = await w.app.http.put(`/v1/rms/booking-channels/${created.id}/link-venues`, { token: w.key, body: { venues: link } });
        if (res.status !== 200) throw new Error(`link-venues → ${res.status} ${JSON.stringify(res.body)}`);
      }
      const auth = 'apiKey' in credentials
        ? `Bearer ${credentials.apiKey}`
        : `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
      return { id: created.id, name: created.name, auth, credentials: credentials as Record<string, string> };
    },
  };
}
