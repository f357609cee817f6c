import type { RequestLog } from '../../pos-simulator/src/request-log.ts';
import type { SimClock } from '../../pos-simulator/src/time.ts';
import type { ServiceAccounts } from './accounts.ts';
import type { NotifiedBooking } from './api.fns.ts';
import type { RespondDeps } from './respond.ts';
import type { Script } from './script.ts';
import type { AccessTokens } from './tokens.ts';

// What the server hands its route plugins: its own file, so the plugins and the server that mounts
// them do not import each other.

export interface Settings {
  /** The token endpoint's URL: the audience every assertion must name (known once listening). */
  tokenUri: string;
  tokenLifetimeS: number;
  clockSkewS: number;
}

export interface ServerDeps extends RespondDeps {
  accounts: ServiceAccounts;
  tokens: AccessTokens;
  script: Script;
  log: RequestLog;
  clock: SimClock;
  settings: Settings;
  /** What Google holds of each booking notified, by resource name. */
  bookings: Map<string, NotifiedBooking>;
  keys: { control: string; read: string };
}

