import { parseAccess, type AuthService } from '../auth/auth.service.ts';
import { isChannelSecret, PROTOCOLS, type ChannelAccessService } from '../channels/access.service.ts';
import type { FeedsService } from '../channels/google-feeds.service.ts';
import type { GoogleRtuService } from '../channels/google-rtu.service.ts';
import type { ChannelsService } from '../content/channels.service.ts';
import type { Db } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import { badRequest } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { ConnectionRow, ConnectionsService } from '../pos-mirror/connections.service.ts';

// The operator's commands: argument checks, then one service call each (the rules live in the
// services). The CLI runs them against the store itself, or, while a server owns the embedded
// data directory, asks that server to run them (admin endpoint), so both paths execute the same
// code (DES-063, DES-064).

/** The services the commands call, built by whoever runs them (the server, or the CLI on its own). */
export interface OperatorServices {
  auth: Pick<AuthService, 'createPartner' | 'grantVenue' | 'issueToken' | 'revokeToken' | 'revokeKey'>;
  channels: Pick<ChannelsService, 'create'>;
  channelAccess: Pick<ChannelAccessService, 'issue' | 'revoke'>;
  channelFeeds: Pick<FeedsService, 'export'>;
  googleRtu: Pick<GoogleRtuService, 'configure' | 'attempts'>;
  connections: Pick<ConnectionsService, 'suspend' | 'resume'>;
}

export interface CommandDeps {
  db: Db;
  services: OperatorServices;
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
  async 'partner.create'({ services }: CommandDeps, args: Args) {
    return services.auth.createPartner({ name: text(args, 'name'), access: parseAccess(text(args, 'access')) });
  },
  async 'partner.grant'({ services }: CommandDeps, args: Args) {
    const partnerId = text(args, 'partner');
    const venueId = text(args, 'venue');
    await services.auth.grantVenue(partnerId, venueId);
    return { partnerId, venueId, granted: true };
  },
  async 'token.issue'({ services }: CommandDeps, args: Args) {
    return services.auth.issueToken(text(args, 'partner'), optionalInt(args, 'ttl'));
  },
  async 'token.revoke'({ services }: CommandDeps, args: Args) {
    await services.auth.revokeToken(text(args, 'token'));
    return { revoked: true };
  },
  async 'key.revoke'({ services }: CommandDeps, args: Args) {
    const key = text(args, 'key');
    // A channel's API key or Basic password is revoked the same way (DESIGN 8.4).
    await (isChannelSecret(key) ? services.channelAccess.revoke(key) : services.auth.revokeKey(key));
    return { revoked: true };
  },
  async 'channel.create'({ services }: CommandDeps, args: Args) {
    const logo = args.logo === undefined ? undefined : String(args.logo);
    const protocol = args.protocol === undefined ? 'tableside' : String(args.protocol);
    if (!(PROTOCOLS as readonly string[]).includes(protocol)) throw badRequest(`--protocol must be one of ${PROTOCOLS.join(', ')}`);
    const channel = await services.channels.create({ name: text(args, 'name'), logo });
    return { ...channel, ...(await services.channelAccess.issue(channel.id, protocol)) };
  },
  // Google's feeds of a google-v3 channel, written as files (DESIGN 8.4c); `out` is absolute (google-feeds.cli.ts).
  async 'feeds.export'({ services }: CommandDeps, args: Args) {
    return services.channelFeeds.export(text(args, 'channel'), text(args, 'out'), optionalInt(args, 'shardSize'));
  },
  // Google's real-time updates of a google-v3 channel (DESIGN 8.7b): `serviceAccount` is the key
  // file's text (read by google-rtu.cli.ts); the answer never carries the private key.
  async 'channel.google-rtu'({ services }: CommandDeps, args: Args) {
    const optional = (name: string) => (args[name] === undefined || args[name] === null ? undefined : String(args[name]));
    return services.googleRtu.configure({
      channel: text(args, 'channel'), partnerId: optional('partnerId'), serviceAccount: optional('serviceAccount'),
      apiBase: optional('apiBase'), disable: args.disable === true,
    });
  },
  async 'channel.google-rtu-log'({ services }: CommandDeps, args: Args) {
    return services.googleRtu.attempts(text(args, 'channel'), optionalInt(args, 'limit'));
  },
  // A venue's POS connection, switched off and on by the operator (a suspended venue is
  // temporarily unavailable to pay-at-table and analytics).
  async 'venue.suspend'({ services }: CommandDeps, args: Args) {
    return connectionView(await services.connections.suspend(venueArg(args)));
  },
  async 'venue.resume'({ services }: CommandDeps, args: Args) {
    return connectionView(await services.connections.resume(venueArg(args)));
  },
} satisfies Record<string, (deps: CommandDeps, args: Args) => Promise<unknown>>;

function venueArg(args: Args): string {
  const venueId = text(args, 'venue');
  if (!isUuid(venueId)) throw badRequest('--venue must be a venue id (a UUID)');
  return venueId;
}

const connectionView = (row: ConnectionRow) => ({ venueId: row.venue_id, status: row.status, suspendedReason: row.suspended_reason });

export type CommandName = keyof typeof COMMANDS;

export function isCommandName(name: string): name is CommandName {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name);
}

export async function runCommand(name: CommandName, args: Args, deps: CommandDeps): Promise<unknown> {
  return COMMANDS[name](deps, args);
}
