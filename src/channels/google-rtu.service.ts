import type { Logger } from 'pino';
import type { Db, Executor } from '../db/db.ts';
import type { JobContext, JobDefinition, JobResult } from '../db/jobs.ts';
import type { Sealer } from '../db/sealing-key.ts';
import type { Clock } from '../lib/clock.ts';
import { badRequest, notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { FeedCompletion } from '../rms/availability-feed.service.ts';
import type { RecordedBookingChange } from '../rms/bookings.fns.ts';
import { findChannel } from './access.repository.ts';
import { createRtuSenders, type RtuSenderDeps } from './google-rtu.senders.ts';
import {
  daysTouched, dayTarget, GOOGLE_API_BASE, googleFieldsOf, isHttpsUrl, readServiceAccount, retryDelayMs, withinRetryWindow,
} from './google-rtu.fns.ts';
import {
  disableConfig, findConfig, findTarget, finishTarget, GOOGLE_RTU_JOB, insertAttempt, isRtuChannel, listAttempts, markFailing,
  rtuChannelsOfVenue, rtuVenuesOfPartner, setAccepted, upsertConfig, wantUpdate, type RtuConfigRow, type TargetKind,
} from './google-rtu.repository.ts';
import { MapsBookingClient, MapsBookingError, type MapsBookingErrorKind } from './maps-booking-client.ts';

// Google's real-time updates for google-v3 channels (DESIGN 8.7b). Changes are heard in the
// transaction that records them (a booking's, a completed feed's) and written as targets with their
// job; the job calls Google with no transaction open and records the outcome. One job per target:
// it sends the target's state as it is when it runs, so a newer update supersedes an older one not
// yet sent, and for one booking an older state is never sent after a newer one. 429, 5xx and
// network failures are retried (Retry-After honoured) for 24 h; another 4xx is recorded and dropped.

/** Failures worth another try: Google (or the way to it) may answer later. */
const RETRYABLE: ReadonlySet<MapsBookingErrorKind> = new Set(['rate_limited', 'unavailable', 'network', 'timeout', 'bad_answer']);
export const GOOGLE_SEALING_KEY_SETTING = 'google.sealing_key';
const LOG_LIMIT_MAX = 500;

export interface GoogleRtuDeps extends Omit<RtuSenderDeps, 'attempt'> {
  db: Db;
  clock: Clock;
  log: Logger;
  sealer: Sealer;
}

export interface RtuConfigureInput {
  channel: string;
  partnerId?: string;
  serviceAccount?: string;
  apiBase?: string;
  disable?: boolean;
}

const configView = (c: RtuConfigRow) => ({
  channelId: c.channelId, partnerId: c.partnerId, apiBase: c.apiBase, clientEmail: c.clientEmail, tokenUri: c.tokenUri,
  enabled: c.enabled, updatedAt: c.updatedAt.toISOString(),
});

interface JobPayload { channelId: string; kind: TargetKind; target: string }

/** The configuration `configure` writes for a channel, checked (a 400 names what is wrong); the key in clear. */
function wantedConfig(channelId: string, input: RtuConfigureInput) {
  const partnerId = input.partnerId?.trim() ?? '';
  if (!/^\d{1,20}$/.test(partnerId)) throw badRequest('--partner-id must be Google\'s partner id (digits)');
  if (!input.serviceAccount) throw badRequest('--service-account is required (the JSON key file Google issued)');
  const key = readServiceAccount(input.serviceAccount);
  if (Array.isArray(key)) throw badRequest(`--service-account: ${key.join('; ')}`);
  const apiBase = (input.apiBase ?? GOOGLE_API_BASE).replace(/\/+$/, '');
  if (!isHttpsUrl(apiBase)) throw badRequest('--api-base must be an https URL');
  return { channelId, partnerId, apiBase, clientEmail: key.clientEmail, tokenUri: key.tokenUri, privateKey: key.privateKey };
}

export function createGoogleRtuService(deps: GoogleRtuDeps) {
  const { db, clock, log, sealer } = deps;
  const trusted: string[] = [];
  const clients = new Map<string, { version: number; client: MapsBookingClient }>();

  async function clientOf(cfg: RtuConfigRow): Promise<MapsBookingClient> {
    const version = cfg.updatedAt.getTime();
    const known = clients.get(cfg.channelId);
    if (known?.version === version) return known.client;
    if (known) void known.client.close();
    const privateKey = await sealer.open(cfg.privateKeySealed);
    const client = new MapsBookingClient(
      { partnerId: cfg.partnerId, apiBase: cfg.apiBase, serviceAccount: { clientEmail: cfg.clientEmail, privateKey, tokenUri: cfg.tokenUri } },
      trusted.length > 0 ? { ca: trusted.join('\n') } : {},
    );
    clients.set(cfg.channelId, { version, client });
    return client;
  }

  const attempt: RtuSenderDeps['attempt'] = (channelId, a) => insertAttempt(db.kysely, channelId, { ...a, at: clock.now() });
  const senders = createRtuSenders({ ...deps, attempt });

  async function googleChannel(channelId: string) {
    const channel = isUuid(channelId) ? await findChannel(db.kysely, channelId) : null;
    if (!channel) throw notFound(`No channel ${channelId}.`);
    if (channel.protocol !== 'google-v3') throw badRequest(`Channel ${channelId} speaks ${channel.protocol}; Google's real-time updates are for google-v3 channels.`);
    return channel;
  }

  /** The end of a run: the job ends with it, or runs again at once when a newer update came meanwhile. */
  async function finish(ctx: JobContext, p: JobPayload, upTo: number, accepted: Parameters<typeof finishTarget>[3]): Promise<JobResult> {
    const { more, ended } = await finishTarget(db.kysely, p, upTo, accepted, ctx.fence, clock.now());
    if (ended) ctx.finished();
    return more ? { retryAt: clock.now() } : undefined;
  }

  async function failed(ctx: JobContext, p: JobPayload, upTo: number, failures: number, failingSince: Date | null, err: MapsBookingError): Promise<JobResult> {
    const now = clock.now();
    const retry = RETRYABLE.has(err.kind) && withinRetryWindow(failingSince ?? now, now);
    await attempt(p.channelId, { kind: p.kind, target: p.target, status: retry ? 'retrying' : 'failed', responseCode: err.status ?? null, answer: err.message });
    if (!retry) {
      log.warn({ err, ...p }, 'Google refused a real-time update; recorded, not retried');
      return finish(ctx, p, upTo, null);
    }
    await markFailing(db.kysely, p, now);
    return { retryAt: new Date(now.getTime() + retryDelayMs(failures + 1, err.retryAfterMs)) };
  }

  async function run(p: JobPayload, ctx: JobContext): Promise<JobResult> {
    const t = await findTarget(db.kysely, p.channelId, p.kind, p.target);
    if (!t) return;
    const cfg = await findConfig(db.kysely, p.channelId);
    if (!cfg?.enabled || t.done >= t.wanted) return finish(ctx, p, t.wanted, null);
    try {
      const client = await clientOf(cfg);
      const accepted = await senders[p.kind](client, t);
      return await finish(ctx, p, t.wanted, accepted);
    } catch (err) {
      if (!(err instanceof MapsBookingError)) throw err; // the runner's own backoff
      return failed(ctx, p, t.wanted, t.failures, t.failingSince, err);
    }
  }

  return {
    /** `tableside channel google-rtu`: stores (or disables) a google-v3 channel's RTU configuration. */
    async configure(input: RtuConfigureInput) {
      const channel = await googleChannel(input.channel);
      const now = clock.now();
      if (input.disable) {
        const row = await disableConfig(db.kysely, channel.id, now);
        if (!row) throw notFound(`Channel ${channel.id} has no real-time updates configured.`);
        return configView(row);
      }
      const { privateKey, ...wanted } = wantedConfig(channel.id, input);
      const row = await upsertConfig(db.kysely, { ...wanted, privateKeySealed: await sealer.seal(privateKey) }, now);
      return configView(row);
    },

    /**
     * Whether the channel's real-time updates are enabled with exactly this configuration, the
     * private key compared once opened (a key sealed under another SECRETS_KEY is not the same). The
     * sandbox's restart asks before configuring: the write seals the key again and moves updatedAt.
     */
    async isConfiguredAs(input: RtuConfigureInput): Promise<boolean> {
      const channel = await googleChannel(input.channel);
      const { privateKey, ...wanted } = wantedConfig(channel.id, input);
      const row = await findConfig(db.kysely, channel.id);
      if (!row?.enabled || (Object.keys(wanted) as Array<keyof typeof wanted>).some((k) => row[k] !== wanted[k])) return false;
      return (await sealer.open(row.privateKeySealed).catch(() => null)) === privateKey;
    },

    /** `tableside channel google-rtu-log`: the last attempts, newest first. */
    async attempts(channelId: string, limit = 50) {
      const channel = await googleChannel(channelId);
      const n = Math.min(Math.max(1, Math.floor(limit)), LOG_LIMIT_MAX);
      const rows = await listAttempts(db.kysely, channel.id, n);
      return { channelId: channel.id, attempts: rows.map((r) => ({ ...r, at: r.at.toISOString() })) };
    },

    /**
     * Hears a booking's recorded change (bookings.onChange): a change Google did not make is a
     * notification to send; one it made is what it now accepts. A booking made, moved or cancelled
     * through Tableside also changes its venue's days for every RTU channel the venue is linked to.
     */
    async onBookingChange(tx: Executor, change: RecordedBookingChange): Promise<void> {
      const { before, after, changedBy, type, at } = change;
      if (after.channel && after.sync === 'created' && (await isRtuChannel(tx, after.channel.id))) {
        if (changedBy === 'channel' || type === 'booking.created') await setAccepted(tx, after.channel.id, after.id, googleFieldsOf(after), at);
        else await wantUpdate(tx, after.channel.id, 'booking', after.id, at);
      }
      const slotChanged = type === 'booking.created' || type === 'booking.canceled'
        || (before !== null && (before.start.getTime() !== after.start.getTime() || before.partySize !== after.partySize));
      if (changedBy === 'venue' || !slotChanged) return;
      for (const { channelId, timezone } of await rtuChannelsOfVenue(tx, after.venueId)) {
        for (const day of daysTouched(timezone ?? 'UTC', [before?.start, after.start])) {
          await wantUpdate(tx, channelId, 'day', dayTarget(after.venueId, day), at);
        }
      }
    },

    /** Hears a completed RMS feed (feed.onComplete): each linked venue's changed days go to Google. */
    async onFeedComplete(tx: Executor, done: FeedCompletion): Promise<void> {
      for (const { channelId, venueId } of await rtuVenuesOfPartner(tx, done.partnerId)) {
        await wantUpdate(tx, channelId, 'feed', venueId, done.at);
      }
    },

    /** Also trust this certificate (the in-process Google simulator of the sandbox and tests). */
    trust(pem: string): void {
      trusted.push(pem);
      for (const { client } of clients.values()) void client.close();
      clients.clear();
    },

    async close(): Promise<void> {
      await Promise.all([...clients.values()].map(({ client }) => client.close()));
      clients.clear();
    },

    jobs(): Record<string, JobDefinition<JobPayload>> {
      // Several calls of a completed feed may outlast the default lease; the runner renews none.
      return { [GOOGLE_RTU_JOB]: { run: (job, ctx) => run(job.payload, ctx), leaseMs: 10 * 60_000 } };
    },
  };
}

export type GoogleRtuService = ReturnType<typeof createGoogleRtuService>;
