import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { AppError } from '../../src/lib/errors.ts';
import { loadPosTypes } from '../../src/pos/pos-types.ts';
import { LocationConnectedError } from '../../src/pos-mirror/connections.service.ts';
import { describeEachStore } from '../helpers/db.ts';
import { POS, startPatWorld } from '../helpers/pat.ts';

// The connections service of the POS mirror: the one place a venue is connected to a POS location
// (onboarding and the sandbox both go through it), and where a venue resolves to its POS.

describeEachStore('POS connections', (store) => {
  it('a venue is connected only with a currency: connect() refuses one without, and a connected one that lost it is an explicit error', async () => {
    const w = await startPatWorld({ store });
    const { connections } = w.app.service.app.services;
    const posType = loadPosTypes(w.app.config.posTypesFile).get(POS.immediate)!;
    const bare = await w.app.newVenue();
    await sql`UPDATE venues SET currency = NULL WHERE id = ${bare}`.execute(w.app.db.kysely);

    // Refused before the POS is asked anything: the location need not even exist.
    const refused = await connections.connect({ venueId: bare, posType, posVenueId: 'any-location' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(422);
    expect((refused as AppError).message).toMatch(/no currency/);
    expect(await connections.forVenue(bare)).toBeNull();

    // A connected venue whose currency was removed around the service: never a guessed currency.
    const v = await w.connectVenue();
    expect((await connections.forVenue(v.venueId))!.venue.currency).toBe('EUR');
    await sql`UPDATE venues SET currency = NULL WHERE id = ${v.venueId}`.execute(w.app.db.kysely);
    await expect(connections.forVenue(v.venueId)).rejects.toThrow(new RegExp(`Venue ${v.venueId} is connected to a POS but has no currency`));
  });

  it('[DES-095] [PATV-23] one POS location connects one venue: a second venue on it is refused with LocationConnectedError and left unconnected', async () => {
    const w = await startPatWorld({ store });
    const { connections } = w.app.service.app.services;
    const v = await w.connectVenue();
    const other = await w.app.newVenue();
    const posType = loadPosTypes(w.app.config.posTypesFile).get(POS.immediate)!;
    const refused = await connections.connect({ venueId: other, posType, posVenueId: v.posVenueId }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LocationConnectedError);
    expect(await connections.forVenue(other)).toBeNull();
    expect((await connections.forVenue(v.venueId))!.connection).toMatchObject({ pos_venue_id: v.posVenueId, status: 'active' });
  });
});
