import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, notFound } from '../lib/errors.ts';
import type { PosClients } from '../pos/pos-clients.ts';
import type { PosType, PosTypeRegistry } from '../pos/pos-types.ts';
import type { ConnectedVenue, ConnectionRow, VenueRow, VenueWithConnection } from './connections.fns.ts';
import * as repo from './connections.repository.ts';
import { scheduleOrderSync } from './sync.service.ts';
import { importTables } from './tables.repository.ts';

export type { ConnectedVenue, ConnectionRow, SuspensionReason, VenueRow, VenueWithConnection } from './connections.fns.ts';

// A venue's connection to a location of a POS: the one place that connects a venue (onboarding,
// sandbox), switches a connection off and on (the operator's `venue suspend|resume`), and resolves
// a venue to the POS it talks to (pay-at-table, the order sync, seating).

export interface ConnectionsServiceDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  log: Logger;
  posTypes: PosTypeRegistry;
  posClients: PosClients;
}

/** The POS location is connected to another venue already (one location, one venue). */
export class LocationConnectedError extends Error {
  constructor(readonly posType: string, readonly posVenueId: string) {
    super(`POS location ${posType}/${posVenueId} is already connected to another venue`);
    this.name = 'LocationConnectedError';
  }
}

export interface ConnectInput {
  venueId: string;
  posType: PosType;
  posVenueId: string;
}

export type ConnectResult = { connected: true; tables: number } | { connected: false };

export function createConnectionsService({ db, clock, log, posTypes, posClients }: ConnectionsServiceDeps) {
  /** A venue and its connection as a ConnectedVenue; null without a connection or with a POS type no longer configured. */
  function resolve(found: VenueWithConnection | null): ConnectedVenue | null {
    const connection = found?.connection;
    const posType = connection ? posTypes.get(connection.pos_type) : undefined;
    if (!found || !connection || !posType) return null;
    const { venue } = found;
    // Money on a connected venue is in its currency; connect() never connects a venue without
    // one, so a row like that was written around the service and is reported, not guessed at.
    if (!venue.currency) throw new Error(`Venue ${venue.id} is connected to a POS but has no currency; set the venue's currency.`);
    return { venue: { ...venue, currency: venue.currency }, connection, posType, pos: posClients.for(posType) };
  }

  return {
    /** The venue's POS connection, resolved; null when it has none. */
    async forVenue(venueId: string, ex: Executor = db.kysely): Promise<ConnectedVenue | null> {
      return resolve(await repo.findVenueWithConnection(ex, venueId));
    },

    /**
     * A venue in the partner's scope with its connection (null when not connected), in one round
     * trip; null when the venue is not in the partner's scope (or does not exist).
     */
    async inScope(partnerId: string, venueId: string): Promise<{ venue: VenueRow; connected: ConnectedVenue | null } | null> {
      return this.resolveScoped(await repo.findScopedVenue(db.kysely, partnerId, venueId));
    },

    /** What inScope answers, from a venue and connection the caller read in its own statement. */
    resolveScoped(found: VenueWithConnection | null): { venue: VenueRow; connected: ConnectedVenue | null } | null {
      return found ? { venue: found.venue, connected: resolve(found) } : null;
    },

    /**
     * Connects a venue to a POS location. The location is proved with the POS's tables call (no
     * transaction open); then one transaction runs the caller's own changes (`within`: returning
     * false there cancels the connection), records the connection, imports the tables and starts
     * the order sync. Throws LocationConnectedError when another venue has the location, and the
     * PosError of a POS that refuses or cannot be reached.
     */
    async connect(input: ConnectInput, within?: (tx: Executor, now: Date) => Promise<boolean | void>): Promise<ConnectResult> {
      const { venueId, posType, posVenueId } = input;
      const venue = await repo.findVenueWithConnection(db.kysely, venueId);
      // The venue may be created by `within` itself (the sandbox), so only a known one is checked here.
      if (venue && !venue.venue.currency) {
        throw new AppError('unprocessable', 'The venue has no currency; a venue needs one before it is connected to a POS.');
      }
      const taken = await repo.findConnectionByLocation(db.kysely, posType.code, posVenueId);
      if (taken && taken.venue_id !== venueId) throw new LocationConnectedError(posType.code, posVenueId);

      const tables = await posClients.for(posType).listTables(posVenueId);
      const now = clock.now();
      try {
        const connected = await db.kysely.transaction().execute(async (tx) => {
          if (within && (await within(tx, now)) === false) return false;
          await repo.insertConnection(tx, { venue_id: venueId, pos_type: posType.code, pos_venue_id: posVenueId }, now);
          await importTables(tx, venueId, tables, now);
          await repo.setTablesSyncedAt(tx, venueId, now);
          await scheduleOrderSync(tx, venueId, now);
          return true;
        });
        if (!connected) return { connected: false };
      } catch (err) {
        // Two venues claiming one location at the same moment: the unique constraint decides.
        if (isUniqueViolation(err)) throw new LocationConnectedError(posType.code, posVenueId);
        throw err;
      }
      log.info({ venueId, posType: posType.code }, 'venue connected to its POS');
      return { connected: true, tables: tables.length };
    },

    /**
     * The operator switches a venue's connection off: pay-at-table answers 404 and analytics omits
     * the venue until it is resumed. Only the operator lifts a suspension the operator made.
     */
    async suspend(venueId: string): Promise<ConnectionRow> {
      const row = await repo.suspendConnection(db.kysely, venueId, 'operator', clock.now());
      if (!row) throw notFound(`Venue ${venueId} has no POS connection.`);
      return row;
    },

    /** Makes a suspended connection active again, whatever suspended it, and restarts its order sync. */
    async resume(venueId: string): Promise<ConnectionRow> {
      const row = await db.kysely.transaction().execute(async (tx) => {
        const resumed = await repo.resumeConnection(tx, venueId, clock.now());
        // The sync job ended when the operator suspended the venue: start it again.
        if (resumed) await scheduleOrderSync(tx, venueId, clock.now());
        return resumed;
      });
      if (!row) throw notFound(`Venue ${venueId} has no POS connection.`);
      return row;
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;
