import pino from 'pino';
import type { OperatorServices } from '../admin/commands.ts';
import { createAuthService } from '../auth/auth.service.ts';
import type { Config } from '../config.ts';
import { createChannelsService } from '../content/channels.service.ts';
import type { Db } from '../db/db.ts';
import { systemClock } from '../lib/clock.ts';
import { PosClients } from '../pos/pos-client.ts';
import { loadPosTypes } from '../pos/pos-types.ts';
import { createConnectionsService } from '../pos-mirror/connections.service.ts';
import { createLogger } from '../server/logger.ts';

/** The services of the operator's commands, for a CLI process that runs them on the store itself. */
export function operatorServices(config: Config, db: Db): { services: OperatorServices; close(): Promise<void> } {
  const clock = systemClock;
  // stdout is the command's JSON answer: log lines go to stderr.
  const log = createLogger(config.logLevel, pino.destination(2));
  const posClients = new PosClients({ timeoutMs: config.posTimeoutMs });
  return {
    services: {
      auth: createAuthService({ db, clock, accessTokenTtlS: config.accessTokenTtlS }),
      channels: createChannelsService({ db, clock }),
      connections: createConnectionsService({ db, clock, log, posTypes: loadPosTypes(config.posTypesFile), posClients }),
    },
    close: () => posClients.close(),
  };
}
