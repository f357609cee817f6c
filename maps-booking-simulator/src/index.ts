// Programmatic entry of the simulated Google Maps Booking API: start one, get its URLs, the CA to
// trust and a typed control client. It is a fake of an outside system and imports nothing from the
// service's src/.

import { randomBytes } from 'node:crypto';
import { HeldRequests } from '../../pos-simulator/src/held.ts';
import { RequestLog } from '../../pos-simulator/src/request-log.ts';
import { listenLocal } from '../../pos-simulator/src/server.ts';
import { SimClock } from '../../pos-simulator/src/time.ts';
import { selfSignedLocalhost, type TlsPair } from '../../pos-simulator/src/tls.ts';
import { ServiceAccounts, type RegisterInput } from './accounts.ts';
import type { NotifiedBooking } from './api.fns.ts';
import { MapsBookingControlClient } from './control-client.ts';
import { Script } from './script.ts';
import { buildServer, type Settings } from './server.ts';
import { AccessTokens } from './tokens.ts';

export interface MapsBookingSimulatorOptions {
  /** Port to listen on; 0 or omitted = any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** PEM key and certificate; default a fresh self-signed certificate for localhost/127.0.0.1. */
  tls?: TlsPair;
  /** Bearer key of the control API (default random). */
  controlKey?: string;
  /** Bearer key that may only read the calls, token requests and bookings (default random). */
  readKey?: string;
  /** `expires_in` of the access tokens issued (default 3599, as Google's). */
  tokenLifetimeS?: number;
  /** Clock difference tolerated on a JWT's iat and exp (default 60 s). */
  clockSkewS?: number;
  /** Service accounts known from the start (e.g. the sandbox's stored one, after a restart). */
  serviceAccounts?: RegisterInput[];
  /** Fastify request logging, to stderr. Default off. */
  logger?: boolean;
}

export interface MapsBookingSimulator {
  /** The API's base, as `--api-base` takes it, e.g. https://127.0.0.1:40123 (no trailing slash). */
  baseUrl: string;
  /** The token endpoint: the `token_uri` of the key files it issues, and the audience it checks. */
  tokenUri: string;
  /** PEM certificate clients must trust (self-signed unless tls was given). */
  ca: string;
  controlKey: string;
  readKey: string;
  control: MapsBookingControlClient;
  close(): Promise<void>;
}

const randomKey = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`;

export async function startMapsBookingSimulator(opts: MapsBookingSimulatorOptions = {}): Promise<MapsBookingSimulator> {
  const settings: Settings = { tokenUri: '', tokenLifetimeS: opts.tokenLifetimeS ?? 3599, clockSkewS: opts.clockSkewS ?? 60 };
  const keys = { control: opts.controlKey ?? randomKey('gsim'), read: opts.readKey ?? randomKey('gsimread') };
  const accounts = new ServiceAccounts();
  for (const account of opts.serviceAccounts ?? []) accounts.register(account);
  const held = new HeldRequests();

  const tls = opts.tls ?? (await selfSignedLocalhost());
  const app = buildServer(tls, {
    accounts, tokens: new AccessTokens(), script: new Script(), log: new RequestLog(), clock: new SimClock(),
    settings, bookings: new Map<string, NotifiedBooking>(), keys, held,
  }, opts.logger ?? false);
  const baseUrl = await listenLocal(app, opts.host, opts.port);
  settings.tokenUri = `${baseUrl}/token`;
  const control = new MapsBookingControlClient(baseUrl, keys.control, tls.cert);

  let closed: Promise<void> | undefined;
  return {
    baseUrl,
    tokenUri: settings.tokenUri,
    ca: tls.cert,
    controlKey: keys.control,
    readKey: keys.read,
    control,
    close: () => {
      closed ??= (async () => {
        held.release();
        await control.close();
        await app.close();
      })();
      return closed;
    },
  };
}

export { MapsBookingControlClient, type SettingsView } from './control-client.ts';
export { ControlError } from '../../pos-simulator/src/control-client.ts';
export type { TlsPair } from '../../pos-simulator/src/tls.ts';
export type { ServiceAccountKeyFile, ServiceAccountView, RegisterInput, GenerateInput } from './accounts.ts';
export type { ApiCall, TokenRequest, Answer } from './calls.ts';
export type { Operation, ScriptedAnswer, ScriptEntry } from './script.ts';
export { OPERATIONS } from './script.ts';
export {
  BOOKING_STATUSES, MAX_AVAILABILITY_RECORDS,
  type BookingStatus, type NotifiedBooking, type ServiceAvailabilityEntry, type AvailabilityRecord,
} from './api.fns.ts';
export { MAPS_BOOKING_SCOPE } from './jwt.fns.ts';
export { JWT_BEARER } from './token.routes.ts';
