import { createAuthService, parseAccess } from '../auth/auth.service.ts';
import type { Config } from '../config.ts';
import { createChannelsService } from '../content/channels.service.ts';
import type { Db } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import type { Clock } from '../lib/clock.ts';
import { badRequest, notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';

// The operator's commands, as functions of the store. The CLI runs them against the store itself,
// or, while a server owns the embedded data directory, asks that server to run them (admin
// endpoint), so both paths execute the same code (DES-063, DES-064).

export interface CommandDeps {
  db: Db;
  clock: Clock;
  config: Config;
}

type Args = Record<string, unknown>;

function text(args: Args, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`--${name} is required`);
  return value.trim();
}

function optionalInt(args: Args, name: string): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isInteger(n)) throw badRequest(`--${name} must be a whole number of seconds`);
  return n;
}

export const COMMANDS = {
  async migrate({ db }: CommandDeps) {
    return migrate(db);
  },
  async 'partner.create'({ db, clock, config }: CommandDeps, args: Args) {
    const auth = createAuthService({ db, clock, accessTokenTtlS: config.accessTokenTtlS });
    return auth.createPartner({ name: text(args, 'name'), access: parseAccess(text(args, 'access')) });
  },
  async 'partner.grant'({ db, clock, config }: CommandDeps, args: Args) {
    const auth = createAuthService({ db, clock, accessTokenTtlS: config.accessTokenTtlS });
    const partnerId = text(args, 'partner');
    const venueId = text(args, 'venue');
    await auth.grantVenue(partnerId, venueId);
    return { partnerId, venueId, granted: true };
  },
  async 'token.issue'({ db, clock, config }: CommandDeps, args: Args) {
    const auth = createAuthService({ db, clock, accessTokenTtlS: config.accessTokenTtlS });
    return auth.issueToken(text(args, 'partner'), optionalInt(args, 'ttl'));
  },
  async 'token.revoke'({ db, clock, config }: CommandDeps, args: Args) {
    const auth = createAuthService({ db, clock, accessTokenTtlS: config.accessTokenTtlS });
    await auth.revokeToken(text(args, 'token'));
    return { revoked: true };
  },
  async 'key.revoke'({ db, clock, config }: CommandDeps, args: Args) {
    const auth = createAuthService({ db, clock, accessTokenTtlS: config.accessTokenTtlS });
    await auth.revokeKey(text(args, 'key'));
    return { revoked: true };
  },
  async 'channel.create'({ db, clock }: CommandDeps, args: Args) {
    const logo = args.logo === undefined ? undefined : String(args.logo);
    return createChannelsService({ db, clock }).create({ name: text(args, 'name'), logo });
  },
  // A venue's POS connection, switched off and on by the operator (DESIGN 9: a suspended venue is
  // temporarily unavailable). A suspension by the operator is lifted only by the operator.
  async 'venue.suspend'({ db, clock }: CommandDeps, args: Args) {
    const { suspendConnection } = await import('../pat/connections.repository.ts');
    const venueId = venueArg(args);
    return connectionView(venueId, await suspendConnection(db.kysely, venueId, 'operator', clock.now()));
  },
  async 'venue.resume'({ db, clock }: CommandDeps, args: Args) {
    const { resumeConnection } = await import('../pat/connections.repository.ts');
    const { scheduleOrderSync } = await import('../pat/orders.service.ts');
    const venueId = venueArg(args);
    const row = await db.kysely.transaction().execute(async (tx) => {
      const resumed = await resumeConnection(tx, venueId, clock.now());
      // The sync job ended when the operator suspended the venue: start it again.
      if (resumed) await scheduleOrderSync(tx, venueId, clock.now());
      return resumed;
    });
    return connectionView(venueId, row);
  },
} satisfies Record<string, (deps: CommandDeps, args: Args) => Promise<unknown>>;

function venueArg(args: Args): string {
  const venueId = text(args, 'venue');
  if (!isUuid(venueId)) throw badRequest('--venue must be a venue id (a UUID)');
  return venueId;
}

function connectionView(venueId: string, row: { status: string; suspended_reason: string | null } | null) {
  if (!row) throw notFound(`Venue ${venueId} has no POS connection.`);
  return { venueId, status: row.status, suspendedReason: row.suspended_reason };
}

export type CommandName = keyof typeof COMMANDS;

export function isCommandName(name: string): name is CommandName {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name);
}

export async function runCommand(name: CommandName, args: Args, deps: CommandDeps): Promise<unknown> {
  return COMMANDS[name](deps, args);
}
