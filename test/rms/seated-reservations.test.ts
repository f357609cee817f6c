import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/db.ts';
import { startSeatingWorld, type RmsVenue, type SeatingWorld } from '../helpers/seating.ts';

// Seated reservations (DESIGN 8.3c): the RMS's POS tables and POS connection, and the seated event
// that opens the POS order once, against the reference POS over real HTTPS, on every store.

let w: SeatingWorld;
let bookings = 0;
const bookingId = () => `bk-${process.pid}-${++bookings}`;
// The manual clock's start: 12:00 UTC on 15 January is 13:00 in Madrid (CET).
const SEATED_LOCAL = '2026-01-15 13:00:00';

const seated = (v: RmsVenue, fields: Record<string, unknown> = {}) => ({
  bookingId: bookingId(), venueId: v.externalId, status: 'seated', partySize: 4, tables: ['1'], date: '2026-01-15T12:30:00+01:00', ...fields,
});

describeEachStore('seated reservations', (store) => {
  let v: RmsVenue;
  beforeAll(async () => {
    w = await startSeatingWorld({ store, autoClose: false, clock: 'manual', env: { POS_TIMEOUT_MS: '10000' } });
    v = await w.rmsVenue();
  });
  afterAll(async () => {
    await w?.close();
  });

  describe('the POS tables and the POS connection of an RMS venue', () => {
    it('[BKG-23] [BKG-32] pos-tables answers {venueId: the externalId, tables: [{id: POS table id, name, area}], count}', async () => {
      const res = await w.app.http.get(`/v1/rms/venues/${v.externalId}/pos-tables`, { token: w.rms.apiKey });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        venueId: v.externalId,
        tables: expect.arrayContaining([
          { id: '1', name: 'Table 1', area: null },
          { id: '4', name: 'Terrace', area: null },
        ]),
        count: 4,
      });
      expect(res.body.tables).toHaveLength(4);
    });

    it('[BKG-23] 404 naming the reason while the venue has no active POS connection; 404 for an unknown externalId; 403 for another RMS partner’s venue', async () => {
      const externalId = `unconnected-${process.pid}-${++bookings}`;
      const created = await w.app.http.post('/v1/rms/venues', { token: w.rms.apiKey, body: { externalId, name: 'No POS yet', countryCode: 'ES', city: 'Madrid', currency: 'EUR' } });
      expect(created.status).toBe(200);
      const none = await w.app.http.get(`/v1/rms/venues/${externalId}/pos-tables`, { token: w.rms.apiKey });
      expect(none.status).toBe(404);
      expect(none.body.error.message).toMatch(/no active POS connection/);
      const unknown = await w.app.http.get('/v1/rms/venues/nobody-has-this/pos-tables', { token: w.rms.apiKey });
      expect(unknown.status).toBe(404);
      const other = (await w.app.newPartner(['rms'], 'Another RMS')) as { apiKey: string };
      const theirs = await w.app.http.get(`/v1/rms/venues/${v.externalId}/pos-tables`, { token: other.apiKey });
      expect(theirs.status).toBe(403);
      expect((await w.seat(seated(v), other.apiKey)).status).toBe(403);
      expect((await w.app.http.get(`/v1/rms/venues/${v.externalId}/pos-tables`)).status).toBe(401);
    });

    it('[BKG-24] [BKG-32] pos-connection answers an onboarding {requestId, url, status} whose page connects the RMS venue to its POS location', async () => {
      const externalId = `to-connect-${process.pid}-${++bookings}`;
      await w.app.http.post('/v1/rms/venues', { token: w.rms.apiKey, body: { externalId, name: 'Casa Onboarding', countryCode: 'ES', city: 'Madrid', currency: 'EUR' } });
      const { posVenueId } = await w.newLocation();
      const res = await w.app.http.post(`/v1/rms/venues/${externalId}/pos-connection`, { token: w.rms.apiKey, body: { posType: 'sim' } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.onboarding).toEqual({ requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), url: expect.stringContaining(`/onboarding/${res.body.onboarding.requestId}?t=`), status: 'rms_activation' });
      const url = new URL(res.body.onboarding.url);
      const page = await w.app.http.get(`${url.pathname}${url.search}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Casa Onboarding');
      const form = await w.app.http.post(`${url.pathname}${url.search}`, {
        body: new URLSearchParams({ posVenueId }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).toBe(200);
      const tables = await w.app.http.get(`/v1/rms/venues/${externalId}/pos-tables`, { token: w.rms.apiKey });
      expect(tables.status).toBe(200);
      expect(tables.body.count).toBe(4);
      // Connected now: another link is a conflict, not a second connection.
      const again = await w.app.http.post(`/v1/rms/venues/${externalId}/pos-connection`, { token: w.rms.apiKey, body: { posType: 'sim' } });
      expect(again.status).toBe(409);
    });

    it('[BKG-24] an unknown posType is a 400 naming posType; nothing is created', async () => {
      const res = await w.app.http.post(`/v1/rms/venues/${v.externalId}/pos-connection`, { token: w.rms.apiKey, body: { posType: 'nope' } });
      expect(res.status).toBe(400);
      expect(res.body.error.details.posType).toBeDefined();
    });
  });

  describe('a seated reservation', () => {
    it('[BKG-25] [DES-106] [BKG-34] creates the POS order with the spec 4.6 body and answers {bookingId, orderId, status: opened}', async () => {
      await w.sim.control.clearRequests(v.posVenueId);
      const event = seated(v, { tables: ['2', '3'], partySize: 5, prepayment: 12.5, guestName: 'Ada Lovelace', guestEmail: 'ada@example.com', guestTelephone: '+34600000000' });
      const res = await w.seat(event);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ bookingId: event.bookingId, orderId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'opened', unknownSkus: [] });
      const creates = await w.posCreates(v.posVenueId);
      expect(creates).toHaveLength(1);
      // Exactly the contract's body: prepayment the same decimal, date the seating time venue-local, no items key.
      expect(creates[0].body).toEqual({
        id: res.body.orderId, tables: ['2', '3'], partySize: 5, prepayment: 12.5, date: SEATED_LOCAL,
        guestName: 'Ada Lovelace', guestEmail: 'ada@example.com', guestTelephone: '+34600000000',
      });
      expect(creates[0].headers.authorization).toBe(`Bearer ${w.sim.apiKey}`);
      // The orderId is the one the bill shows.
      const bill = await w.bill(v, '2');
      expect(bill.status).toBe(200);
      expect(bill.body.orderId).toBe(res.body.orderId);
      const [opened] = (await w.events('pos_order.opened')).filter((e) => e.data.bookingId === event.bookingId);
      expect(opened).toMatchObject({ partner_id: w.rms.partnerId, venue_id: v.venueId, entity_id: res.body.orderId });
    });

    it('[BKG-25] [DES-106] prepayment is always sent (0 when none) and items only when there are some', async () => {
      await w.sim.control.clearRequests(v.posVenueId);
      const bare = await w.seat(seated(v, { tables: ['1'] }));
      expect(bare.status).toBe(200);
      const withItems = await w.seat(seated(v, { tables: ['4'], items: [{ sku: 'ESP', quantity: 2, notes: 'no sugar' }, { sku: 'CAKE', quantity: 1 }] }));
      expect(withItems.status).toBe(200);
      const [first, second] = await w.posCreates(v.posVenueId);
      expect(first.body).toEqual({ id: bare.body.orderId, tables: ['1'], partySize: 4, prepayment: 0, date: SEATED_LOCAL });
      expect(second.body).toMatchObject({ items: [{ sku: 'ESP', quantity: 2, notes: 'no sugar' }, { sku: 'CAKE', quantity: 1 }], prepayment: 0 });
      const order = await w.sim.control.getOrder(v.posVenueId, (await w.app.db.kysely.selectFrom('seatings').select('pos_order_id').where('order_id', '=', withItems.body.orderId).executeTakeFirstOrThrow()).pos_order_id!);
      expect(order.checks.flatMap((c) => c.items.map((i) => [i.name, i.quantity]))).toEqual([['Espresso', 2], ['Cheesecake', 1]]);
    });

    it('[BKG-26] the same seated reservation sent again → 200 unchanged with the same orderId; the POS receives no second create', async () => {
      const event = seated(v, { tables: ['3'] });
      const first = await w.seat(event);
      expect(first.body.status).toBe('opened');
      await w.sim.control.clearRequests(v.posVenueId);
      for (let i = 0; i < 3; i++) {
        const again = await w.seat(event);
        expect(again.status).toBe(200);
        expect(again.body).toEqual({ bookingId: event.bookingId, orderId: first.body.orderId, status: 'unchanged', unknownSkus: [] });
      }
      // Concurrent copies too: one claim, the others unchanged.
      const racing = seated(v, { tables: ['1'] });
      const answers = await Promise.all(Array.from({ length: 5 }, () => w.seat(racing)));
      expect(answers.map((a) => a.body.status).sort()).toEqual(['opened', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
      expect(new Set(answers.map((a) => a.body.orderId)).size).toBe(1);
      expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
    });

    it('[BKG-27] [DES-107] a POS 422 unknownSkus: the order is created again without them, the answer lists them, pos_order.unknown_skus is emitted', async () => {
      await w.sim.control.clearRequests(v.posVenueId);
      const event = seated(v, { tables: ['2'], items: [{ sku: 'BURGER', quantity: 1 }, { sku: 'GHOST', quantity: 2 }, { sku: 'PHANTOM', quantity: 1 }] });
      const res = await w.seat(event);
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe('opened');
      expect([...res.body.unknownSkus].sort()).toEqual(['GHOST', 'PHANTOM']);
      const creates = await w.posCreates(v.posVenueId);
      expect(creates).toHaveLength(2);
      expect(creates[0].status).toBe(422);
      expect(creates[1].status).toBeLessThan(300);
      expect((creates[1].body as any).items).toEqual([{ sku: 'BURGER', quantity: 1 }]);
      const [event1] = (await w.events('pos_order.unknown_skus')).filter((e) => e.data.bookingId === event.bookingId);
      expect(event1).toMatchObject({ partner_id: w.rms.partnerId, venue_id: v.venueId, entity_id: res.body.orderId });
      expect([...event1.data.unknownSkus].sort()).toEqual(['GHOST', 'PHANTOM']);
      // Sent again, the answer still names them.
      expect((await w.seat(event)).body.unknownSkus.sort()).toEqual(['GHOST', 'PHANTOM']);
    });

    it('[BKG-31] [POS-11] a status other than seated → 200 unchanged, recorded, and no POS order', async () => {
      await w.sim.control.clearRequests(v.posVenueId);
      const id = bookingId();
      for (const status of ['confirmed', 'pending_confirmation', 'canceled']) {
        const res = await w.seat({ bookingId: id, venueId: v.externalId, status, partySize: 2, tables: ['1'], date: '2026-01-15T20:00:00+01:00' });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ bookingId: id, orderId: null, status: 'unchanged', unknownSkus: [] });
      }
      expect(await w.posCreates(v.posVenueId)).toHaveLength(0);
      const { rows } = await sql<{ status: string }>`SELECT status FROM seating_events WHERE booking_id = ${id} ORDER BY received_at, id`.execute(w.app.db.kysely);
      expect(rows.map((r) => r.status)).toEqual(['confirmed', 'pending_confirmation', 'canceled']);
      // Seated at last: now, and only now, the order is opened.
      const sat = await w.seat({ bookingId: id, venueId: v.externalId, status: 'seated', partySize: 2, tables: ['1'], date: '2026-01-15T20:00:00+01:00' });
      expect(sat.body.status).toBe('opened');
      expect(await w.posCreates(v.posVenueId)).toHaveLength(1);
    });
  });

  describe('bad input changes nothing and sends nothing to the POS', () => {
    it('[BKG-25] tables that are not the venue’s POS tables → 400 naming them', async () => {
      await w.sim.control.clearRequests(v.posVenueId);
      const res = await w.seat(seated(v, { tables: ['1', 'T99', 'patio'] }));
      expect(res.status).toBe(400);
      expect(res.body.error.details.tables[0]).toContain('T99, patio');
      expect(res.body.error.message).toContain('T99, patio');
      expect(await w.posCreates(v.posVenueId)).toHaveLength(0);
    });

    it.each([
      ['partySize', { partySize: 0 }],
      ['partySize', { partySize: -2 }],
      ['prepayment', { prepayment: -1 }],
      ['prepayment', { prepayment: 1.234 }],
      ['date', { date: 'next tuesday' }],
      ['date', { date: '2026-02-31T20:00:00+01:00' }],
      ['items', { items: [{ sku: 'ESP', quantity: 0 }] }],
      ['tables', { tables: [] }],
      ['bookingId', { bookingId: '' }],
      ['guestName', { guestName: 'nul\u0000here' }],
      ['partySize', { partySize: undefined }],
    ])('[BKG-25] %s invalid (%j) → 400 with the envelope naming it, nothing sent', async (field, fields) => {
      await w.sim.control.clearRequests(v.posVenueId);
      const body = seated(v, fields);
      const res = await w.seat(JSON.parse(JSON.stringify(body)));
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe(400);
      expect(Object.keys(res.body.error.details).some((k) => k.startsWith(field))).toBe(true);
      expect(await w.posCreates(v.posVenueId)).toHaveLength(0);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM seatings WHERE booking_id = ${body.bookingId as string}`.execute(w.app.db.kysely);
      expect(rows[0].n).toBe(0);
    });

    it('[BKG-25] [BKG-31] seated without partySize, tables and date → 400 naming each as required when seated; another status needs none of them', async () => {
      const bare = { bookingId: bookingId(), venueId: v.externalId };
      const res = await w.seat({ ...bare, status: 'seated' });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details).toEqual({
        partySize: ['is required when status is seated'],
        tables: ['is required when status is seated'],
        date: ['is required when status is seated'],
      });
      const other = await w.seat({ ...bare, status: 'confirmed' });
      expect(other.status, other.text).toBe(200);
      expect(other.body).toMatchObject({ status: 'unchanged', orderId: null });
    });
  });
});
