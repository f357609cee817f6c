import { createAuthService, parseAccess } from '../auth/auth.service.ts';
import type { Config } from '../config.ts';
import { createChannelsService } from '../content/channels.service.ts';
import type { Db } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import type { Clock } from '../lib/clock.ts';
import { badRequest } from '../lib/errors.ts';

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
} satisfies Record<string, (deps: CommandDeps, args: Args) => Promise<unknown>>;

export type CommandName = keyof typeof COMMANDS;

export function isCommandName(name: string): name is CommandName {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name);
}

export async function runCommand(name: CommandName, args: Args, deps: CommandDeps): Promise<unknown> {
  return COMMANDS[name](deps, args);
}
