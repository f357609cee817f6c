import { runRemoteCommand } from '../admin/admin-client.ts';
import type { CommandName } from '../admin/commands.ts';
import type { Config } from '../config.ts';
import { DataDirLockedError, lockOwner } from '../db/lock.ts';

/**
 * Runs an operator command against the configured store: directly on PostgreSQL or an embedded
 * directory nobody owns, or through the admin endpoint of the server that owns the directory.
 */
export async function runOperatorCommand(config: Config, name: CommandName, args: Record<string, unknown>): Promise<unknown> {
  if (!config.databaseUrl && lockOwner(config.dataDir) !== null) {
    return runRemoteCommand(config.dataDir, name, args);
  }
  // The store and the commands load PGlite, pg and Kysely: only when this process runs the command.
  const [{ openStore }, { runCommand }] = await Promise.all([import('../db/store.ts'), import('../admin/commands.ts')]);
  let store;
  try {
    // `migrate` reports what it applied, so it must not find the work already done by the open.
    store = await openStore(config, { migrate: name !== 'migrate' });
  } catch (err) {
    // A server took the directory between our look and our open.
    if (err instanceof DataDirLockedError) return runRemoteCommand(config.dataDir, name, args);
    throw err;
  }
  const { operatorServices } = await import('./operator-services.ts');
  const { services, close } = operatorServices(config, store.db);
  try {
    return await runCommand(name, args, { db: store.db, services });
  } finally {
    await close();
    await store.close();
  }
}
