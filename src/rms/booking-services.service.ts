import type { Logger } from 'pino';
import { awaitEpoch, currentEpoch, type CredentialCache } from '../auth/credential-cache.ts';
import type { Db } from '../db/db.ts';
import { createSealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound, validationFailed } from '../lib/errors.ts';
import { checkOutboundUrl, type Resolver } from '../lib/outbound-url.ts';
import { CONTRACT_CALLS, healthOf, type HealthNote } from './booking-services.fns.ts';
import type { BookingServices, PutBookingServicesBody } from './booking-services.schemas.ts';
import { findConnection, findEndpoint, recordCheck, saveConnection } from './booking-services.repository.ts';
import { RmsError, type RmsClient, type RmsClients, type RmsEndpoint } from './rms-client.ts';

// DESIGN 8.1: connecting an RMS partner's booking services. The URL must pass the outbound-URL
// guard (https; a public address unless ALLOW_PRIVATE_TARGETS) and answer GET /healthcheck with 200
// to the given key before anything is saved. The key is sealed (db/sealing-key.ts), never answered.
// Every later call through `client()` keeps `lastHealthCheck` true (booking-services.fns.ts says
// what a call's outcome means): a failure is recorded, and so is the first success after one.
//
// Every availability lookup needs the partner's endpoint and key: a process keeps the row it read in
// the credential cache (issue 28), under the same lease and epoch as partners' credentials. A new
// URL or key bumps the epoch by trigger (migration 025) and `put` returns only once every live
// holder has dropped the old one, so no process sends the old key after a rotation returns.

/**
 * How long a process trusts what it last recorded for a partner: within it, the same news is not
 * written again (one write a minute at most during an outage, none while all is well); past it, a
 * success checks the record once more, so a failure another process recorded does not outlive the
 * outage by more than this.
 */
const HEALTH_NOTE_MS = 60_000;

/** The settings row of the key sealing what RMS partners' calls need at rest (their booking-services keys, channels' payment tokens). */
export const RMS_SEALING_KEY_SETTING = 'rms.sealing_key';

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
  /** Where endpoints read are kept between requests (none: every call reads its row). */
  credentials?: Pick<CredentialCache, 'lookup'>;
}

const UNCACHED: Pick<CredentialCache, 'lookup'> = { lookup: (_kind, _hash, load) => load() };

export function createBookingServicesService(deps: BookingServicesDeps) {
  const { db, clock, clients, credentials = UNCACHED } = deps;
  const sealer = createSealer({ db, clock, secretsKey: deps.secretsKey, setting: RMS_SEALING_KEY_SETTING });
  const noted = new Map<string, { ok: boolean; atMs: number }>();
  const watchedClients = new WeakMap<RmsClient, RmsClient>();
  /** The endpoint of each connection row read (kept as long as the row is: the credential cache's entry). */
  const unsealed = new WeakMap<object, RmsEndpoint>();

  /** Records what a call found, unless this process recorded the same news less than a minute ago. */
  async function note(partnerId: string, health: HealthNote): Promise<void> {
    const at = clock.now();
    const last = noted.get(partnerId);
    if (last && last.ok === health.ok && at.getTime() - last.atMs < HEALTH_NOTE_MS) return;
    noted.set(partnerId, { ok: health.ok, atMs: at.getTime() });
    try {
      // Never a transaction: the call is over, this is one statement on its own.
      await recordCheck(db.kysely, partnerId, { at, ok: health.ok, message: health.message }, health.ok);
    } catch (err) {
      deps.log.warn({ err, partnerId }, 'could not record the booking services health');
    }
  }

  /** The client, each contract call of it noting what it found (the same client is wrapped once). */
  function watched(partnerId: string, client: RmsClient): RmsClient {
    let proxy = watchedClients.get(client);
    if (proxy) return proxy;
    const seen = async (call: string, err: unknown) => {
      const health = err === null ? healthOf(call, null) : err instanceof RmsError ? healthOf(call, err) : null;
      if (health) await note(partnerId, health);
    };
    proxy = new Proxy(client, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof prop !== 'string' || !(prop in CONTRACT_CALLS) || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          let result: unknown;
          try {
            result = await value.apply(target, args);
          } catch (err) {
            await seen(prop, err);
            throw err;
          }
          await seen(prop, null);
          return result;
        };
      },
    });
    watchedClients.set(client, proxy);
    return proxy;
  }

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
      const epoch = await db.kysely.transaction().execute(async (tx) => {
        await saveConnection(tx, {
          partner_id: partnerId, base_url: baseUrl, api_key_sealed: sealed,
          last_check_at: now, last_check_ok: true, last_check_message: 'GET /healthcheck answered 200',
        }, now);
        return currentEpoch(tx);
      });
      // A rotation: no process sends the old URL or key once this returns.
      await awaitEpoch(db.kysely, epoch);
      noted.set(partnerId, { ok: true, atMs: now.getTime() });
      return view(partnerId);
    },

    /** The partner's endpoint with its key unsealed, or null when none is connected. */
    async endpoint(partnerId: string): Promise<RmsEndpoint | null> {
      const row = await credentials.lookup('rms-connection', partnerId, () => findEndpoint(db.kysely, partnerId));
      if (!row) return null;
      // Unsealed once per row read: the cache hands out the same row until the epoch moves (a new
      // key is a new row), and the decipher was ~5% of a live lookup's main thread (issue 28, profiled).
      let endpoint = unsealed.get(row);
      if (endpoint) return endpoint;
      let apiKey: string;
      try {
        apiKey = await sealer.open(row.api_key_sealed);
      } catch (err) {
        // SECRETS_KEY changed (or the row was altered): the key cannot be sent until it is given again.
        deps.log.error({ err, partnerId }, 'the stored booking-services key cannot be unsealed');
        throw new RmsError('not_connected', 'The stored booking-services key cannot be read (was SECRETS_KEY changed?); PUT /v1/rms/booking-services again.');
      }
      endpoint = { baseUrl: row.base_url, apiKey };
      unsealed.set(row, endpoint);
      return endpoint;
    },

    /** The client of the partner's RMS, or null when it has not connected one; its calls keep `lastHealthCheck` true. */
    async client(partnerId: string): Promise<RmsClient | null> {
      const endpoint = await this.endpoint(partnerId);
      return endpoint ? watched(partnerId, clients.for(partnerId, endpoint)) : null;
    },
  };
}

export type BookingServicesService = ReturnType<typeof createBookingServicesService>;
