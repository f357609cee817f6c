import { existsSync, readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { ChannelProtocol } from '../channels/access.service.ts';
import type { ChannelAccessService, ChannelCredentials } from '../channels/access.service.ts';
import type { ChannelsService } from '../content/channels.service.ts';
import { writeSandboxJson } from './ports.ts';

// The sandbox's booking channels (DESIGN 8.6): one of each protocol, linked to the sandbox RMS
// venues, their credentials in sandbox.json `channels: [{id, protocol, name, credentials}]` so a
// newcomer can book a table through the channel API or Google's v3 from the README. Kept across
// restarts: the credentials of the previous start are reused while they still authenticate.

export interface SandboxChannel { id: string; protocol: ChannelProtocol; name: string; credentials: ChannelCredentials }

const NAMES: Record<ChannelProtocol, string> = { tableside: 'Sandbox booking site', 'google-v3': 'Sandbox Reserve with Google' };

/** The channels a previous start wrote, read before the sandbox file is rewritten. */
export function previousSandboxChannels(file: string): SandboxChannel[] {
  try {
    return existsSync(file) ? ((JSON.parse(readFileSync(file, 'utf8')) as { channels?: SandboxChannel[] }).channels ?? []) : [];
  } catch {
    return [];
  }
}

export async function ensureSandboxChannels(deps: {
  previous: SandboxChannel[];
  partnerId: string;
  venueIds: string[];
  channels: Pick<ChannelsService, 'create' | 'linkVenues' | 'linkedVenues'>;
  access: Pick<ChannelAccessService, 'issue' | 'authenticateKey' | 'authenticateBasic'>;
  log: Logger;
}): Promise<SandboxChannel[]> {
  const out: SandboxChannel[] = [];
  for (const protocol of ['tableside', 'google-v3'] as const) {
    const prev = deps.previous.find((c) => c.protocol === protocol);
    let channel: SandboxChannel | null = null;
    if (prev) {
      const c = prev.credentials;
      const auth = 'apiKey' in c ? await deps.access.authenticateKey(c.apiKey) : await deps.access.authenticateBasic(c.username, c.password);
      if (auth.ok && auth.channel.id === prev.id) channel = prev;
    }
    if (!channel) {
      const created = await deps.channels.create({ name: NAMES[protocol] });
      const issued = await deps.access.issue(created.id, protocol);
      channel = { id: created.id, protocol, name: created.name, credentials: issued.credentials };
    }
    // A restart finds the venues linked: one read instead of the link's transaction, which also
    // bumped the partner's venue-list version at every start. A link removed meanwhile is made again.
    const linked = new Set(await deps.channels.linkedVenues(channel.id, deps.venueIds));
    const missing = deps.venueIds.filter((id) => !linked.has(id));
    if (missing.length > 0) await deps.channels.linkVenues(deps.partnerId, channel.id, missing);
    out.push(channel);
  }
  deps.log.info({ channels: out.map((c) => ({ id: c.id, protocol: c.protocol })) }, 'sandbox booking channels ready');
  return out;
}

/** Adds `channels` to sandbox.json. */
export function writeSandboxChannels<T extends object>(file: string, sandbox: T, channels: SandboxChannel[]): T & { channels: SandboxChannel[] } {
  const next = { ...sandbox, channels };
  writeSandboxJson(file, next);
  return next;
}
