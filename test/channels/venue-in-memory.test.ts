import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, expect, it, onTestFinished } from 'vitest';
import { awaitEpoch, createCredentialCache, currentEpoch } from '../../src/auth/credential-cache.ts';
import { createChannelApiService } from '../../src/channels/channel-api.service.ts';
import type { Db } from '../../src/db/db.ts';
import { ManualClock, systemClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { describeEachStore, describePostgres, newStore } from '../helpers/db.ts';
import type { HttpClient } from '../helpers/http.ts';
import { startChannelWorld, type ChannelWorld, type TestChannel } from './world.ts';

// Issue 28: a process keeps what a channel's request reads of a venue (its link, timezone, currency,
// RMS owner and external id, its company's booking settings) in the credential cache, under its
// lease and epoch (migration 027). An edit of any of those through one instance of the service is
// what every instance on the same database answers with once the edit returns.

const log = pino({ level: 'silent' });
const NOW = '2025-06-10T09:00:00Z';

describeEachStore('a venue edited through one instance, two instances on one database', (kind) => {
  let w: ChannelWorld;
  let second: TestApp;
  let ch: TestChannel;
  beforeAll(async () => {
    const clock = new ManualClock(NOW);
    w = await startChannelWorld({ app: { store: kind, clock } });
    // A second instance of the service on the same database: its own memory, the same rows.
    second = await startTestApp({ db: w.app.db, clock, env: { ALLOW_PRIVATE_TARGETS: '1' } });
    second.service.app.services.rmsClients.trust(w.sim.ca);
    // rms-venue-2 has slots with a deposit.
    ch = await w.channel('tableside', { link: [w.otherVenueId] });
  });
  afterAll(async () => {
    await second?.close();
    await w?.close();
  });
  beforeEach(async () => {
    await w.sim.control.setClock({ set: NOW, frozen: true });
  });

  const slots = async (http: HttpClient, date = '2025-06-10') => {
    const res = await http.get(`/v1/bc/venues/${w.otherVenueId}/availability`, { query: { date, partySize: '2' }, headers: { authorization: ch.auth } });
    expect(res.status).toBe(200);
    expect(res.body.source).toBe('live');
    return res.body.slots as Array<{ start: string; deposit: { currency: string } | null }>;
  };
  const both = () => [w.app.http, second.http];

  it('[CHN-22] a venue\'s new currency is what both instances state deposits in once the edit returns, though each had just answered the old one', async () => {
    for (const http of both()) {
      for (let i = 0; i < 2; i++) expect((await slots(http, '2025-06-11')).find((s) => s.deposit)?.deposit?.currency).toBe('GBP');
    }
    try {
      expect((await w.app.http.put(`/v1/rms/venues/${w.otherVenueId}`, { token: w.key, body: { currency: 'EUR' } })).status).toBe(200);
      for (const http of [second.http, w.app.http]) expect((await slots(http, '2025-06-11')).find((s) => s.deposit)?.deposit?.currency).toBe('EUR');
    } finally {
      await w.app.http.put(`/v1/rms/venues/${w.otherVenueId}`, { token: w.key, body: { currency: 'GBP' } });
    }
  });

  it('[CHN-23] a company\'s new minAdvanceBooking is what both instances apply once the edit returns, though each had just answered without it', async () => {
    await w.setCompany({ minAdvanceBooking: 0 });
    const all = await slots(second.http);
    expect(all.length).toBeGreaterThan(0);
    for (const http of both()) for (let i = 0; i < 2; i++) expect(await slots(http)).toEqual(all);
    try {
      // A notice that leaves out the earlier half of the day's slots.
      const earliest = Date.parse(all[Math.floor(all.length / 2)]!.start);
      await w.setCompany({ minAdvanceBooking: (earliest - Date.parse(NOW)) / 1000 });
      for (const http of [second.http, w.app.http]) {
        const later = await slots(http);
        expect(later.length).toBeLessThan(all.length);
        expect(later).toEqual(all.filter((s) => Date.parse(s.start) >= earliest));
      }
    } finally {
      await w.setCompany({ minAdvanceBooking: 0 });
    }
  });
});

describePostgres('a venue edited while no process can renew its lease', () => {
  let w: ChannelWorld;
  let second: TestApp;
  let ch: TestChannel;
  beforeAll(async () => {
    const clock = new ManualClock(NOW);
    // Leases of 6 s: a process serves from memory for 4.8 s after its last renewal (at most 1.5 s
    // before the leases are locked), longer than the edit and the requests after it take.
    const env = { AUTH_CACHE_LEASE_MS: '6000' };
    w = await startChannelWorld({ app: { store: 'postgres', clock, env } });
    second = await startTestApp({ db: w.app.db, clock, env: { ALLOW_PRIVATE_TARGETS: '1', ...env } });
    second.service.app.services.rmsClients.trust(w.sim.ca);
    ch = await w.channel('tableside', { link: [w.otherVenueId] });
    await w.sim.control.setClock({ set: NOW, frozen: true });
  });
  afterAll(async () => {
    await second?.close();
    await w?.close();
  });

  /**
   * Runs `fn` while no process can renew its lease (as when it is stalled): the renewal's one
   * statement reads the epoch and writes the lease, so the lock that keeps it from writing keeps it
   * from learning of a change too; reads of the leases (the write's wait) go on. A write that
   * returned before the leases ran out would leave both instances answering from what they held:
   * without the wait this fails every time, not by a race.
   */
  async function leasesHeld(fn: () => Promise<void>) {
    await w.app.db.kysely.transaction().execute(async (tx) => {
      await sql`LOCK TABLE auth_leases IN EXCLUSIVE MODE`.execute(tx);
      await fn();
    });
  }
  const ask = (http: HttpClient) =>
    http.get(`/v1/bc/venues/${w.otherVenueId}/availability`, { query: { date: '2025-06-11', partySize: '2' }, headers: { authorization: ch.auth } });
  const currency = async (http: HttpClient) => {
    const res = await ask(http);
    expect(res.status).toBe(200);
    return (res.body.slots as Array<{ deposit: { currency: string } | null }>).find((s) => s.deposit)?.deposit?.currency;
  };

  /** Both instances have acknowledged every change so far: what they read next, they keep. */
  const settled = async () => awaitEpoch(w.app.db.kysely, await currentEpoch(w.app.db.kysely));

  it('[CHN-22] [CHN-02] a currency edit and an unlink return only once no process can answer from what it held', async () => {
    await settled();
    for (const http of [w.app.http, second.http]) for (let i = 0; i < 2; i++) expect(await currency(http)).toBe('GBP');
    await leasesHeld(async () => {
      expect((await w.app.http.put(`/v1/rms/venues/${w.otherVenueId}`, { token: w.key, body: { currency: 'EUR' } })).status).toBe(200);
      for (const http of [second.http, w.app.http]) expect(await currency(http)).toBe('EUR');
    });
    await settled();
    for (const http of [w.app.http, second.http]) for (let i = 0; i < 2; i++) expect(await currency(http)).toBe('EUR');
    await leasesHeld(async () => {
      expect((await w.app.http.put(`/v1/rms/booking-channels/${ch.id}/unlink-venues`, { token: w.key, body: { venues: [w.otherVenueId] } })).status).toBe(200);
      for (const http of [second.http, w.app.http]) expect((await ask(http)).status).toBe(403);
    });
  });
});

/** A partner, its company, a venue of it, a channel linked to the venue; their ids. */
async function seed(db: Db) {
  const ids = {
    partner: '00000000-0000-7000-8000-0000000000a1',
    company: '00000000-0000-7000-8000-0000000000a2',
    other: '00000000-0000-7000-8000-0000000000a3',
    venue: '00000000-0000-7000-8000-0000000000a4',
    channel: '00000000-0000-7000-8000-0000000000a5',
  };
  await sql`INSERT INTO partners (id, name, access, created_at) VALUES (${ids.partner}, 'rms', ${['rms']}, now())`.execute(db.kysely);
  for (const id of [ids.company, ids.other]) {
    await sql`INSERT INTO companies (id, owner_partner_id, name, city, country_code, created_at, updated_at)
      VALUES (${id}, ${ids.partner}, 'Company', 'London', 'GB', now(), now())`.execute(db.kysely);
  }
  await sql`INSERT INTO venues (id, owner_partner_id, external_id, company_id, name, country_code, city, currency, timezone, created_at, updated_at)
    VALUES (${ids.venue}, ${ids.partner}, 'ext-1', ${ids.company}, 'The Anchor', 'GB', 'London', 'GBP', 'Europe/London', now(), now())`.execute(db.kysely);
  await sql`INSERT INTO booking_channels (id, name, created_at) VALUES (${ids.channel}, 'c', now())`.execute(db.kysely);
  await sql`INSERT INTO venue_booking_channels (channel_id, venue_id, linked_at) VALUES (${ids.channel}, ${ids.venue}, now())`.execute(db.kysely);
  return ids;
}

describeEachStore('the venue a channel reads, kept in memory', (kind) => {
  async function store(): Promise<Db> {
    const db = await newStore(kind);
    onTestFinished(() => db.close());
    return db;
  }

  it('[DES-059] the new triggers bump the credential epoch on a change of what a channel reads of a venue, and only then (migration 027)', async () => {
    const db = await store();
    const ids = await seed(db);
    const bumps = async (change: string) => {
      const before = await currentEpoch(db.kysely);
      await sql.raw(change).execute(db.kysely);
      return (await currentEpoch(db.kysely)) > before;
    };
    const venue = (set: string) => `UPDATE venues SET ${set} WHERE id = '${ids.venue}'`;
    const company = (set: string) => `UPDATE companies SET ${set} WHERE id = '${ids.company}'`;
    expect(await bumps(venue(`timezone = 'Europe/Dublin'`))).toBe(true);
    expect(await bumps(venue(`currency = 'EUR'`))).toBe(true);
    expect(await bumps(venue(`external_id = 'ext-2'`))).toBe(true);
    expect(await bumps(venue(`company_id = '${ids.other}'`))).toBe(true);
    expect(await bumps(venue(`owner_partner_id = NULL`))).toBe(true);
    expect(await bumps(company(`min_advance_booking = 3600`))).toBe(true);
    expect(await bumps(company(`min_advance_booking_cancelling = 7200`))).toBe(true);
    expect(await bumps(company(`include_source_in_notes = true`))).toBe(true);
    expect(await bumps(`DELETE FROM venue_booking_channels WHERE venue_id = '${ids.venue}'`)).toBe(true);
    expect(await bumps(`INSERT INTO venue_booking_channels (channel_id, venue_id, linked_at) VALUES ('${ids.channel}', '${ids.venue}', now())`)).toBe(true);
    // What the row does not read, and a write of the same values (the content API writes every column), do not.
    expect(await bumps(venue(`name = 'Renamed', city = 'Leeds', updated_at = now()`))).toBe(false);
    expect(await bumps(venue(`timezone = 'Europe/Dublin', currency = 'EUR', external_id = 'ext-2', company_id = '${ids.other}'`))).toBe(false);
    expect(await bumps(company(`name = 'Renamed', min_advance_booking = 3600, updated_at = now()`))).toBe(false);
  });

  it('[CHN-02] [CHN-23] a venue is read once while the epoch stands; a row read before a bump is not served after it', async () => {
    const db = await store();
    const ids = await seed(db);
    const holder = createCredentialCache({ db, log });
    onTestFinished(() => holder.stop());
    await holder.start();
    // Seeding bumped the epoch: the holder has acknowledged it before the reads are counted.
    await awaitEpoch(db.kysely, await currentEpoch(db.kysely));
    const reads = { n: 0 };
    let during: (() => Promise<void>) | null = null;
    const api = createChannelApiService({
      db, clock: systemClock, bookings: {} as never, availability: {} as never,
      credentials: {
        lookup: (k, key, load) => holder.lookup(k, key, async () => {
          reads.n++;
          const row = await load();
          // A write that commits (and is acknowledged) after the row was read, before it is kept.
          await during?.();
          return row;
        }),
      },
    });
    const channel = { id: ids.channel, name: 'c', protocol: 'tableside' as const };
    const edit = async (change: string) => {
      await sql.raw(change).execute(db.kysely);
      await awaitEpoch(db.kysely, await currentEpoch(db.kysely));
    };
    expect(await api.venue(channel, ids.venue)).toMatchObject({ linked: true, currency: 'GBP', minAdvanceBooking: 0 });
    expect(await api.venue(channel, ids.venue.toUpperCase())).toMatchObject({ linked: true, currency: 'GBP' });
    expect(reads.n).toBe(1);

    await edit(`UPDATE companies SET min_advance_booking = 3600 WHERE id = '${ids.company}'`);
    expect(await api.venue(channel, ids.venue)).toMatchObject({ currency: 'GBP', minAdvanceBooking: 3600 });
    expect(reads.n).toBe(2);

    // Read at the old epoch, answered to its own request, then never served again.
    await edit(`UPDATE companies SET min_advance_booking = 7200 WHERE id = '${ids.company}'`);
    during = () => edit(`UPDATE venues SET currency = 'EUR' WHERE id = '${ids.venue}'`);
    expect(await api.venue(channel, ids.venue)).toMatchObject({ linked: true, currency: 'GBP', minAdvanceBooking: 7200 });
    during = null;
    expect(await api.venue(channel, ids.venue)).toMatchObject({ linked: true, currency: 'EUR' });
    expect(reads.n).toBe(4);

    await edit(`DELETE FROM venue_booking_channels WHERE venue_id = '${ids.venue}'`);
    expect(await api.venue(channel, ids.venue)).toMatchObject({ linked: false });
    await edit(`INSERT INTO venue_booking_channels (channel_id, venue_id, linked_at) VALUES ('${ids.channel}', '${ids.venue}', now())`);
    expect(await api.venue(channel, ids.venue)).toMatchObject({ linked: true });
    expect(reads.n).toBe(6);
  });
});
