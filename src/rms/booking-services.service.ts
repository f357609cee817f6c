import type { Logger } from 'pino';
import type { Db } from '../db/db.ts';
import { createSealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound, validationFailed } from '../lib/errors.ts';
import { checkOutboundUrl, type Resolver } from '../lib/outbound-url.ts';
import type { BookingServices, PutBookingServicesBody } from './booking-services.schemas.ts';
import { findConnection, saveConnection } from './booking-services.repository.ts';
import { RmsError, type RmsClient, type RmsClients, type RmsEndpoint } from './rms-client.ts';

// DESIGN 8.1: connecting an RMS partner's booking services. The URL must pass the outbound-URL
// guard (https; a public address unless ALLOW_PRIVATE_TARGETS) and answer GET /healthcheck with 200
// to the given key before anything is saved. The key is sealed (db/sealing-key.ts), never answered.

/** Where the key sealing booking-services keys is kept when SECRETS_KEY is unset (db/sealing-key.ts). */
const SEALING_KEY_SETTING = 'rms.sealing_key';

export interface BookingServicesDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  clients: RmsClients;
  allowPrivateTargets: boolean;
  /** SECRETS_KEY; null: a key generated once and kept in the store. */
  secretsKey: Buffer | null;
  /** Tests resolve host names their own way (DNS rebinding). */
  resolver?: Resolver;
}

export function createBookingServicesService(deps: BookingServicesDeps) {
  const { db, clock, clients } = deps;
  const sealer = createSealer({ db, clock, secretsKey: deps.secretsKey, setting: SEALING_KEY_SETTING });

  async function view(partnerId: string): Promise<BookingServices> {
    const row = await findConnection(db.kysely, partnerId);
    if (!row) throw notFound('No booking services are connected yet: PUT /v1/rms/booking-services {baseUrl, apiKey}.');
    return {
      baseUrl: row.base_url,
      apiKeySet: true,
      lastHealthCheck: { at: row.last_check_at.toISOString(), ok: row.last_check_ok, message: row.last_check_message },
    };
  }

  return {
    get: view,

    /** Checks then saves (BKG-01, BKG-03); a failed check is a 400 naming baseUrl and saves nothing. */
    async put(partnerId: string, body: PutBookingServicesBody): Promise<BookingServices> {
      const baseUrl = body.baseUrl.replace(/\/+$/, '');
      const checked = await checkOutboundUrl(baseUrl, { allowPrivate: deps.allowPrivateTargets, resolver: deps.resolver });
      if (!checked.ok) throw validationFailed({ baseUrl: [checked.problem] });
      if (checked.url.search || checked.url.hash) throw validationFailed({ baseUrl: ['must not carry a query or a fragment'] });
      try {
        await clients.once({ baseUrl, apiKey: body.apiKey }, (c) => c.healthcheck());
      } catch (err) {
        const problem = err instanceof RmsError ? err.message : 'the healthcheck failed';
        throw validationFailed({ baseUrl: [`GET ${baseUrl}/healthcheck must answer 200 to this apiKey: ${problem}`] }, 'The booking services did not pass the healthcheck; nothing was saved.');
      }
      const sealed = await sealer.seal(body.apiKey);
      const now = clock.now();
      await saveConnection(db.kysely, {
        partner_id: partnerId, base_url: baseUrl, api_key_sealed: sealed,
        last_check_at: now, last_check_ok: true, last_check_message: 'GET /healthcheck answered 200',
      }, now);
      return view(partnerId);
    },

    /** The partner's endpoint with its key unsealed, or null when none is connected. */
    async endpoint(partnerId: string): Promise<RmsEndpoint | null> {
      const row = await findConnection(db.kysely, partnerId);
      if (!row) return null;
      let apiKey: string;
      try {
        apiKey = await sealer.open(row.api_key_sealed);
      } catch (err) {
        // SECRETS_KEY changed (or the row was altered): the key cannot be sent until it is given again.
        deps.log.error({ err, partnerId }, 'the stored booking-services key cannot be unsealed');
        throw new RmsError('not_connected', 'The stored booking-services key cannot be read (was SECRETS_KEY changed?); PUT /v1/rms/booking-services again.');
      }
      return { baseUrl: row.base_url, apiKey };
    },

    /** The client of the partner's RMS, or null when it has not connected one. */
    async client(partnerId: string): Promise<RmsClient | null> {
      const endpoint = await this.endpoint(partnerId);
      return endpoint ? clients.for(partnerId, endpoint) : null;
    },
  };
}

export type BookingServicesService = ReturnType<typeof createBookingServicesService>;
