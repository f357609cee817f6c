import type { Config } from '../config.ts';
import { DataDirLockedError, lockOwner } from '../db/lock.ts';
import { runRemoteCommand } from '../operator/admin-client.ts';
import type { CommandName } from '../operator/commands.ts';

// The CLI's side of the operator's commands (src/operator). A command runs where the store is:
// directly on PostgreSQL or on an embedded directory nobody owns, over the same services a server
// builds; or, while a server owns the embedded directory, through that server's admin endpoint.

/** Runs an operator command against the configured store and returns its result. */
export async function runOperatorCommand(config: Config, name: CommandName, args: Record<string, unknown>): Promise<unknown> {
  if (!config.databaseUrl && lockOwner(config.dataDir) !== null) {
    return runRemoteCommand(config.dataDir, name, args);
  }
  // The store and the services load PGlite, pg and Kysely: only when this process runs the command.
  const [{ openStore }, { runCommand }, { buildServices }, { default: pino }, { createLogger }, { PosClients }, { loadPosTypes }, { systemClock }, { RmsClients }] =
    await Promise.all([
      import('../db/store.ts'),
      import('../operator/commands.ts'),
      import('./services.ts'),
      import('pino'),
      import('../server/logger.ts'),
      import('../pos/pos-clients.ts'),
      import('../pos/pos-types.ts'),
      import('../lib/clock.ts'),
      import('../rms/rms-client.ts'),
    ]);
  let store;
  try {
    // `migrate` reports what it applied, so it must not find the work already done by the open.
    store = await openStore(config, { migrate: name !== 'migrate', command: true });
  } catch (err) {
    // A server took the directory between our look and our open.
    if (err instanceof DataDirLockedError) return runRemoteCommand(config.dataDir, name, args);
    throw err;
  }
  const posClients = new PosClients({ timeoutMs: config.posTimeoutMs });
  const rmsClients = new RmsClients({ timeoutMs: config.rmsTimeoutMs, allowPrivate: config.allowPrivateTargets });
  try {
    const { services } = buildServices({
      config,
      db: store.db,
      clock: systemClock,
      // stdout carries the command's answer: log lines go to stderr.
      log: createLogger(config.logLevel, pino.destination(2)),
      posTypes: loadPosTypes(config.posTypesFile),
      posClients,
      rmsClients,
    });
    return await runCommand(name, args, { db: store.db, services });
  } finally {
    await posClients.close();
    await rmsClients.close();
    await store.close();
  }
}
