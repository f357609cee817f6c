import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { conflict, forbidden, notFound, validationFailed } from '../lib/errors.ts';
import { parseAmount } from '../lib/money.ts';
import type { OnboardingService } from '../onboarding/onboarding.service.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import type { ConnectedVenue, ConnectionsService } from '../pos-mirror/connections.service.ts';
import type { SeatAnswer, SeatingService } from '../pos-mirror/reservation-orders.service.ts';
import * as repo from './seated-reservations.repository.ts';
import { isSeated, type PosConnectionBody, type ReservationEvent } from './seated-reservations.schemas.ts';

// The RMS side of seating (DESIGN 8.3c): the venue named by the RMS's own id, its POS tables for
// the RMS's table matching, the onboarding link that connects it to its POS (the same flow and page
// as a pay-at-table venue, DESIGN 6.5), and reservation events, handed to the POS mirror's seating.

export interface RmsSeatingDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  posTypes: PosTypeRegistry;
  connections: Pick<ConnectionsService, 'forVenue'>;
  seating: Pick<SeatingService, 'posTables' | 'seat' | 'recordOther'>;
  onboarding: Pick<OnboardingService, 'open'>;
}

export const NO_ACTIVE_POS =
  'This venue has no active POS connection: connect it with POST /v1/rms/venues/{externalId}/pos-connection and have the restaurant complete the onboarding link.';

export function createRmsSeatingService({ db, clock, posTypes, connections, seating, onboarding }: RmsSeatingDeps) {
  /** The partner's venue by externalId: 404 when nobody has it, 403 when it is another partner's. */
  async function venueOf(partnerId: string, externalId: string): Promise<string> {
    const own = await repo.findOwnVenue(db.kysely, partnerId, externalId);
    if (own) return own.id;
    if (await repo.othersHave(db.kysely, partnerId, externalId)) throw forbidden('This venue belongs to another partner.');
    throw notFound(`No venue of yours has the externalId ${JSON.stringify(externalId)}.`);
  }

  async function activeConnection(venueId: string): Promise<ConnectedVenue> {
    const cv = await connections.forVenue(venueId);
    if (!cv) throw notFound(NO_ACTIVE_POS);
    if (cv.connection.status !== 'active') {
      throw notFound('This venue has no active POS connection: its connection is suspended until the operator or its POS restores it.');
    }
    return cv;
  }

  return {
    async posTables(partnerId: string, externalId: string) {
      const cv = await activeConnection(await venueOf(partnerId, externalId));
      const tables = await seating.posTables(cv);
      return { venueId: externalId, tables, count: tables.length };
    },

    async posConnection(partnerId: string, externalId: string, body: PosConnectionBody) {
      const venueId = await venueOf(partnerId, externalId);
      if (!posTypes.get(body.posType)) {
        const codes = posTypes.list().map((t) => t.code);
        throw validationFailed({ posType: [`must be one of the POS types listed by GET /v1/pat/pos-types${codes.length ? ` (${codes.join(', ')})` : ''}`] });
      }
      const cv = await connections.forVenue(venueId);
      if (cv) throw conflict(`This venue is connected to a POS already (${cv.posType.code}, location ${cv.connection.pos_venue_id}).`);
      const link = await db.kysely.transaction().execute((tx) => onboarding.open(tx, venueId, body.posType, clock.now()));
      return { onboarding: link };
    },

    async reservation(partnerId: string, event: ReservationEvent): Promise<SeatAnswer> {
      const venueId = await venueOf(partnerId, event.venueId);
      const recorded = event as unknown as Record<string, unknown>;
      if (!isSeated(event)) {
        const orderId = await seating.recordOther(partnerId, venueId, event.bookingId, event.status, recorded);
        return { httpStatus: 200, body: { bookingId: event.bookingId, orderId, status: 'unchanged', unknownSkus: [] } };
      }
      const reservationDate = new Date(event.date);
      if (Number.isNaN(reservationDate.getTime())) throw validationFailed({ date: ['must be a real date-time'] });
      const cv = await activeConnection(venueId);
      const prepayment = parseAmount(event.prepayment ?? 0, cv.venue.currency);
      if (!prepayment.ok) throw validationFailed({ prepayment: [prepayment.problem] });
      return seating.seat({
        partnerId,
        cv,
        bookingId: event.bookingId,
        partySize: event.partySize,
        tables: event.tables,
        reservationDate,
        prepaymentMinor: prepayment.minor,
        guestName: event.guestName,
        guestEmail: event.guestEmail,
        guestTelephone: event.guestTelephone,
        items: event.items,
        event: recorded,
      });
    },
  };
}

export type RmsSeatingService = ReturnType<typeof createRmsSeatingService>;
