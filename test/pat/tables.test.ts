import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/lib/clock.ts';
import { describeEachStore } from '../helpers/db.ts';
import { POS, startPatWorld, type ConnectedVenue, type PatWorld } from '../helpers/pat.ts';

// A venue's tables (spec 2.9, 4.7; DESIGN 6.3, 9): each POS table gets a UUID that stays the same
// across renames, removals and re-imports; names follow the POS, at once with POS_TABLES_TTL_S=0
// and after the TTL otherwise.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let w: PatWorld;


type Table = { id: string; name: string };

async function tablesOf(world: PatWorld, venue: ConnectedVenue, token = world.partner.token): Promise<Table[]> {
  const res = await world.app.http.get(`/v1/pat/venue/${venue.venueId}/tables`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.tables;
}

const byName = (tables: Table[]) => Object.fromEntries(tables.map((t) => [t.name, t.id]));
const sorted = (tables: Table[]) => [...tables].sort((a, b) => a.id.localeCompare(b.id));

/** Stored rows of the venue's tables, hidden ones included. */
async function storedRows(world: PatWorld, venueId: string) {
  const { rows } = await sql<{ id: string; pos_table_id: string }>`
    SELECT id, pos_table_id FROM venue_tables WHERE venue_id = ${venueId}`.execute(world.app.db.kysely);
  return rows;
}

describeEachStore('pay-at-table tables', (store) => {
  beforeAll(async () => {
    // A generous POS timeout: no test here is about timeouts, and the machine may be busy.
    w = await startPatWorld({ autoClose: false, store, env: { POS_TABLES_TTL_S: '0', POS_TIMEOUT_MS: '10000' } });
  });

  afterAll(async () => {
    await w?.close();
  });

  describe('GET /v1/pat/venue/{venueId}/tables', () => {
    it('[PATV-28] [PATV-29] answers {venueId, tables: [{id, name}]} with UUID ids and string names', async () => {
      const venue = await w.connectVenue();
      const res = await w.app.http.get(`/v1/pat/venue/${venue.venueId}/tables`, { token: w.partner.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['tables', 'venueId']);
      expect(res.body.venueId).toBe(venue.venueId);
      expect(res.body.tables).toHaveLength(4);
      for (const t of res.body.tables) {
        expect(Object.keys(t).sort()).toEqual(['id', 'name']);
        expect(t.id).toMatch(UUID);
        expect(typeof t.name).toBe('string');
      }
      expect(res.body.tables.map((t: Table) => t.name).sort()).toEqual(['Table 1', 'Table 2', 'Table 3', 'Terrace']);
      // UUIDs, not the POS's own ids.
      expect(res.body.tables.map((t: Table) => t.id)).not.toContain('1');
      expect(new Set(res.body.tables.map((t: Table) => t.id)).size).toBe(4);
    });

    it('[PATV-29] [DES-083] two venues with the same POS table ids get distinct table UUIDs', async () => {
      const a = await w.connectVenue();
      const b = await w.connectVenue();
      const idsA = (await tablesOf(w, a)).map((t) => t.id);
      const idsB = (await tablesOf(w, b)).map((t) => t.id);
      expect(idsA.filter((id) => idsB.includes(id))).toEqual([]);
    });

    it('[PATV-31] a venue with no active POS → 404', async () => {
      const created = await w.app.http.post('/v1/pat/venues', {
        token: w.partner.token,
        body: { name: 'Pending', address: '1 Main St', city: 'Madrid', postalCode: '28013', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType: POS.immediate },
      });
      const pending = await w.app.http.get(`/v1/pat/venue/${created.body.id}/tables`, { token: w.partner.token });
      expect(pending.status).toBe(404);
      expect(pending.body.error.code).toBe(404);
      expect(pending.body.error.message).toMatch(/no POS connection found/i);
      const granted = await w.app.newVenue();
      await w.app.grant(w.partner.partnerId, granted);
      expect((await w.app.http.get(`/v1/pat/venue/${granted}/tables`, { token: w.partner.token })).status).toBe(404);
    });
  });

  describe('stable table ids (POS_TABLES_TTL_S=0)', () => {
    it('[PATV-30] [DES-135] a table renamed on the POS shows its new name at once, under the same UUID', async () => {
      const venue = await w.connectVenue();
      const before = await tablesOf(w, venue);
      const id = byName(before)['Table 2'];
      expect(id).toBe(venue.tableIds['2']);

      await w.sim.control.putTable(venue.posVenueId, '2', 'Window seat');
      const after = await tablesOf(w, venue);
      expect(byName(after)['Window seat']).toBe(id);
      expect(after.map((t) => t.name)).not.toContain('Table 2');
      expect(sorted(after).map((t) => t.id)).toEqual(sorted(before).map((t) => t.id));

      // Renamed again, and to a name another table had before: still the same UUID.
      await w.sim.control.putTable(venue.posVenueId, '2', 'Table 2 (window)');
      expect(byName(await tablesOf(w, venue))['Table 2 (window)']).toBe(id);
      await w.sim.control.putTable(venue.posVenueId, '1', 'Table A');
      await w.sim.control.putTable(venue.posVenueId, '2', 'Table 1');
      const swapped = byName(await tablesOf(w, venue));
      expect(swapped['Table 1']).toBe(id);
      expect(swapped['Table A']).toBe(venue.tableIds['1']);
    });

    it('[DES-083] re-importing keeps each table’s UUID and creates no duplicates', async () => {
      const venue = await w.connectVenue();
      const first = sorted(await tablesOf(w, venue));
      // Every GET re-imports with a TTL of 0.
      for (let i = 0; i < 3; i++) expect(sorted(await tablesOf(w, venue))).toEqual(first);
      const rows = await storedRows(w, venue.venueId);
      expect(rows).toHaveLength(4);
      expect(new Set(rows.map((r) => r.pos_table_id)).size).toBe(4);
      expect(rows.map((r) => r.id).sort()).toEqual(first.map((t) => t.id));
      // A re-import from a reordered list with one table added: the known ones keep their UUIDs.
      await w.sim.control.setTables(venue.posVenueId, [
        { id: '4', name: 'Terrace' },
        { id: '3', name: 'Table 3' },
        { id: '5', name: 'Bar' },
        { id: '2', name: 'Table 2' },
        { id: '1', name: 'Table 1' },
      ]);
      const after = byName(await tablesOf(w, venue));
      expect(after).toMatchObject({ 'Table 1': venue.tableIds['1'], 'Table 2': venue.tableIds['2'], 'Table 3': venue.tableIds['3'], Terrace: venue.tableIds['4'] });
      expect(after['Bar']).toMatch(UUID);
      expect(Object.values(venue.tableIds)).not.toContain(after['Bar']);
      expect(await storedRows(w, venue.venueId)).toHaveLength(5);
    });

    it('[DES-083] [PATV-30] a table removed on the POS leaves the list, and comes back under the same UUID when re-added', async () => {
      const venue = await w.connectVenue();
      const terrace = venue.tableIds['4'];
      await w.sim.control.removeTable(venue.posVenueId, '4');
      const without = await tablesOf(w, venue);
      expect(without.map((t) => t.id)).not.toContain(terrace);
      expect(without.map((t) => t.name)).not.toContain('Terrace');
      expect(without).toHaveLength(3);
      // Its bill is not found either.
      const bill = await w.app.http.get(`/v1/pat/venue/${venue.venueId}/table/${terrace}/bill`, { token: w.partner.token });
      expect(bill.status).toBe(404);

      await w.sim.control.putTable(venue.posVenueId, '4', 'Garden terrace');
      const back = await tablesOf(w, venue);
      expect(back).toHaveLength(4);
      expect(byName(back)['Garden terrace']).toBe(terrace);
      expect(await storedRows(w, venue.venueId)).toHaveLength(4);
    });

    it('[DES-083] when the POS cannot answer, the stored tables are served unchanged', async () => {
      // Numeric-looking ids answered as JSON numbers (a broken POS): the refresh fails validation.
      const venue = await w.connectVenue({ tables: [{ id: '7', name: 'Seven' }, { id: '8', name: 'Eight' }] });
      const before = sorted(await tablesOf(w, venue));
      await w.sim.control.putTable(venue.posVenueId, '7', 'Renamed while broken');
      await w.sim.control.setBroken('tables-numeric-ids');
      try {
        expect(sorted(await tablesOf(w, venue))).toEqual(before);
      } finally {
        await w.sim.control.setBroken(null);
      }
      expect(byName(await tablesOf(w, venue))['Renamed while broken']).toBe(venue.tableIds['7']);
    });
  });

  describe('table freshness with the default POS_TABLES_TTL_S (30 s)', () => {
    it('[PATV-30] a rename on the POS shows once the stored copy is older than the TTL, under the same UUID', async () => {
      const world = await startPatWorld({ clock: 'manual', store, env: { POS_TIMEOUT_MS: '10000' } });
      const clock = world.app.clock as ManualClock;
      const venue = await world.connectVenue();
      const id = venue.tableIds['1'];
      await world.sim.control.putTable(venue.posVenueId, '1', 'Chef’s table');
      await world.sim.control.clearRequests(venue.posVenueId);

      // Within the TTL: the stored copy, and no call to the POS.
      clock.advance(10_000);
      expect(byName(await tablesOf(world, venue))['Table 1']).toBe(id);
      expect(await world.sim.control.requests(venue.posVenueId)).toEqual([]);

      clock.advance(25_000);
      const fresh = await tablesOf(world, venue);
      expect(byName(fresh)['Chef’s table']).toBe(id);
      expect(fresh.map((t) => t.name)).not.toContain('Table 1');
      expect((await world.sim.control.requests(venue.posVenueId)).map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /venue/${venue.posVenueId}/tables`,
      ]);
    });
  });
});
