import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openEmbedded, type Db } from '../../src/db/db.ts';
import { addChannelAudience, emit, OUTBOX_EVENT_JOB } from '../../src/db/outbox.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { describeEachStore, newPostgres, newStore, type StoreKind } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';

// The outbox (db/outbox.ts): an event is a row written in the transaction of its change, scoped to
// a partner or a venue, with its type, the id of its entity, its JSON data and when it was written.

const T0 = new Date('2030-01-02T03:04:05.000Z');

async function partnerAndVenue(db: Db): Promise<{ partnerId: string; venueId: string }> {
  const partnerId = uuidv7();
  const venueId = uuidv7();
  await sql`INSERT INTO partners (id, name, access, active, created_at) VALUES (${partnerId}, 'P', ${['pat']}::text[], true, ${T0})`.execute(db.kysely);
  await sql`INSERT INTO venues (id, name, currency, created_at, updated_at) VALUES (${venueId}, 'V', 'EUR', ${T0}, ${T0})`.execute(db.kysely);
  return { partnerId, venueId };
}

const rows = async (db: Db, entityId: string) =>
  (await sql<Record<string, unknown>>`SELECT partner_id, venue_id, type, entity_id, data, created_at FROM outbox WHERE entity_id = ${entityId}`.execute(db.kysely)).rows;

describeEachStore('the outbox', (store) => {
  let db: Db;
  beforeAll(async () => {
    db = await newStore(store);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('an event emitted in a transaction that commits is one row with its scope, type, entity, data and time', async () => {
    const { partnerId, venueId } = await partnerAndVenue(db);
    const entityId = uuidv7();
    await db.kysely.transaction().execute((tx) =>
      emit(tx, { partnerId, venueId }, { type: 'payment.late_confirmation', entityId, data: { paymentId: entityId, amount: 12.5 } }, T0),
    );
    expect(await rows(db, entityId)).toEqual([
      { partner_id: partnerId, venue_id: venueId, type: 'payment.late_confirmation', entity_id: entityId, data: { paymentId: entityId, amount: 12.5 }, created_at: T0 },
    ]);
  });

  it('[WHK-03] emit numbers the events of one entity 1, 2, 3 (another kind with the same id counts apart) and writes one fan-out job per event, with a NOTIFY', async () => {
    const { partnerId, venueId } = await partnerAndVenue(db);
    const entityId = uuidv7();
    const heard: string[] = [];
    const unlisten = await db.listen('tableside_jobs', (payload) => heard.push(payload));
    try {
      const ids = await db.kysely.transaction().execute(async (tx) => [
        await emit(tx, { partnerId, venueId }, { type: 'payment.confirmed', entityId, data: {} }, T0),
        await emit(tx, { venueId }, { type: 'booking.created', entityId, data: {} }, T0),
        await emit(tx, { partnerId }, { type: 'payment.late_answer', entityId, data: {} }, T0),
      ]);
      ids.push(await db.kysely.transaction().execute((tx) => emit(tx, { partnerId }, { type: 'payment.late_confirmation', entityId, data: {} }, T0)));
      const { rows: events } = await sql<{ id: string; type: string; sequence: number }>`
        SELECT id, type, sequence FROM outbox WHERE entity_id = ${entityId} ORDER BY type`.execute(db.kysely);
      expect(events).toEqual([
        { id: ids[1], type: 'booking.created', sequence: 1 },
        { id: ids[0], type: 'payment.confirmed', sequence: 1 },
        { id: ids[2], type: 'payment.late_answer', sequence: 2 },
        { id: ids[3], type: 'payment.late_confirmation', sequence: 3 },
      ]);
      const { rows: jobs } = await sql<{ kind: string; dedupe_key: string | null; payload: { eventId: string }; run_at: Date }>`
        SELECT kind, dedupe_key, payload, run_at FROM jobs WHERE payload->>'eventId' = ANY(${ids}::text[])`.execute(db.kysely);
      const byEvent = (a: { payload: { eventId: string } }, b: { payload: { eventId: string } }) => a.payload.eventId.localeCompare(b.payload.eventId);
      expect(jobs.sort(byEvent)).toEqual(ids.map((eventId) => ({ kind: OUTBOX_EVENT_JOB, dedupe_key: null, payload: { eventId }, run_at: T0 })).sort(byEvent));
      await eventually(() => expect(heard).toContain(OUTBOX_EVENT_JOB), { what: 'the NOTIFY' });
    } finally {
      await unlisten();
    }
  });

  it('[WHK-03] one sequence per entity: an order\'s pos_order.* and order.* events share one counter, a venue\'s venue.* and pos_connection.* another', async () => {
    const { partnerId, venueId } = await partnerAndVenue(db);
    const orderId = uuidv7();
    const emitOne = (type: string, entityId: string) => db.kysely.transaction().execute((tx) => emit(tx, { partnerId, venueId }, { type, entityId, data: {} }, T0));
    for (const type of ['pos_order.opened', 'pos_order.unknown_skus', 'order.closed']) await emitOne(type, orderId);
    for (const type of ['venue.onboarded', 'pos_connection.suspended', 'pos_connection.resumed']) await emitOne(type, venueId);
    const sequences = async (entityId: string) => (await sql<{ type: string; sequence: number }>`
      SELECT type, sequence FROM outbox WHERE entity_id = ${entityId} ORDER BY sequence`.execute(db.kysely)).rows;
    expect(await sequences(orderId)).toEqual([
      { type: 'pos_order.opened', sequence: 1 }, { type: 'pos_order.unknown_skus', sequence: 2 }, { type: 'order.closed', sequence: 3 },
    ]);
    expect(await sequences(venueId)).toEqual([
      { type: 'venue.onboarded', sequence: 1 }, { type: 'pos_connection.suspended', sequence: 2 }, { type: 'pos_connection.resumed', sequence: 3 },
    ]);
  });

  it('[WHK-03] counters the previous release kept per type prefix go on: the next event of the entity is numbered above all of them', async () => {
    const { partnerId, venueId } = await partnerAndVenue(db);
    const orderId = uuidv7();
    const closedFirst = uuidv7();
    // What the previous release left: an order numbered apart under pos_order and order, a venue under venue and pos_connection.
    await sql`INSERT INTO outbox_sequences (entity_kind, entity_id, last) VALUES
      ('pos_order', ${orderId}, 2), ('order', ${orderId}, 1),
      ('order', ${closedFirst}, 4), ('pos_order', ${closedFirst}, 1),
      ('venue', ${venueId}, 1), ('pos_connection', ${venueId}, 5)`.execute(db.kysely);
    const next = async (type: string, entityId: string) => {
      const id = await db.kysely.transaction().execute((tx) => emit(tx, { partnerId, venueId }, { type, entityId, data: {} }, T0));
      return (await sql<{ sequence: number }>`SELECT sequence FROM outbox WHERE id = ${id}`.execute(db.kysely)).rows[0]!.sequence;
    };
    expect(await next('order.closed', orderId)).toBe(3);
    expect(await next('pos_order.failed', orderId)).toBe(4);
    expect(await next('pos_order.opened', closedFirst)).toBe(5);
    expect(await next('venue.onboarded', venueId)).toBe(6);
    expect(await next('pos_connection.resumed', venueId)).toBe(7);
  });

  it('[CHN-29] addChannelAudience gives an event its booking channel and that channel\'s view, in the same transaction; an unknown channel id (or none of the form) changes nothing', async () => {
    const { partnerId, venueId } = await partnerAndVenue(db);
    const channelId = uuidv7();
    await sql`INSERT INTO booking_channels (id, name, created_at) VALUES (${channelId}, 'C', ${T0})`.execute(db.kysely);
    const audience = async (entityId: string, channel: string) => db.kysely.transaction().execute(async (tx) => {
      const eventId = await emit(tx, { partnerId, venueId }, { type: 'booking.created', entityId, data: { partners: true } }, T0);
      return { eventId, added: await addChannelAudience(tx, eventId, channel, { channels: true }) };
    });
    const read = async (eventId: string) =>
      (await sql<{ data: unknown; channel_id: string | null; channel_data: unknown }>`SELECT data, channel_id, channel_data FROM outbox WHERE id = ${eventId}`.execute(db.kysely)).rows[0];
    const known = await audience(uuidv7(), channelId);
    expect(known.added).toBe(true);
    expect(await read(known.eventId)).toEqual({ data: { partners: true }, channel_id: channelId, channel_data: { channels: true } });
    for (const other of [uuidv7(), 'chan-not-a-uuid']) {
      const unknown = await audience(uuidv7(), other);
      expect(unknown.added).toBe(false);
      expect(await read(unknown.eventId)).toEqual({ data: { partners: true }, channel_id: null, channel_data: null });
    }
  });

  it('an event emitted in a transaction that rolls back does not exist', async () => {
    const { venueId } = await partnerAndVenue(db);
    const entityId = uuidv7();
    await expect(
      db.kysely.transaction().execute(async (tx) => {
        await emit(tx, { venueId }, { type: 'venue.onboarded', entityId, data: { venueId } }, T0);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await rows(db, entityId)).toEqual([]);
  });

  it('an event needs a recipient (a partner or a venue) and a dotted type; the table refuses a row without a recipient too', async () => {
    const entityId = uuidv7();
    await expect(emit(db.kysely, { venueId: null as unknown as string }, { type: 'venue.onboarded', entityId, data: {} }, T0)).rejects.toThrow(/partner or a venue/);
    const { venueId } = await partnerAndVenue(db);
    await expect(emit(db.kysely, { venueId }, { type: 'VenueOnboarded', entityId, data: {} }, T0)).rejects.toThrow(/dotted/);
    await expect(
      sql`INSERT INTO outbox (id, type, entity_id, data, created_at) VALUES (${uuidv7()}, 'venue.onboarded', ${entityId}, '{}'::jsonb, ${T0})`.execute(db.kysely),
    ).rejects.toThrow(/outbox_scope/);
    expect(await rows(db, entityId)).toEqual([]);
  });
});

/** A store with no migration applied yet. */
async function blankStore(kind: StoreKind): Promise<Db> {
  return kind === 'pglite' ? openEmbedded() : newPostgres({ migrate: false });
}

describeEachStore('migration 009: the events table becomes the outbox', (store) => {
  it('rows written before keep their data and get their venue scope and entity id', async () => {
    const db = await blankStore(store);
    try {
      const dir = join(import.meta.dirname, '../../src/db/migrations');
      const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
      const run = (file: string) => sql.raw(readFileSync(join(dir, file), 'utf8')).execute(db.kysely);
      for (const file of files.filter((f) => f < '009')) await run(file);
      const { partnerId, venueId } = await partnerAndVenue(db);
      const paymentId = uuidv7();
      await sql`INSERT INTO events (id, partner_id, type, payload, created_at) VALUES
                  (${uuidv7()}, ${partnerId}, 'payment.late_confirmation', ${JSON.stringify({ paymentId, venueId })}::jsonb, ${T0}),
                  (${uuidv7()}, NULL, 'venue.onboarded', ${JSON.stringify({ venueId })}::jsonb, ${T0})`.execute(db.kysely);
      await run(files.find((f) => f.startsWith('009'))!);
      const { rows: after } = await sql<Record<string, unknown>>`
        SELECT partner_id, venue_id, type, entity_id, data FROM outbox ORDER BY type`.execute(db.kysely);
      expect(after).toEqual([
        { partner_id: partnerId, venue_id: venueId, type: 'payment.late_confirmation', entity_id: paymentId, data: { paymentId, venueId } },
        { partner_id: null, venue_id: venueId, type: 'venue.onboarded', entity_id: venueId, data: { venueId } },
      ]);
    } finally {
      await db.close();
    }
  });
});
